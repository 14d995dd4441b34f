"""Pure SM-2 scheduling and study-queue rules: no I/O, no clock, no database."""

from infracards.scheduler.calendar import study_day
from infracards.scheduler.queue import StudyQueue
from infracards.scheduler.sm2 import GRADE_MEANINGS, SM2State, is_drill_grade, review

__all__ = ["GRADE_MEANINGS", "SM2State", "StudyQueue", "is_drill_grade", "review", "study_day"]
