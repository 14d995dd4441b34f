"""Unlock dialog: type a card key, see typos at once, then one KDF off the UI thread."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from infracards.errors import InfracardsError, KeyFormatError
from infracards.seal import parse_license_key
from infracards.seal.license_key import KEY_SYMBOLS, key_symbols
from infracards.services.unlock import OpenedRelease, unlock_deck
from infracards.tui.context import AppContext
from infracards.tui.text import literal


def key_feedback(typed: str) -> tuple[str, bool]:
    """(message, valid) for a partly typed card key; wrong characters are reported at once."""
    try:
        count = len(key_symbols(typed))
    except KeyFormatError as error:
        return str(error), False
    if count < KEY_SYMBOLS:
        return f"{count} of {KEY_SYMBOLS} symbols", False
    try:
        key = parse_license_key(typed)
    except KeyFormatError as error:
        return str(error), False
    return f"✓ check symbols match (key id {key.formatted[:4]}); press enter to unlock", True


class UnlockDialog(ModalScreen[OpenedRelease | None]):
    """Returns the opened release, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel")]

    def __init__(self, context: AppContext, *, deck_id: str) -> None:
        super().__init__()
        self.context = context
        self.deck_id = deck_id

    def compose(self) -> ComposeResult:
        with Vertical(id="unlock-dialog"):
            yield Label(
                literal(f"Unlock the sealed answers of {self.deck_id}", one_line=True),
                id="unlock-title",
            )
            yield Input(placeholder="XXXXX-XXXXX-XXXXX-XXXXX-XXXXX-XXXXX", id="unlock-key")
            yield Static(
                "Type or paste your card key (卡密). Dashes and case don't matter.",
                id="unlock-status",
            )
            yield Label("enter unlock · esc cancel", id="unlock-hint")

    def show_status(self, message: str, *, state: str) -> None:
        status = self.query_one("#unlock-status", Static)
        status.update(literal(message))
        status.set_classes(state)

    @on(Input.Changed, "#unlock-key")
    def _typed(self, event: Input.Changed) -> None:
        message, valid = key_feedback(event.value)
        wrong = not valid and not message.endswith(f"of {KEY_SYMBOLS} symbols")
        self.show_status(message, state="ok" if valid else "error" if wrong and event.value else "")

    @on(Input.Submitted, "#unlock-key")
    def _submitted(self, event: Input.Submitted) -> None:
        message, valid = key_feedback(event.value)
        if not valid:
            self.show_status(message, state="error")
            return
        event.input.disabled = True
        self.show_status("Checking the key… (about half a second)", state="busy")
        self.unlock(event.value)

    @work(thread=True, exclusive=True)
    def unlock(self, typed: str) -> None:
        """The KDF takes ~0.3 s and 64 MiB: never on the UI thread."""
        try:
            opened = unlock_deck(
                self.context.engine, self.context.home, deck_id=self.deck_id, typed_key=typed
            )
        except InfracardsError as error:
            self.app.call_from_thread(self._failed, str(error))
            return
        self.app.call_from_thread(self.dismiss, opened)

    def _failed(self, message: str) -> None:
        key_input = self.query_one(Input)
        key_input.disabled = False
        key_input.focus()
        self.show_status(message, state="error")

    def action_cancel(self) -> None:
        self.dismiss(None)
