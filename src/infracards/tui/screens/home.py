"""Home: every deck with its counts; start a review or browse from here."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from infracards.records import DeckSummary
from infracards.services.formatting import cells, ellipsize
from infracards.services.library import deck_overview, deck_to_open
from infracards.tui.context import AppContext
from infracards.tui.messages import AnswersOpened
from infracards.tui.widgets.footer import KeysFooter

ROOMY_LABELS = ("Cards", "New today", "Due today", "Answers", "Reviewed today")
COMPACT_LABELS = ("Cards", "New", "Due", "Answers", "Reviewed")
"""The same columns (all of today), for a table too narrow for the first labels and the deck
titles."""
CELL_PADDING = 2
"""A DataTable cell's padding, both sides together."""
MIN_TITLE = 12


def deck_columns(rows: list[tuple[str, ...]], width: int) -> list[tuple[str, int]]:
    """(label, cells) of each column, the deck's title first, so that every column fits in
    ``width`` (at 80 columns "Reviewed today" was out of sight): the roomy labels where the
    titles fit beside them, else the compact ones, the titles cut with "…" if need be."""
    titles = max([cells("Deck"), *(cells(row[0]) for row in rows)])
    columns: list[tuple[str, int]] = []
    for labels in (ROOMY_LABELS, COMPACT_LABELS):
        columns = [
            (label, max([cells(label), *(cells(row[i + 1]) for row in rows)]))
            for i, label in enumerate(labels)
        ]
        room = width - sum(size + CELL_PADDING for _, size in columns) - CELL_PADDING
        if room >= titles:
            return [("Deck", titles), *columns]
    return [("Deck", max(MIN_TITLE, room)), *columns]


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
        self.summaries: tuple[DeckSummary, ...] = ()

    def compose(self) -> ComposeResult:
        if not self.is_active:
            return
        self.built = True
        yield Header()
        yield Static("Select a deck, then press r to review or b to browse.", id="home-intro")
        yield DataTable(id="deck-table", cursor_type="row", zebra_stripes=True)
        yield KeysFooter()

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
        context = self.context
        self.summaries = deck_overview(context.engine, now=context.clock(), home=context.home).decks
        self.show_decks()

    def on_resize(self) -> None:
        if self.built:
            self.show_decks()

    def show_decks(self) -> None:
        """The table, its columns fitted to the screen's width (no column out of sight)."""
        table = self.query_one(DataTable)
        summaries = self.summaries
        studied = None if table.row_count else deck_to_open(self.context.engine)
        ids = [deck.deck_id for deck in summaries]
        cursor = ids.index(studied) if studied in ids else table.cursor_row
        rows = [self.row(deck) for deck in summaries]
        columns = deck_columns(rows, table.size.width or self.size.width - 4)
        table.clear(columns=True)
        for label, width in columns:
            table.add_column(label, width=width)
        title_cells = columns[0][1]
        for deck, row in zip(summaries, rows, strict=True):
            title = Text(ellipsize(row[0], title_cells))  # deck text, shown literally
            table.add_row(title, *row[1:], key=deck.deck_id)
        if summaries:
            table.move_cursor(row=min(max(cursor, 0), len(summaries) - 1))

    def row(self, deck: DeckSummary) -> tuple[str, ...]:
        if not deck.locked:
            answers = "all free"
        elif self.context.answers.is_unlocked(deck.deck_id):
            answers = "unlocked"
        else:
            answers = f"{deck.locked} locked"
        values = (deck.title, deck.total, deck.new_today, deck.due, answers, deck.reviews_today)
        return tuple(map(str, values))

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
