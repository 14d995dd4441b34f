"""End of a session: what was answered, how, and when the cards come back.

The session stays alive behind it: `u` takes back the last grade (or suspend, or bury) and goes
back to that card, and when today's queue is done `p` offers extra study.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static

from infracards.errors import InfracardsError
from infracards.services.formatting import summary_text
from infracards.services.review import SessionSummary
from infracards.tui.text import literal, notice
from infracards.tui.widgets.footer import KeysFooter

if TYPE_CHECKING:
    from infracards.services.review import ReviewSession
    from infracards.tui.context import AppContext


class SummaryScreen(Screen[None]):
    """Shown when a session ends or is left early."""

    BINDINGS = [
        Binding("enter,escape,q", "close", "Back to decks", id="close"),
        Binding("u,ctrl+z", "undo", "Undo last", id="undo"),
        Binding("p", "practice", "Extra study", id="practice"),
        Binding("s", "stats", "Statistics", id="stats"),
    ]

    def __init__(
        self,
        summary: SessionSummary,
        *,
        review: ReviewSession | None = None,
        context: AppContext | None = None,
    ) -> None:
        """``review`` and ``context``: the session, kept so that undo can go back into it."""
        super().__init__()
        self.summary = summary
        self.review = review
        self.context = context

    def compose(self) -> ComposeResult:
        yield Header()
        if self.summary.left:
            title = "Session paused"
        elif self.summary.practice:
            title = "Practice done (outside the schedule: no interval changed)"
        else:
            title = "Session complete"
        yield Static(title, id="summary-title")
        yield Static(literal(summary_text(self.summary)), id="summary-body")
        yield KeysFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo":
            return self.review is not None and self.context is not None and self.review.can_undo
        if action == "practice":
            return not self.summary.left
        return True

    def action_close(self) -> None:
        self.dismiss()

    def action_undo(self) -> None:
        """Take back the last grade and go back to that card in the same session."""
        review, context = self.review, self.context
        if review is None or context is None or not review.can_undo:
            return
        try:
            step = review.undo()
        except InfracardsError as error:
            failed = notice(f"Undo failed, the grade stays: {error}")
            self.notify(failed, severity="error", timeout=10, markup=False)
            return
        from infracards.tui.screens.review import ReviewScreen

        self.app.switch_screen(ReviewScreen(context, deck_id=review.deck_id, resume=review))
        what = f"grade {step.graded.quality}" if step.graded else step.hidden
        self.app.notify(notice(f"Undid {what} on {step.card.card_id}"), timeout=2, markup=False)

    async def action_practice(self) -> None:
        """Today's queue is done: study ahead, more new cards, cram (outside the schedule)."""
        self.dismiss()
        await self.app.run_action("app.practice")

    async def action_stats(self) -> None:
        """Close the summary and open the statistics it is part of."""
        self.dismiss()
        await self.app.run_action("app.stats")
