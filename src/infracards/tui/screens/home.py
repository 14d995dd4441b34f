"""Home: every deck with its counts; start a review or browse from here."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from infracards.store.db import transaction
from infracards.store.queries import deck_summaries
from infracards.tui.context import AppContext


class HomeScreen(Screen[None]):
    """The first screen: decks and what is due today."""

    BINDINGS = [
        Binding("r", "app.review", "Review", id="review"),
        Binding("b", "app.browse", "Browse", id="browse"),
        Binding("k", "app.unlock", "Unlock", id="unlock"),
        Binding("q", "app.quit", "Quit", id="quit"),
    ]

    def __init__(self, context: AppContext, *, notice: str = "") -> None:
        super().__init__()
        self.context = context
        self.notice = notice

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Select a deck, then press r to review or b to browse.", id="home-intro")
        yield DataTable(id="deck-table", cursor_type="row", zebra_stripes=True)
        yield Static(Text(self.notice), id="home-notice")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(
            "Deck", "Cards", "New", "Due today", "Answers", "Reviewed today"
        )
        self.refresh_decks()

    def on_screen_resume(self) -> None:
        self.refresh_decks()

    def on_data_table_row_selected(self, _event: DataTable.RowSelected) -> None:
        self.app.run_action("app.review")

    def refresh_decks(self) -> None:
        with transaction(self.context.engine) as session:
            summaries = deck_summaries(session, today=self.context.today())
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        for deck in summaries:
            if not deck.locked:
                answers = "all free"
            elif self.context.answers.is_unlocked(deck.deck_id):
                answers = "unlocked"
            else:
                answers = f"{deck.locked} locked"
            row = (deck.title, deck.total, deck.new, deck.due, answers, deck.reviews_today)
            table.add_row(*map(str, row), key=deck.deck_id)
        if summaries:
            table.move_cursor(row=min(max(cursor, 0), len(summaries) - 1))

    def show_notice(self, notice: str) -> None:
        self.query_one("#home-notice", Static).update(Text(notice))

    @property
    def selected_deck(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
