"""Home: every deck with its counts; start a review or browse from here."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import CommandPalette
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from infracards.errors import InfracardsError
from infracards.records import DeckSummary
from infracards.services.formatting import (
    NO_INTERVIEW_DATE,
    WORKING_OUT_READINESS,
    cells,
    ellipsize,
    home_plan_text,
)
from infracards.services.library import deck_overview, deck_to_open
from infracards.services.plan import Readiness, accept_plan, all_readiness
from infracards.services.settings import study_prefs
from infracards.terminal_text import terminal_safe
from infracards.tui.context import AppContext
from infracards.tui.messages import AnswersOpened, DeckInView
from infracards.tui.text import CELL_PADDING, literal, notice
from infracards.tui.widgets.footer import KeysFooter

ROOMY_LABELS = ("Cards", "New today", "Due today", "Answers", "Reviewed today")
COMPACT_LABELS = ("Cards", "New", "Due", "Answers", "Reviewed")
"""The same columns (all of today), for a table too narrow for the first labels and the deck
titles."""
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
        Binding("m", "app.mock", "Mock", tooltip="A mock interview", id="mock"),
        Binding("p", "app.practice", "Extra", tooltip="Extra study", id="practice"),
        Binding(
            "i", "app.interview_date", "Date", tooltip="The interview date", id="interview-date"
        ),
        Binding("a", "accept_plan", "Accept", tooltip="The plan as new-per-day", id="accept-plan"),
        Binding("k", "app.unlock", "Unlock", id="unlock"),
        Binding("q", "app.quit", "Quit", id="quit"),
    ]

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.context = context
        self.built = False
        """Whether the widgets exist: a screen pushed under another is built when first shown."""
        self.new_per_day = 0
        """Today's setting, to tell whether accepting the plan would change it."""
        self.readiness: dict[str, Readiness] | None = {}
        """Each deck's readiness for the interview date (None while a worker computes it)."""
        self.summaries: tuple[DeckSummary, ...] = ()

    plan_ready: reactive[bool] = reactive(False, bindings=True)
    """The selected deck has a plan that can be accepted as new-per-day."""

    def compose(self) -> ComposeResult:
        if not self.is_active:
            return
        self.built = True
        yield Header()
        yield Static("Select a deck, then press r to review or b to browse.", id="home-intro")
        yield DataTable(id="deck-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="home-plan")
        yield KeysFooter()

    async def on_screen_resume(self) -> None:
        """Counts change after a review: reload each time this screen is shown (first too)."""
        if not self.is_active:
            return
        if not self.built:
            await self.recompose()
            self.set_focus(self.query_one(DataTable))  # as auto-focus does at compose
        self.refresh_decks()
        self.announce_deck()

    def on_screen_suspend(self) -> None:
        """Whatever covers Home (a review, a dialog) may change what a mock draw would pick;
        the command palette does not (and its "Mock interview" then takes what is ready)."""
        if not isinstance(self.app.screen, CommandPalette):
            self.post_message(DeckInView(None))

    def announce_deck(self) -> None:
        """After this frame: the app then draws a mock interview of the deck ahead."""
        self.call_after_refresh(self._deck_in_view)

    def _deck_in_view(self) -> None:
        if self.is_current:  # not if a key has covered Home since (r pressed at once, say)
            self.post_message(DeckInView(self.selected_deck))

    async def on_data_table_row_selected(self, _event: DataTable.RowSelected) -> None:
        await self.app.run_action("app.review")

    def refresh_decks(self) -> None:
        """The decks' counts, and their readiness when an interview date is set."""
        context = self.context
        self.summaries = deck_overview(context.engine, now=context.clock(), home=context.home).decks
        self.show_decks()
        prefs = study_prefs(context.engine)
        self.new_per_day = prefs.new_per_day
        if prefs.interview_date is None:
            self.readiness = {}
        else:
            self.readiness = None
            self.load_readiness()
        self.show_plan()

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

    @work(thread=True, exclusive=True, group="readiness")
    def load_readiness(self) -> None:
        """Readiness reads every card's state (~0.1 s at 100,000 cards): off the UI thread."""
        found = all_readiness(self.context.engine, now=self.context.clock(), home=self.context.home)
        self.app.call_from_thread(self._readiness_loaded, found)

    def _readiness_loaded(self, found: dict[str, Readiness]) -> None:
        self.readiness = found
        # Through this screen's own queue: updated straight from the worker's callback, the
        # lines were sometimes drawn in the height the previous text had.
        self.call_later(self.show_plan)

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self.show_plan()
        self.announce_deck()

    def show_plan(self) -> None:
        """The countdown, readiness per topic, the cards dragging it down, and the plan."""
        if not self.built:
            return
        new_per_day = self.new_per_day
        if self.readiness is None:
            text, outlook = WORKING_OUT_READINESS, None
        else:
            outlook = self.readiness.get(self.selected_deck or "")
            text = (
                home_plan_text(outlook, new_per_day=new_per_day)
                if outlook is not None
                else NO_INTERVIEW_DATE
            )
        self.query_one("#home-plan", Static).update(literal(text))
        per_day = outlook.plan.new_per_day if outlook is not None else None
        self.plan_ready = bool(per_day) and per_day != new_per_day

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "accept_plan":
            return self.plan_ready
        return True

    def action_accept_plan(self) -> None:
        """Take the plan's new cards a day as new-per-day."""
        deck_id = self.selected_deck
        if deck_id is None:
            return
        try:
            per_day = accept_plan(
                self.context.engine,
                deck_id=deck_id,
                now=self.context.clock(),
                home=self.context.home,
            )
        except InfracardsError as error:
            self.notify(notice(str(error)), severity="warning", timeout=6, markup=False)
            return
        self.notify(f"new-per-day = {per_day}: the plan is today's limit from now on.", timeout=4)
        self.refresh_decks()

    def row(self, deck: DeckSummary) -> tuple[str, ...]:
        """A deck's cells as text: its title made safe to draw, "3 of 40" where the day's
        review cap holds some of the due cards back."""
        if not deck.locked:
            answers = "all free"
        elif self.context.answers.is_unlocked(deck.deck_id):
            answers = "unlocked"
        else:
            answers = f"{deck.locked} locked"
        due = deck.due_today if deck.due_today == deck.due else f"{deck.due_today} of {deck.due}"
        title = terminal_safe(deck.title, one_line=True)
        values = (title, deck.total, deck.new_today, due, answers, deck.reviews_today)
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
