"""The deck's notation-and-constants page, laid out as answers are (scrollable Markdown)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header

from infracards.records import Answer
from infracards.tui.text import notice
from infracards.tui.widgets.card_view import CardView, render_answer
from infracards.tui.widgets.footer import KeysFooter


class NotationScreen(Screen[None]):
    """Opened from any card of the deck, sealed or not: the page is free."""

    BINDINGS = [Binding("escape,q,n", "back", "Back", id="back")]

    def __init__(self, *, deck_id: str, markdown: str) -> None:
        super().__init__()
        self.deck_id = deck_id
        self.page = Answer(markdown=markdown, key_points=())

    def compose(self) -> ComposeResult:
        yield Header()
        yield CardView(id="card-view", classes="page")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.sub_title = f"Notation and constants · {notice(self.deck_id)}"
        self.call_after_refresh(self.show)  # laid out for the view's final width

    def show(self) -> None:
        view = self.query_one(CardView)
        view.reveal(render_answer(self.page, width=view.answer_width), notice="")
        view.body.focus()

    def action_back(self) -> None:
        self.dismiss()
