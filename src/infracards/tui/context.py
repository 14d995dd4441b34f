"""What every screen needs from the outside world, passed in rather than imported."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from sqlalchemy import Engine

from infracards.answers import AnswerBook
from infracards.store.db import transaction
from infracards.store.queries import StudyPrefs, load_prefs
from infracards.study import study_day_now


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
