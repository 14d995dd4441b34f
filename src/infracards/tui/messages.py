"""Messages between the app and its screens.

Unlocking has one path: a screen binds `k` to ``app.unlock`` and says which deck it would open
(``unlock_target``); the app runs the dialog and tells every screen ``AnswersOpened``.
"""

from __future__ import annotations

from textual.message import Message


class AnswersOpened(Message):
    """Sealed answers of some deck can now be shown: redraw what depends on it."""


class DeckInView(Message):
    """Home shows this deck under its cursor, or (None) Home is no longer shown: the app keeps
    a mock interview of the deck in view ready (``MockReserve``)."""

    def __init__(self, deck_id: str | None) -> None:
        super().__init__()
        self.deck_id = deck_id
