"""Browse: every card in a table, with text search and a tag filter."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Select

from infracards.store.db import transaction
from infracards.store.queries import BrowseRow, browse_rows
from infracards.tui.context import AppContext
from infracards.tui.messages import AnswersOpened
from infracards.tui.screens.card import CardScreen

PROMPT_CELLS = 30
TAGS_CELLS = 14


def clipped(value: str, cells: int) -> Text:
    """Literal text cut to a number of terminal cells (a CJK character takes two)."""
    text = Text(value, no_wrap=True)
    text.truncate(cells, overflow="ellipsis")
    return text


def matches(row: BrowseRow, *, search: str, tag: str | None) -> bool:
    """Case-insensitive match on card id, prompt, tags and deck id (every word must match);
    the tag filter is exact."""
    if tag is not None and tag not in row.tags:
        return False
    needle = search.strip().casefold()
    haystack = f"{row.card_id} {row.prompt} {' '.join(row.tags)} {row.deck_id}".casefold()
    return all(word in haystack for word in needle.split())


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

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browse-filters"):
            yield Input(placeholder="Search id, prompt, tag or deck (/)", id="browse-search")
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
        self.query_one(DataTable).focus()

    def on_answers_opened(self, _message: AnswersOpened) -> None:
        self.apply_filters()

    def load_rows(self) -> None:
        with transaction(self.context.engine) as session:
            self.rows = browse_rows(session, deck_id=self.deck_id)
        self.apply_filters()

    @on(Input.Changed, "#browse-search")
    @on(Select.Changed, "#browse-tag")
    def apply_filters(self) -> None:
        search = self.query_one("#browse-search", Input).value
        selected = self.query_one("#browse-tag", Select).value
        tag = selected if isinstance(selected, str) else None
        table = self.query_one(DataTable)
        table.clear()
        for row in self.rows:
            if not matches(row, search=search, tag=tag):
                continue
            answer = (
                "locked"
                if row.locked and not self.context.answers.is_unlocked(row.deck_id)
                else "open"
            )
            table.add_row(
                row.card_id,
                clipped(row.prompt, PROMPT_CELLS),
                clipped(" ".join(row.tags), TAGS_CELLS),
                f"{row.easiness:.2f}",
                f"{row.interval}d" if row.due else "new",
                row.due.isoformat() if row.due else "—",
                str(row.reviews),
                answer,
                key=str(row.pk),
            )
        self.sub_title = f"{table.row_count} of {len(self.rows)} cards"

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
