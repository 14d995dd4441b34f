"""Browse: every card in a table, with text search, tag and state filters, sorting by any
column (click its header, or o / O), and suspend (@) or bury (-) of the highlighted card."""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Header, Input, Select

from infracards.errors import InfracardsError
from infracards.records import BrowseRow
from infracards.services.browse import (
    SORT_COLUMNS,
    STATES,
    cards_with_answer_words,
    list_cards,
    matched_in,
    matches,
    row_states,
    search_text,
    sort_rows,
)
from infracards.services.cards import set_card_buried, set_card_suspended
from infracards.services.settings import study_day_at
from infracards.terminal_text import terminal_safe
from infracards.tui.context import AppContext
from infracards.tui.messages import AnswersOpened
from infracards.tui.screens.card import CardScreen
from infracards.tui.text import cell, literal, notice

PAGE_ROWS = 200
ANSWER_SEARCH_DELAY = 0.3
"""Seconds after the last keystroke before answers are searched."""
PROMPT_CELLS = 30
TAGS_CELLS = 14


def clipped(value: str, cells: int) -> Text:
    """Literal text cut to a number of terminal cells (a CJK character takes two)."""
    text = Text(terminal_safe(value, one_line=True), no_wrap=True)
    text.truncate(cells, overflow="ellipsis")
    return text


class BrowseScreen(Screen[None]):
    """All cards of all decks; enter opens one."""

    BINDINGS = [
        Binding("/", "focus_search", "Search", id="search"),
        Binding("o", "sort", "Sort", id="sort"),
        Binding("O", "sort(True)", "Reverse", show=False, id="sort-reverse"),
        Binding("at", "suspend", "Suspend", key_display="@", id="suspend"),
        Binding("minus", "bury", "Bury", key_display="-", id="bury"),
        Binding("escape", "back", "Back", id="back"),
    ]
    COLUMNS = ("Id", "Prompt", "Tags", "EF", "Interval", "Due", "Reviews", "Answer", "State")

    def __init__(self, context: AppContext, *, deck_id: str | None = None) -> None:
        super().__init__()
        self.context = context
        self.deck_id = deck_id
        self.rows: list[BrowseRow] = []
        self.search_texts: list[str] = []
        self.matched: list[BrowseRow] = []
        """The rows the filters let through; the table lists them a page at a time."""
        self.answer_hits: tuple[tuple[str, ...], frozenset[int]] = ((), frozenset())
        """Search words, and the cards whose answer has them all (found in a worker)."""
        self.opened_answers: dict[int, str] = {}
        self.in_answers: frozenset[int] = frozenset()
        """Sealed answers of unlocked decks, opened once for searching, case-folded."""
        self.answer_search: Timer | None = None
        self.sort: tuple[str | None, bool] = (None, False)
        """(column, descending): None lists cards in deck order."""
        self.today = study_day_at(context.engine, now=context.clock())

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browse-filters"):
            yield Input(
                placeholder="Search id, prompt, tag, deck or answer (/)", id="browse-search"
            )
            yield Select[str]([], prompt="All tags", id="browse-tag")
            yield Select[str](
                ((state, state) for state in STATES), prompt="Any state", id="browse-state"
            )
        yield DataTable(id="browse-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*self.COLUMNS, "Match")
        self.load_rows()
        tags = sorted({tag for row in self.rows for tag in row.tags})
        self.query_one(Select).set_options((literal(tag, one_line=True), tag) for tag in tags)
        table = self.query_one(DataTable)
        self.watch(table, "scroll_y", self._scrolled, init=False)
        table.focus()

    def on_answers_opened(self, _message: AnswersOpened) -> None:
        self.answer_hits = ((), frozenset())  # the newly opened answers are searched too
        self.apply_filters()

    def load_rows(self) -> None:
        self.rows = list_cards(self.context.engine, deck_id=self.deck_id)
        self.search_texts = [search_text(row) for row in self.rows]
        self.apply_filters()

    @on(Input.Changed, "#browse-search")
    @on(Select.Changed, "#browse-tag")
    @on(Select.Changed, "#browse-state")
    def apply_filters(self) -> None:
        words = self.search_words()
        tag = self._selected("#browse-tag")
        state = self._selected("#browse-state")
        searched, hits = self.answer_hits
        in_answers = hits if searched == words else frozenset()
        self.in_answers = in_answers
        matched = [
            row
            for row, text in zip(self.rows, self.search_texts, strict=True)
            if matches(
                row,
                text,
                words=list(words),
                tag=tag,
                in_answer=row.pk in in_answers,
                state=state,
                today=self.today,
            )
        ]
        column, descending = self.sort
        self.matched = sort_rows(matched, column=column, descending=descending)
        self.query_one(DataTable).clear()
        self.list_more()
        if words and searched != words:
            # Answers are searched once typing pauses: scanning 100k answers takes ~0.3 s.
            if self.answer_search is not None:
                self.answer_search.stop()
            self.answer_search = self.set_timer(
                ANSWER_SEARCH_DELAY, partial(self.search_answers, words)
            )

    def _selected(self, selector: str) -> str | None:
        value = self.query_one(selector, Select).value
        return value if isinstance(value, str) else None

    @work(thread=True, exclusive=True, group="answer-search")
    def search_answers(self, words: tuple[str, ...]) -> None:
        hits = cards_with_answer_words(
            self.context.engine,
            self.context.answers,
            rows=self.rows,
            words=words,
            opened=self.opened_answers,
            deck_id=self.deck_id,
        )
        self.app.call_from_thread(self._answers_searched, words, hits)

    def _answers_searched(self, words: tuple[str, ...], hits: frozenset[int]) -> None:
        self.answer_hits = (words, hits)
        if self.search_words() == words:
            self.apply_filters()

    def search_words(self) -> tuple[str, ...]:
        return tuple(self.query_one("#browse-search", Input).value.casefold().split())

    def list_more(self) -> None:
        """Add the next page of matches: a table row costs ~130 µs to build, so 100k cards
        listed at once took 13 s; a page is drawn at once and the next follows the cursor."""
        table = self.query_one(DataTable)
        start = table.row_count
        words = list(self.search_words())
        for row in self.matched[start : start + PAGE_ROWS]:
            answer = (
                "locked"
                if row.locked and not self.context.answers.is_unlocked(row.deck_id)
                else "open"
            )
            table.add_row(
                cell(row.card_id),
                clipped(row.prompt, PROMPT_CELLS),
                clipped(" ".join(row.tags), TAGS_CELLS),
                f"{row.easiness:.2f}",
                f"{row.interval}d" if row.due else "new",
                row.due.isoformat() if row.due else "—",
                str(row.reviews),
                answer,
                ", ".join(sorted(row_states(row, self.today))),
                matched_in(row, words=words, in_answer=row.pk in self.in_answers),
                key=str(row.pk),
            )
        listed = table.row_count
        more = f" · {listed} listed, more as you scroll" if listed < len(self.matched) else ""
        column, descending = self.sort
        order = f" · by {column} {'↓' if descending else '↑'}" if column else ""
        self.sub_title = f"{len(self.matched)} of {len(self.rows)} cards{order}{more}"

    @on(DataTable.RowHighlighted, "#browse-table")
    def _cursor_moved(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= event.data_table.row_count - 1:
            self.list_more()

    def _scrolled(self, _old: float, new: float) -> None:
        """Scrolled (End, PgDn, the wheel) to within a screen of the last listed row."""
        table = self.query_one(DataTable)
        if new >= table.max_scroll_y - table.size.height:
            self.list_more()

    @on(Input.Submitted, "#browse-search")
    def _search_done(self) -> None:
        self.query_one(DataTable).focus()

    @on(DataTable.RowSelected, "#browse-table")
    def _open_card(self, event: DataTable.RowSelected) -> None:
        self.app.push_screen(CardScreen(self.context, card_pk=int(str(event.row_key.value))))

    @on(DataTable.HeaderSelected, "#browse-table")
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        """A click on a column's header sorts by it; a second click reverses the order."""
        if event.column_index >= len(self.COLUMNS):
            return
        column = self.COLUMNS[event.column_index]
        current, descending = self.sort
        self.sort_by(column, descending=not descending if current == column else False)

    def action_sort(self, reverse: bool = False) -> None:
        """o: sort by the next column (deck order after the last); O: reverse the order."""
        column, descending = self.sort
        if reverse:
            self.sort_by(column, descending=not descending)
            return
        names = list(SORT_COLUMNS)
        following = names.index(column) + 1 if column in names else 0
        self.sort_by(names[following] if following < len(names) else None, descending=False)

    def sort_by(self, column: str | None, *, descending: bool) -> None:
        self.sort = (column, descending)
        self.apply_filters()

    def highlighted(self) -> BrowseRow | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((row for row in self.matched if str(row.pk) == key), None)

    def action_suspend(self) -> None:
        """Suspend the highlighted card, or unsuspend it if it is suspended."""
        row = self.highlighted()
        if row is None:
            return
        try:
            set_card_suspended(
                self.context.engine,
                card_id=row.card_id,
                deck_id=row.deck_id,
                suspended=not row.suspended,
            )
        except InfracardsError as error:
            self.notify(notice(f"Nothing changed: {error}"), severity="error", markup=False)
            return
        changed = f"{row.card_id} {'unsuspended' if row.suspended else 'suspended'}"
        self.notify(notice(changed), timeout=2, markup=False)
        self.reload_keeping_cursor()

    def action_bury(self) -> None:
        """Bury the highlighted card until tomorrow, or unbury it."""
        row = self.highlighted()
        if row is None:
            return
        buried = row.buried_on == self.today
        try:
            set_card_buried(self.context.engine, pk=row.pk, day=None if buried else self.today)
        except InfracardsError as error:
            self.notify(notice(f"Nothing changed: {error}"), severity="error", markup=False)
            return
        changed = f"{row.card_id} {'unburied' if buried else 'buried until tomorrow'}"
        self.notify(notice(changed), timeout=2, markup=False)
        self.reload_keeping_cursor()

    def reload_keeping_cursor(self) -> None:
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        self.load_rows()
        table.move_cursor(row=min(cursor, max(0, table.row_count - 1)))

    def action_focus_search(self) -> None:
        self.query_one("#browse-search", Input).focus()

    def action_back(self) -> None:
        self.dismiss()
