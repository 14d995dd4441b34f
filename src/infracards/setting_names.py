"""The study settings' names, as ``infracards config`` and the store spell them.

A module of its own, importing nothing: the command line lists the names when it builds its
parser, and ``infracards --version`` must not pay for the records (``dataclasses``, ~6 ms).
"""

PREF_KEYS = {
    "new_per_day": "new-per-day",
    "rollover_hour": "rollover-hour",
    "study_locked": "study-locked",
    "max_reviews_per_day": "max-reviews-per-day",
    "leech_threshold": "leech-threshold",
    "interview_date": "interview-date",
    "plan_reviews": "plan-reviews",
    "mock_minutes": "mock-minutes",
}
"""``StudyPrefs`` field → the setting's name."""

SETTING_NAMES = tuple(sorted(PREF_KEYS.values()))
"""What `infracards config KEY` accepts."""

WHOLE_NUMBER_LIMITS = {
    "new-per-day": (0, 9999),
    "rollover-hour": (0, 23),
    "max-reviews-per-day": (0, 99999),
    "leech-threshold": (1, 99),
    "plan-reviews": (1, 10),
    "mock-minutes": (1, 60),
}
"""The settings that take a whole number, and its range (both ends included)."""


def whole_number(key: str, text: str) -> int | None:
    """``text`` as the whole-number setting ``key`` takes: ASCII digits within its range, or
    None. ``config`` checks what is typed with it, and the records what is stored."""
    low, high = WHOLE_NUMBER_LIMITS[key]
    if not (text.isascii() and text.isdigit()):
        return None  # "²" and "٣" are digits to str.isdigit, and not to int()
    number = int(text)
    return number if low <= number <= high else None


OR_NONE = frozenset({"max-reviews-per-day", "interview-date"})
"""Settings that `none` switches off."""

EXTRA_NEW_KEY = "extra-new"
"""The setting behind "more new cards today" (not a `config` key: it lasts one day)."""
