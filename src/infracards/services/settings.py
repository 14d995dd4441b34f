"""Study settings and the study day: what `infracards config` changes and every screen reads."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING

from infracards.errors import InfracardsError
from infracards.records import NO_LIMIT, StudyPrefs
from infracards.scheduler import study_day
from infracards.setting_names import EXTRA_NEW_KEY, OR_NONE, WHOLE_NUMBER_LIMITS, whole_number
from infracards.store.file import reading, writing
from infracards.store.reads import load_prefs, load_setting, save_setting

if TYPE_CHECKING:
    from infracards.store.file import Store

THEME_SETTING = "theme"
MORE_NEW_CARDS = 10
"""How many more new cards "more new cards today" adds each time it is chosen."""


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
    if key in OR_NONE and value.lower() == NO_LIMIT:
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
    number = whole_number(key, value)
    if number is None:
        low, high = WHOLE_NUMBER_LIMITS[key]
        extra = ", or none" if key in OR_NONE else ""
        raise InfracardsError(f"{key} must be a whole number from {low} to {high}{extra}")
    return str(number)


def change_setting(store: Store, *, key: str, value: str) -> None:
    stored = validate_setting(key, value)
    with writing(store) as db:
        save_setting(db, key=key, value=stored)


def setting_value(text: str) -> int | bool | str | None:
    """A setting as JSON holds it: a whole number, yes/no as true/false, none as null, and a
    date as its ISO text."""
    if text in ("yes", "no"):
        return text == "yes"
    if text == NO_LIMIT:
        return None
    return int(text) if text.isdigit() else text


def current_settings(store: Store) -> dict[str, str]:
    """Every study setting as `infracards config` prints it."""
    return settings_text(study_prefs(store))


def settings_text(prefs: StudyPrefs) -> dict[str, str]:
    """Every study setting of ``prefs`` as `infracards config` prints (and stores) it."""
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


def add_new_cards_today(store: Store, *, now: datetime, count: int = MORE_NEW_CARDS) -> int:
    """ "More new cards today": raise today's new-card limit by ``count`` (for this study day
    only; tomorrow ``new-per-day`` applies again). Returns today's limit."""
    with writing(store) as db:
        prefs = load_prefs(db)
        today = study_day(now, rollover_hour=prefs.rollover_hour)
        extra = (
            prefs.extra_new[1] if prefs.extra_new and prefs.extra_new[0] == today else 0
        ) + count
        save_setting(db, key=EXTRA_NEW_KEY, value=f"{today.isoformat()} {extra}")
        return prefs.new_per_day + extra


def saved_theme(store: Store) -> str | None:
    """The colour theme chosen in an earlier run of the app."""
    with reading(store) as db:
        return load_setting(db, key=THEME_SETTING)


def save_theme(store: Store, theme: str) -> None:
    with writing(store) as db:
        save_setting(db, key=THEME_SETTING, value=theme)
