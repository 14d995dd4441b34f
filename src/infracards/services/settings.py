"""Study settings and the study day: what `infracards config` changes and every screen reads."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.records import PREF_KEYS, StudyPrefs
from infracards.scheduler import study_day
from infracards.store.db import transaction
from infracards.store.queries import load_prefs, load_setting, save_setting

SETTING_NAMES = tuple(sorted(PREF_KEYS.values()))
"""What `infracards config KEY` accepts."""
_WHOLE_NUMBER_LIMITS = {"new-per-day": (0, 9999), "rollover-hour": (0, 23)}
THEME_SETTING = "theme"


def study_prefs(engine: Engine) -> StudyPrefs:
    with transaction(engine) as session:
        return load_prefs(session)


def study_day_at(engine: Engine, *, now: datetime) -> date:
    """The study day ``now`` falls on under the learner's rollover hour."""
    return study_day(now, rollover_hour=study_prefs(engine).rollover_hour)


def validate_setting(key: str, value: str) -> str:
    """The value as stored, or an error saying what the setting takes."""
    if key == "study-locked":
        if value.lower() not in {"yes", "no"}:
            raise InfracardsError("study-locked must be yes or no")
        return value.lower()
    low, high = _WHOLE_NUMBER_LIMITS[key]
    if not value.isdigit() or not low <= int(value) <= high:
        raise InfracardsError(f"{key} must be a whole number from {low} to {high}")
    return str(int(value))


def change_setting(engine: Engine, *, key: str, value: str) -> None:
    stored = validate_setting(key, value)
    with transaction(engine, write=True) as session:
        save_setting(session, key=key, value=stored)


def current_settings(engine: Engine) -> dict[str, str]:
    """Every study setting as `infracards config` prints it."""
    prefs = study_prefs(engine)
    return {
        "new-per-day": str(prefs.new_per_day),
        "rollover-hour": str(prefs.rollover_hour),
        "study-locked": "yes" if prefs.study_locked else "no",
    }


def saved_theme(engine: Engine) -> str | None:
    """The colour theme chosen in an earlier run of the app."""
    with transaction(engine) as session:
        return load_setting(session, key=THEME_SETTING)


def save_theme(engine: Engine, theme: str) -> None:
    with transaction(engine, write=True) as session:
        save_setting(session, key=THEME_SETTING, value=theme)
