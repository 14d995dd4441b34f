"""What every screen needs from the outside world, passed in rather than imported."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from sqlalchemy import Engine

from infracards.answers import Answer, AnswerBook
from infracards.errors import InfracardsError
from infracards.store.db import transaction
from infracards.store.queries import CardRecord, StudyPrefs, load_prefs
from infracards.study import study_day_now

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

    def open_answer(self, card: CardRecord) -> tuple[Answer | None, str]:
        """The answer to show, or None and the notice to show instead (locked, or damaged)."""
        try:
            return self.answers.answer_for(card), LOCK_NOTICE
        except InfracardsError as error:
            return None, f"⚠ {error}"

    def today(self) -> date:
        with transaction(self.engine) as session:
            return study_day_now(session, now=self.clock())
