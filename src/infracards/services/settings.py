"""Study settings and the study day: what `infracards config` changes and every screen reads."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING

from infracards.errors import InfracardsError
from infracards.records import StudyPrefs
from infracards.scheduler import study_day
from infracards.store.file import reading, writing
from infracards.store.reads import load_prefs, load_setting, save_setting

if TYPE_CHECKING:
    from infracards.store.file import Store

_WHOLE_NUMBER_LIMITS = {"new-per-day": (0, 9999), "rollover-hour": (0, 23)}
THEME_SETTING = "theme"


def local_now() -> datetime:
    """The wall clock in the learner's own time zone (study days are local days)."""
    return datetime.now().astimezone()


def study_prefs(store: Store) -> StudyPrefs:
    with reading(store) as db:
        return load_prefs(db)


def study_day_at(store: Store, *, now: datetime) -> date:
    """The study day ``now`` falls on under the learner's rollover hour."""
    return study_day(now, rollover_hour=study_prefs(store).rollover_hour)


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


def change_setting(store: Store, *, key: str, value: str) -> None:
    stored = validate_setting(key, value)
    with writing(store) as db:
        save_setting(db, key=key, value=stored)


def setting_value(text: str) -> int | bool:
    """A setting as JSON holds it: a whole number, or yes/no as true/false."""
    return text == "yes" if text in ("yes", "no") else int(text)


def current_settings(store: Store) -> dict[str, str]:
    """Every study setting as `infracards config` prints it."""
    prefs = study_prefs(store)
    return {
        "new-per-day": str(prefs.new_per_day),
        "rollover-hour": str(prefs.rollover_hour),
        "study-locked": "yes" if prefs.study_locked else "no",
    }


def saved_theme(store: Store) -> str | None:
    """The colour theme chosen in an earlier run of the app."""
    with reading(store) as db:
        return load_setting(db, key=THEME_SETTING)


def save_theme(store: Store, theme: str) -> None:
    with writing(store) as db:
        save_setting(db, key=THEME_SETTING, value=theme)
