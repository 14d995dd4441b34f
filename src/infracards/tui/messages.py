"""The message the app sends down to every screen.

Unlocking has one path: a screen binds `k` to ``app.unlock`` and says which deck it would open
(``unlock_target``); the app runs the dialog and tells every screen ``AnswersOpened``.
"""

from __future__ import annotations

from textual.message import Message


class AnswersOpened(Message):
    """Sealed answers of some deck can now be shown: redraw what depends on it."""
