"""Browse: every card in a table, with text search and a tag filter."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Header, Input, Select, Static

from infracards.records import BrowseRow
from infracards.services.browse import cards_with_answer_words, list_cards, matches, search_text
from infracards.services.formatting import cells, ellipsize, plural
from infracards.tui.context import AppContext
from infracards.tui.messages import AnswersOpened
from infracards.tui.screens.card import CardScreen
from infracards.tui.widgets.footer import KeysFooter

PAGE_ROWS = 200
ANSWER_SEARCH_DELAY = 0.3
"""Seconds after the last keystroke before answers are searched."""
MIN_PROMPT = 28
"""The prompt column gets whatever the others leave, at least this; they give way first."""
TAGS_CELLS = 16
CELL_PADDING = 2
"""A DataTable cell's padding, both sides together."""
SCROLLBAR = 2

COLUMNS: dict[str, Callable[[BrowseRow], str]] = {
    "Id": lambda row: row.card_id,
    "Prompt": lambda row: row.prompt,
    "Tags": lambda row: ellipsize(" ".join(row.tags), TAGS_CELLS),
    "EF": lambda row: f"{row.easiness:.2f}",
    "Interval": lambda row: f"{row.interval}d" if row.due else "new",
    "Due": lambda row: row.due.isoformat() if row.due else "—",
    "Reviews": lambda row: str(row.reviews),
}
"""Every column but Answer (which depends on the opened decks), left to right."""
GIVE_WAY = ("Reviews", "Tags", "Interval", "EF")
SEARCH_HINTS = ("Search id, prompt, tag, deck or answer (/)", "Search (/)")
"""The search box's placeholder, and the one for a box too narrow for it (60 columns)."""
"""The columns left out, in this order, when the prompt would get less than ``MIN_PROMPT``."""


def browse_columns(rows: list[BrowseRow], width: int) -> tuple[list[tuple[str, int]], list[str]]:
    """(label, cells) of the columns that fit in ``width``, the prompt's as wide as what is
    left allows (up to the longest prompt), and the labels left out for want of room (in
    table order)."""
    sizes = {
        label: max([cells(label), *(cells(value(row)) for row in rows)])
        for label, value in COLUMNS.items()
        if label != "Prompt"
    }
    sizes["Answer"] = cells("locked")
    longest = max([cells("Prompt"), *(cells(row.prompt) for row in rows)])
    hidden: list[str] = []

    def room() -> int:
        shown = sum(size + CELL_PADDING for label, size in sizes.items() if label not in hidden)
        return width - SCROLLBAR - shown - CELL_PADDING

    for label in GIVE_WAY:
        if room() >= MIN_PROMPT:
            break
        hidden.append(label)
    prompt = min(longest, max(MIN_PROMPT, room()))
    labels = [*COLUMNS, "Answer"]
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
        """Sealed answers of unlocked decks, opened once for searching, case-folded."""
        self.answer_search: Timer | None = None
        self.columns: list[tuple[str, int]] = []
        """(label, cells) of the columns shown, fitted to the width (``browse_columns``)."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browse-filters"):
            yield Input(placeholder=SEARCH_HINTS[0], id="browse-search")
            yield Select[str]([], prompt="All tags", id="browse-tag")
        yield Static(id="browse-hidden")
        yield DataTable(id="browse-table", cursor_type="row", zebra_stripes=True)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.load_rows()
        tags = sorted({tag for row in self.rows for tag in row.tags})
        self.query_one(Select).set_options((tag, tag) for tag in tags)
        table = self.query_one(DataTable)
        self.watch(table, "scroll_y", self._scrolled, init=False)
        table.focus()

    def on_answers_opened(self, _message: AnswersOpened) -> None:
        self.answer_hits = ((), frozenset())  # the newly opened answers are searched too
        self.apply_filters()

    def load_rows(self) -> None:
        self.rows = list_cards(self.context.engine, deck_id=self.deck_id)
        self.search_texts = [search_text(row) for row in self.rows]
        self.fit_columns()
        self.apply_filters()

    def on_resize(self) -> None:
        search = self.query_one("#browse-search", Input)
        room = search.content_region.width
        search.placeholder = next((h for h in SEARCH_HINTS if cells(h) <= room), "")
        if self.fit_columns():
            self.query_one(DataTable).clear()
            self.list_more()

    def fit_columns(self) -> bool:
        """Columns for the table's width: every column that fits, the prompt as wide as the
        rest allows, and a line naming any left out (at 80 columns Due was cut to
        "2026-12-" and two columns sat out of sight). True if they changed."""
        table = self.query_one(DataTable)
        columns, hidden = browse_columns(self.rows, table.size.width or self.size.width)
        if columns == self.columns:
            return False
        self.columns = columns
        table.clear(columns=True)
        for label, width in columns:
            table.add_column(label, width=width, key=label)
        note = self.query_one("#browse-hidden", Static)
        note.update(f"Hidden at this width: {', '.join(hidden)}")
        note.display = bool(hidden)
        return True

    @on(Input.Changed, "#browse-search")
    @on(Select.Changed, "#browse-tag")
    def apply_filters(self) -> None:
        words = self.search_words()
        selected = self.query_one("#browse-tag", Select).value
        tag = selected if isinstance(selected, str) else None
        searched, hits = self.answer_hits
        in_answers = hits if searched == words else frozenset()
        self.matched = [
            row
            for row, text in zip(self.rows, self.search_texts, strict=True)
            if matches(row, text, words=list(words), tag=tag, in_answer=row.pk in in_answers)
        ]
        self.query_one(DataTable).clear()
        self.list_more()
        if words and searched != words:
            # Answers are searched once typing pauses: scanning 100k answers takes ~0.3 s.
            if self.answer_search is not None:
                self.answer_search.stop()
            self.answer_search = self.set_timer(
                ANSWER_SEARCH_DELAY, partial(self.search_answers, words)
            )

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
        shown = [label for label, _ in self.columns]
        prompt_cells = dict(self.columns)["Prompt"]
        for row in self.matched[start : start + PAGE_ROWS]:
            answer = (
                "locked"
                if row.locked and not self.context.answers.is_unlocked(row.deck_id)
                else "open"
            )
            values = {label: value(row) for label, value in COLUMNS.items() if label in shown}
            table.add_row(
                *(
                    # Deck text is shown literally: a str cell would be read as markup.
                    Text(ellipsize(row.prompt, prompt_cells))
                    if label == "Prompt"
                    else values.get(label, answer)
                    for label in shown
                ),
                key=str(row.pk),
            )
        listed = table.row_count
        more = f" · {listed} listed, more as you scroll" if listed < len(self.matched) else ""
        self.sub_title = f"{len(self.matched)} of {plural(len(self.rows), 'card')}{more}"

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

    def action_focus_search(self) -> None:
        self.query_one("#browse-search", Input).focus()

    def action_back(self) -> None:
        self.dismiss()
