"""Home: every deck with its counts; start a review or browse from here."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from infracards.errors import InfracardsError
from infracards.services.formatting import (
    NO_INTERVIEW_DATE,
    WORKING_OUT_READINESS,
    home_plan_text,
)
from infracards.services.library import deck_overview, deck_to_open
from infracards.services.plan import Readiness, accept_plan, all_readiness
from infracards.services.settings import study_prefs
from infracards.tui.context import AppContext
from infracards.tui.messages import AnswersOpened
from infracards.tui.text import cell, literal, notice


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

    plan_ready: reactive[bool] = reactive(False, bindings=True)
    """The selected deck has a plan that can be accepted as new-per-day."""

    def compose(self) -> ComposeResult:
        if not self.is_active:
            return
        self.built = True
        yield Header()
        yield Static("Select a deck, then press r to review or b to browse.", id="home-intro")
        table: DataTable[str] = DataTable(id="deck-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("Deck", "Cards", "New today", "Due today", "Answers", "Reviewed today")
        yield table
        yield Static(id="home-plan")
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
        summaries = deck_overview(self.context.engine, now=self.context.clock()).decks
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
            due = (
                deck.due_today if deck.due_today == deck.due else f"{deck.due_today} of {deck.due}"
            )
            row = (cell(deck.title), deck.total, deck.new_today, due, answers, deck.reviews_today)
            table.add_row(*map(str, row), key=deck.deck_id)
        if summaries:
            table.move_cursor(row=min(max(cursor, 0), len(summaries) - 1))
        prefs = study_prefs(self.context.engine)
        self.new_per_day = prefs.new_per_day
        if prefs.interview_date is None:
            self.readiness = {}
        else:
            self.readiness = None
            self.load_readiness()
        self.show_plan()

    @work(thread=True, exclusive=True, group="readiness")
    def load_readiness(self) -> None:
        """Readiness reads every card's state (~0.1 s at 100,000 cards): off the UI thread."""
        found = all_readiness(self.context.engine, now=self.context.clock())
        self.app.call_from_thread(self._readiness_loaded, found)

    def _readiness_loaded(self, found: dict[str, Readiness]) -> None:
        self.readiness = found
        # Through this screen's own queue: updated straight from the worker's callback, the
        # lines were sometimes drawn in the height the previous text had.
        self.call_later(self.show_plan)

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self.show_plan()

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
            per_day = accept_plan(self.context.engine, deck_id=deck_id, now=self.context.clock())
        except InfracardsError as error:
            self.notify(notice(str(error)), severity="warning", timeout=6, markup=False)
            return
        self.notify(f"new-per-day = {per_day}: the plan is today's limit from now on.", timeout=4)
        self.refresh_decks()

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
