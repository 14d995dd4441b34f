"""Pure SM-2 scheduling and study-queue rules: no I/O, no clock, no database."""

from infracards.scheduler.calendar import study_day
from infracards.scheduler.queue import StudyQueue
from infracards.scheduler.sm2 import (
    GRADE_MEANINGS,
    MAX_INTERVAL_DAYS,
    Replayed,
    SM2State,
    due_date,
    is_drill_grade,
    replay,
    review,
)

__all__ = [
    "GRADE_MEANINGS",
    "MAX_INTERVAL_DAYS",
    "Replayed",
    "SM2State",
    "StudyQueue",
    "due_date",
    "is_drill_grade",
    "replay",
    "review",
    "study_day",
]
