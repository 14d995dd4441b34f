"""The interview date, set in the app (`infracards config interview-date` does the same)."""

from __future__ import annotations

from datetime import date

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from infracards.errors import InfracardsError
from infracards.services.plan import set_interview_date
from infracards.tui.context import AppContext
from infracards.tui.text import literal

CLEARED = "none"


class InterviewDateDialog(ModalScreen[date | str | None]):
    """Returns the new date, ``"none"`` when it was cleared, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel")]

    def __init__(self, context: AppContext, *, current: date | None) -> None:
        super().__init__()
        self.context = context
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="interview-dialog", classes="dialog"):
            yield Label("Interview date", id="interview-title", classes="dialog-title")
            yield Input(
                value=self.current.isoformat() if self.current else "",
                placeholder="YYYY-MM-DD, or none to clear it",
                id="interview-date",
            )
            yield Static(
                "Home then shows the countdown, your readiness and a plan for the days left.",
                id="interview-status",
                classes="dialog-status",
            )
            yield Label("enter save · esc cancel", classes="dialog-hint")

    @on(Input.Submitted, "#interview-date")
    def _save(self, event: Input.Submitted) -> None:
        try:
            saved = set_interview_date(self.context.engine, event.value or CLEARED)
        except InfracardsError as error:
            status = self.query_one("#interview-status", Static)
            status.update(literal(str(error)))
            status.set_classes("dialog-status error")
            return
        self.dismiss(saved if saved is not None else CLEARED)

    def action_cancel(self) -> None:
        self.dismiss(None)
