"""Messages screens send up to the app, and the app sends down to every screen."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class UnlockRequested(Message):
    """A screen asks for the unlock dialog of a deck."""

    deck_id: str


class AnswersOpened(Message):
    """Sealed answers of some deck can now be shown: redraw what depends on it."""
