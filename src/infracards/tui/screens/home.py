"""Home: every deck with its counts; start a review or browse from here."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from infracards.services.library import deck_overview, deck_to_open
from infracards.tui.context import AppContext
from infracards.tui.messages import AnswersOpened


class HomeScreen(Screen[None]):
    """The first screen: decks and what is due today.

    Under a review started from the command line it stays empty until it is first shown, so
    the review's first card is drawn sooner (about 25 ms).
    """

    BINDINGS = [
        Binding("r", "app.review", "Review", id="review"),
        Binding("b", "app.browse", "Browse", id="browse"),
        Binding("s", "app.stats", "Stats", id="stats"),
        Binding("k", "app.unlock", "Unlock", id="unlock"),
        Binding("q", "app.quit", "Quit", id="quit"),
    ]

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.context = context
        self.built = False
        """Whether the widgets exist: a screen pushed under another is built when first shown."""

    def compose(self) -> ComposeResult:
        if not self.is_active:
            return
        self.built = True
        yield Header()
        yield Static("Select a deck, then press r to review or b to browse.", id="home-intro")
        table: DataTable[str] = DataTable(id="deck-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("Deck", "Cards", "New today", "Due today", "Answers", "Reviewed today")
        yield table
        yield Footer()

    async def on_screen_resume(self) -> None:
        """Counts change after a review: reload each time this screen is shown (first too)."""
        if not self.is_active:
            return
        if not self.built:
            await self.recompose()
            self.set_focus(self.query_one(DataTable))  # as auto-focus does at compose
        self.refresh_decks()

    async def on_data_table_row_selected(self, _event: DataTable.RowSelected) -> None:
        await self.app.run_action("app.review")

    def refresh_decks(self) -> None:
        table = self.query_one(DataTable)
        context = self.context
        summaries = deck_overview(context.engine, now=context.clock(), home=context.home).decks
        studied = None if table.row_count else deck_to_open(self.context.engine)
        ids = [deck.deck_id for deck in summaries]
        cursor = ids.index(studied) if studied in ids else table.cursor_row
        table.clear()
        for deck in summaries:
            if not deck.locked:
                answers = "all free"
            elif self.context.answers.is_unlocked(deck.deck_id):
                answers = "unlocked"
            else:
                answers = f"{deck.locked} locked"
            row = (deck.title, deck.total, deck.new_today, deck.due, answers, deck.reviews_today)
            table.add_row(*map(str, row), key=deck.deck_id)
        if summaries:
            table.move_cursor(row=min(max(cursor, 0), len(summaries) - 1))

    def on_answers_opened(self, _message: AnswersOpened) -> None:
        if self.built:
            self.refresh_decks()

    @property
    def unlock_target(self) -> str | None:
        """The deck `k` unlocks: the selected one."""
        return self.selected_deck

    @property
    def selected_deck(self) -> str | None:
        if not self.built:  # not shown yet: the deck its cursor will start on
            return deck_to_open(self.context.engine)
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
