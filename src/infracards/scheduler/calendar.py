"""Study days: a day of study ends at a chosen local hour, not at midnight."""

from __future__ import annotations

from datetime import date, datetime, timedelta


def study_day(moment: datetime, *, rollover_hour: int) -> date:
    """The study day ``moment`` (local time) belongs to; 03:59 still counts as yesterday at 4."""
    return (moment - timedelta(hours=rollover_hour)).date()
