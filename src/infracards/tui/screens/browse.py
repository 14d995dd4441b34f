"""Browse: every card in a table, with text search, tag and state filters, sorting by any
column (click its header, or o / O), and suspend (@) or bury (-) of the highlighted card."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Header, Input, Select, Static

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
from infracards.services.formatting import cells, ellipsize, plural
from infracards.services.settings import study_day_at
from infracards.terminal_text import terminal_safe
from infracards.tui.context import AppContext
from infracards.tui.messages import AnswersOpened
from infracards.tui.screens.card import CardScreen
from infracards.tui.text import CELL_PADDING, literal, notice
from infracards.tui.widgets.footer import KeysFooter

PAGE_ROWS = 200
ANSWER_SEARCH_DELAY = 0.3
"""Seconds after the last keystroke before answers are searched."""
MIN_PROMPT = 28
"""The prompt column gets whatever the others leave, at least this; they give way first."""
TAGS_CELLS = 16
SCROLLBAR = 2


@lru_cache(maxsize=4096)
def tags_text(tags: tuple[str, ...]) -> str:
    """A card's tags as the Tags column shows them (cached: many cards share a few sets, and
    cutting one to ``TAGS_CELLS`` took most of measuring 100,000 cards)."""
    return ellipsize(terminal_safe(" ".join(tags), one_line=True), TAGS_CELLS)


COLUMNS: dict[str, Callable[[BrowseRow], str]] = {
    "Id": lambda row: terminal_safe(row.card_id, one_line=True),
    "Prompt": lambda row: terminal_safe(row.prompt, one_line=True),
    "Tags": lambda row: tags_text(row.tags),
    "EF": lambda row: f"{row.easiness:.2f}",
    "Interval": lambda row: f"{row.interval}d" if row.due else "new",
    "Due": lambda row: row.due.isoformat() if row.due else "—",
    "Reviews": lambda row: str(row.reviews),
}
"""The columns that depend on the card alone, left to right, as shown (deck text made safe);
Answer, State and Match (while searching) follow them."""
DECK_TEXT = frozenset({"Id", "Tags"})
"""Columns of deck text besides the prompt (a ``Text``): a str cell is read as markup, so
theirs is escaped."""
GIVE_WAY = ("Reviews", "Tags", "Interval", "EF", "Match", "State")
"""The columns left out, in this order, when the prompt would get less than ``MIN_PROMPT``."""
SEARCH_HINTS = ("Search id, prompt, tag, deck or answer (/)", "Search (/)")
"""The search box's placeholder, and the one for a box too narrow for it (60 columns)."""


def column_sizes(rows: list[BrowseRow]) -> dict[str, int]:
    """The cells each of ``COLUMNS`` needs for ``rows`` (each distinct value measured once),
    the prompt's for the longest."""
    return {
        label: max([cells(label), *map(cells, {value(row) for row in rows})])
        for label, value in COLUMNS.items()
    }


def browse_columns(sizes: dict[str, int], width: int) -> tuple[list[tuple[str, int]], list[str]]:
    """(label, cells) of the columns that fit in ``width``, the prompt's as wide as what is
    left allows (up to the longest prompt), and the labels left out for want of room (in
    table order). ``sizes``: what each column needs, ``COLUMNS`` first, then the ones that
    depend on more than the card (the opened decks, the study day, the search)."""
    longest = sizes["Prompt"]
    sizes = {label: size for label, size in sizes.items() if label != "Prompt"}
    hidden: list[str] = []

    def room() -> int:
        shown = sum(size + CELL_PADDING for label, size in sizes.items() if label not in hidden)
        return width - SCROLLBAR - shown - CELL_PADDING

    for label in GIVE_WAY:
        if room() >= MIN_PROMPT:
            break
        if label in sizes:
            hidden.append(label)
    prompt = min(longest, max(MIN_PROMPT, room()))
    labels = [*COLUMNS, *(label for label in sizes if label not in COLUMNS)]
    columns = [
        (label, prompt if label == "Prompt" else sizes[label])
        for label in labels
        if label not in hidden
    ]
    return columns, [label for label in labels if label in hidden]


class BrowseScreen(Screen[None]):
    """All cards of all decks; enter opens one."""

    BINDINGS = [
        Binding("/", "focus_search", "Search", id="search"),
        Binding("o", "sort", "Sort", id="sort"),
        Binding("O", "sort(True)", "Reverse", show=False, id="sort-reverse"),
        Binding("at", "suspend", "Suspend", key_display="@", id="suspend"),
        Binding("minus", "bury", "Bury", key_display="-", id="bury"),
        Binding("escape,q", "back", "Back", id="back"),
    ]

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
        self.sizes: dict[str, int] = {}
        """The cells each column needs for ``rows``, but Match (``column_sizes``)."""
        self.columns: list[tuple[str, int]] = []
        """(label, cells) of the columns shown, fitted to the width (``browse_columns``)."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browse-filters"):
            yield Input(placeholder=SEARCH_HINTS[0], id="browse-search")
            yield Select[str]([], prompt="All tags", id="browse-tag")
            yield Select[str](
                ((state, state) for state in STATES), prompt="Any state", id="browse-state"
            )
        yield Static(id="browse-hidden")
        yield DataTable(id="browse-table", cursor_type="row", zebra_stripes=True)
        yield KeysFooter()

    def on_mount(self) -> None:
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
        states = {", ".join(sorted(row_states(row, self.today))) for row in self.rows}
        self.sizes = {
            **column_sizes(self.rows),
            "Answer": cells("locked"),
            "State": max(map(cells, ["State", *states])),
        }
        self.columns = []  # fitted again to the rows (apply_filters)
        self.apply_filters()

    def on_resize(self) -> None:
        search = self.query_one("#browse-search", Input)
        room = search.content_region.width
        search.placeholder = next((h for h in SEARCH_HINTS if cells(h) <= room), "")
        if self.fit_columns():
            self.list_more()

    def fit_columns(self) -> bool:
        """Columns for the table's width: every column that fits, the prompt as wide as the
        rest allows, and a line naming any left out (at 80 columns Due was cut to
        "2026-12-" and two columns sat out of sight). True if they changed."""
        table = self.query_one(DataTable)
        width = table.size.width or self.size.width
        columns, hidden = browse_columns(self.sizes | self.match_size(), width)
        if columns == self.columns:
            return False
        self.columns = columns
        table.clear(columns=True)
        for label, size in columns:
            table.add_column(label, width=size, key=label)
        note = self.query_one("#browse-hidden", Static)
        note.update(f"Hidden at this width: {', '.join(hidden)}")
        note.display = bool(hidden)
        return True

    def match_size(self) -> dict[str, int]:
        """While searching, the cells of Match (where the words were found) for the first
        page of matches (a later page's wider value is cut with "…"); nothing otherwise."""
        words = list(self.search_words())
        if not words:
            return {}
        found = {
            matched_in(row, words=words, in_answer=row.pk in self.in_answers)
            for row in self.matched[:PAGE_ROWS]
        }
        return {"Match": max(map(cells, ["Match", *found]))}

    def _cell(
        self, label: str, row: BrowseRow, answer: str, words: list[str], widths: dict[str, int]
    ) -> str | Text:
        """What column ``label`` shows for ``row`` (``widths``: the columns' cells)."""
        if label == "Prompt":
            return Text(ellipsize(COLUMNS["Prompt"](row), widths["Prompt"]))
        if label in COLUMNS:
            value = COLUMNS[label](row)
            return escape(value) if label in DECK_TEXT else value
        if label == "Answer":
            return answer
        if label == "State":
            return ", ".join(sorted(row_states(row, self.today)))
        found = matched_in(row, words=words, in_answer=row.pk in self.in_answers)
        return ellipsize(found, widths["Match"])

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
        if not self.fit_columns():  # Match comes and goes with the search
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
        widths = dict(self.columns)
        for row in self.matched[start : start + PAGE_ROWS]:
            answer = (
                "locked"
                if row.locked and not self.context.answers.is_unlocked(row.deck_id)
                else "open"
            )
            table.add_row(
                *(self._cell(label, row, answer, words, widths) for label in widths),
                key=str(row.pk),
            )
        listed = table.row_count
        more = f" · {listed} listed, more as you scroll" if listed < len(self.matched) else ""
        column, descending = self.sort
        order = f" · by {column} {'↓' if descending else '↑'}" if column else ""
        self.sub_title = f"{len(self.matched)} of {plural(len(self.rows), 'card')}{order}{more}"

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
        column = self.columns[event.column_index][0]
        if column not in SORT_COLUMNS:
            return
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
