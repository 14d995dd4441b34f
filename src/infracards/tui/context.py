"""What every screen needs from the outside world, passed in rather than imported."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from infracards.errors import InfracardsError
from infracards.records import CardRecord
from infracards.services.answers import AnswerBook
from infracards.tui.widgets.card_view import RenderedLines, render_answer

if TYPE_CHECKING:
    from sqlalchemy import Engine

LOCK_NOTICE = "🔒 This answer is sealed. Press k to unlock it with your card key (卡密)."


@dataclass(frozen=True, slots=True)
class AppContext:
    """The store, the opened answers, the data folder and the clocks (fixed in tests)."""

    engine: Engine
    answers: AnswerBook
    home: Path
    clock: Callable[[], datetime]
    timer: Callable[[], float] = time.monotonic
    """Monotonic seconds for countdowns (a mock interview's clock; a fake one in tests)."""


@dataclass(frozen=True, slots=True)
class PreparedAnswer:
    """A card's answer decrypted and laid out for one width, or the notice shown instead."""

    card_pk: int
    width: int
    rendered: RenderedLines | None
    notice: str

    def fits(self, card: CardRecord, width: int) -> bool:
        return self.card_pk == card.pk and self.width == width


def prepare(context: AppContext, card: CardRecord, *, width: int) -> PreparedAnswer:
    """Open (sealed answers: in memory only) and lay out an answer; safe in a worker thread."""
    try:
        answer = context.answers.answer_for(card)
    except InfracardsError as error:
        return PreparedAnswer(card.pk, width, None, f"⚠ {error}")
    if answer is None:
        return PreparedAnswer(card.pk, width, None, LOCK_NOTICE)
    rendered = render_answer(answer, width=width)
    return PreparedAnswer(card.pk, width, rendered, LOCK_NOTICE)
