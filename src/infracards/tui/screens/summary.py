"""End of a session: what was answered, how, and when the cards come back."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static

from infracards.services.formatting import summary_text
from infracards.services.review import SessionSummary
from infracards.tui.widgets.footer import KeysFooter


class SummaryScreen(Screen[None]):
    """Shown when a session ends or is left early."""

    BINDINGS = [
        Binding("enter,escape,q", "close", "Back to decks", id="close"),
        Binding("s", "stats", "Statistics", id="stats"),
    ]

    def __init__(self, summary: SessionSummary) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            "Session complete" if not self.summary.left else "Session paused", id="summary-title"
        )
        yield Static(summary_text(self.summary), id="summary-body")
        yield KeysFooter()

    def action_close(self) -> None:
        self.dismiss()

    async def action_stats(self) -> None:
        """Close the summary and open the statistics it is part of."""
        self.dismiss()
        await self.app.run_action("app.stats")
