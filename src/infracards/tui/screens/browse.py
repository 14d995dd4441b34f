"""Browse: every card in a table, with text search and a tag filter."""

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
from infracards.records import BrowseRow, CardRecord
from infracards.store.db import transaction
from infracards.store.queries import browse_rows, cards_whose_answer_has, load_card
from infracards.terminal_text import terminal_safe
from infracards.tui.context import AppContext
from infracards.tui.messages import AnswersOpened
from infracards.tui.screens.card import CardScreen
from infracards.tui.text import cell

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


def opened_text(context: AppContext, card: CardRecord) -> str:
    """A sealed answer and its key points, case-folded for search ('' if it cannot be opened:
    the card view says why when the card is shown)."""
    try:
        answer = context.answers.answer_for(card)
    except InfracardsError:
        return ""
    return "" if answer is None else f"{answer.markdown} {' '.join(answer.key_points)}".casefold()


def search_text(row: BrowseRow) -> str:
    """What the search box looks in: card id, prompt, tags and deck id, case-folded."""
    return f"{row.card_id} {row.prompt} {' '.join(row.tags)} {row.deck_id}".casefold()


def matches(
    row: BrowseRow, text: str, *, words: list[str], tag: str | None, in_answer: bool
) -> bool:
    """Every search word is in the row's ``search_text``, or all are in its answer; the tag
    filter is exact."""
    if tag is not None and tag not in row.tags:
        return False
    return in_answer or all(word in text for word in words)


class BrowseScreen(Screen[None]):
    """All cards of all decks; enter opens one."""

    BINDINGS = [
        Binding("/", "focus_search", "Search", id="search"),
        Binding("escape", "back", "Back", id="back"),
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

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browse-filters"):
            yield Input(
                placeholder="Search id, prompt, tag, deck or answer (/)", id="browse-search"
            )
            yield Select[str]([], prompt="All tags", id="browse-tag")
        yield DataTable(id="browse-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(
            "Id", "Prompt", "Tags", "EF", "Interval", "Due", "Reviews", "Answer"
        )
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
        with transaction(self.context.engine) as session:
            self.rows = browse_rows(session, deck_id=self.deck_id)
        self.search_texts = [search_text(row) for row in self.rows]
        self.apply_filters()

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
        with transaction(self.context.engine) as session:
            hits = cards_whose_answer_has(session, words=list(words), deck_id=self.deck_id)
            for row in self.rows:
                if (
                    row.locked
                    and row.pk not in self.opened_answers
                    and self.context.answers.is_unlocked(row.deck_id)
                ):
                    self.opened_answers[row.pk] = opened_text(
                        self.context, load_card(session, pk=row.pk)
                    )
        hits |= {pk for pk, text in self.opened_answers.items() if all(w in text for w in words)}
        self.app.call_from_thread(self._answers_searched, words, frozenset(hits))

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
                key=str(row.pk),
            )
        listed = table.row_count
        more = f" · {listed} listed, more as you scroll" if listed < len(self.matched) else ""
        self.sub_title = f"{len(self.matched)} of {len(self.rows)} cards{more}"

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
