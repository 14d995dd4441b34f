"""A card: id, topic and prompt, then the answer (or a lock notice) and its key points."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from infracards.answers import Answer


class CardView(VerticalScroll):
    """Shows one card; the screen decides what to show and when to reveal."""

    def compose(self) -> ComposeResult:
        yield Static(id="card-meta")
        yield Static(id="card-prompt")
        yield Static(id="card-lock")
        yield Markdown(id="card-answer")
        yield Static(id="card-key-points")

    def show_card(self, *, card_id: str, topic: str, prompt: str, caption: str = "") -> None:
        """Show the question side; deck text is shown literally, never as markup."""
        meta = Text.assemble((card_id, "bold"), "  ", (topic, "italic"), "  ", (caption, "dim"))
        self.query_one("#card-meta", Static).update(meta)
        self.query_one("#card-prompt", Static).update(Text(prompt))
        self.hide_answer()
        self.scroll_home(animate=False)

    def hide_answer(self) -> None:
        for widget_id in ("#card-lock", "#card-answer", "#card-key-points"):
            self.query_one(widget_id).display = False

    async def reveal(self, answer: Answer | None, *, notice: str) -> None:
        """Show the answer, or ``notice`` when there is none to show (sealed, or damaged)."""
        lock = self.query_one("#card-lock", Static)
        markdown = self.query_one("#card-answer", Markdown)
        points = self.query_one("#card-key-points", Static)
        if answer is None:
            lock.update(Text(notice))
            lock.display = True
            return
        await markdown.update(answer.markdown)
        markdown.display = True
        if answer.key_points:
            body = Text("要点\n", style="bold")
            for point in answer.key_points:
                body.append("• ")
                body.append(point)
                body.append("\n")
            points.update(body)
            points.display = True
