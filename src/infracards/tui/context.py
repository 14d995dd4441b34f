"""What every screen needs from the outside world, passed in rather than imported."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.records import CardRecord, StudyPrefs
from infracards.services.answers import AnswerBook
from infracards.services.study import study_day_now
from infracards.store.db import transaction
from infracards.store.queries import load_prefs
from infracards.tui.widgets.card_view import RenderedLines, render_answer

LOCK_NOTICE = "🔒 This answer is sealed. Press k to unlock it with your card key (卡密)."


@dataclass(frozen=True, slots=True)
class AppContext:
    """The store, the opened answers, the data folder and the clock (fixed in tests)."""

    engine: Engine
    answers: AnswerBook
    home: Path
    clock: Callable[[], datetime]

    def prefs(self) -> StudyPrefs:
        with transaction(self.engine) as session:
            return load_prefs(session)

    def today(self) -> date:
        with transaction(self.engine) as session:
            return study_day_now(session, now=self.clock())


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
    rendered = render_answer(answer, width=width) if answer is not None else None
    return PreparedAnswer(card.pk, width, rendered, LOCK_NOTICE)
