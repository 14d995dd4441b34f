"""Study settings and the study day: what `infracards config` changes and every screen reads."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.records import EXTRA_NEW_KEY, NO_LIMIT, PREF_KEYS, StudyPrefs
from infracards.scheduler import study_day
from infracards.store.db import transaction
from infracards.store.queries import load_prefs, load_setting, save_setting

SETTING_NAMES = tuple(sorted(PREF_KEYS.values()))
"""What `infracards config KEY` accepts."""
_WHOLE_NUMBER_LIMITS = {
    "new-per-day": (0, 9999),
    "rollover-hour": (0, 23),
    "max-reviews-per-day": (0, 99999),
    "leech-threshold": (1, 99),
    "plan-reviews": (1, 10),
    "mock-minutes": (1, 60),
}
_OR_NONE = {"max-reviews-per-day", "interview-date"}
"""Settings that `none` switches off."""
THEME_SETTING = "theme"
MORE_NEW_CARDS = 10
"""How many more new cards "more new cards today" adds each time it is chosen."""


def study_prefs(engine: Engine) -> StudyPrefs:
    with transaction(engine) as session:
        return load_prefs(session)


def study_day_at(engine: Engine, *, now: datetime) -> date:
    """The study day ``now`` falls on under the learner's rollover hour."""
    return study_day(now, rollover_hour=study_prefs(engine).rollover_hour)


def validate_setting(key: str, value: str) -> str:
    """The value as stored, or an error saying what the setting takes."""
    if key in _OR_NONE and value.lower() == NO_LIMIT:
        return NO_LIMIT
    if key == "study-locked":
        if value.lower() not in {"yes", "no"}:
            raise InfracardsError("study-locked must be yes or no")
        return value.lower()
    if key == "interview-date":
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            raise InfracardsError(
                "interview-date must be a date as YYYY-MM-DD (e.g. 2026-12-20), or none"
            ) from None
    low, high = _WHOLE_NUMBER_LIMITS[key]
    if not value.isdigit() or not low <= int(value) <= high:
        extra = ", or none" if key in _OR_NONE else ""
        raise InfracardsError(f"{key} must be a whole number from {low} to {high}{extra}")
    return str(int(value))


def change_setting(engine: Engine, *, key: str, value: str) -> None:
    stored = validate_setting(key, value)
    with transaction(engine, write=True) as session:
        save_setting(session, key=key, value=stored)


def current_settings(engine: Engine) -> dict[str, str]:
    """Every study setting as `infracards config` prints it."""
    prefs = study_prefs(engine)
    cap = prefs.max_reviews_per_day
    return {
        "new-per-day": str(prefs.new_per_day),
        "rollover-hour": str(prefs.rollover_hour),
        "study-locked": "yes" if prefs.study_locked else "no",
        "max-reviews-per-day": NO_LIMIT if cap is None else str(cap),
        "leech-threshold": str(prefs.leech_threshold),
        "interview-date": prefs.interview_date.isoformat() if prefs.interview_date else NO_LIMIT,
        "plan-reviews": str(prefs.plan_reviews),
        "mock-minutes": str(prefs.mock_minutes),
    }


def add_new_cards_today(engine: Engine, *, now: datetime, count: int = MORE_NEW_CARDS) -> int:
    """ "More new cards today": raise today's new-card limit by ``count`` (for this study day
    only; tomorrow ``new-per-day`` applies again). Returns today's limit."""
    with transaction(engine, write=True) as session:
        prefs = load_prefs(session)
        today = study_day(now, rollover_hour=prefs.rollover_hour)
        extra = (
            prefs.extra_new[1] if prefs.extra_new and prefs.extra_new[0] == today else 0
        ) + count
        save_setting(session, key=EXTRA_NEW_KEY, value=f"{today.isoformat()} {extra}")
        return prefs.new_per_day + extra


def saved_theme(engine: Engine) -> str | None:
    """The colour theme chosen in an earlier run of the app."""
    with transaction(engine) as session:
        return load_setting(session, key=THEME_SETTING)


def save_theme(engine: Engine, theme: str) -> None:
    with transaction(engine, write=True) as session:
        save_setting(session, key=THEME_SETTING, value=theme)
