"""SuperMemo's SM-2 (1990), exactly, up to a horizon.

EF is kept as an exact ``Decimal`` with two places: every EF change in SM-2 is a multiple of
0.01, so intervals rounded up with ``ceil`` never suffer binary-float error
(``6 * 2.3`` is ``13.799999999999999`` in floats, and an interval of 38 must not become 37).

SM-2 sets no upper bound: fourteen perfect grades in a row give an interval past the last date
a calendar can hold (9999-12-31), and the interval keeps growing without end. Here an interval
is capped at ``MAX_INTERVAL_DAYS`` (100 years, Anki's maximum interval too), and a due date
that would fall after 9999-12-31 is that day. Below the cap every interval is SM-2's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_CEILING, Decimal

MIN_EASINESS = Decimal("1.30")
PASSING_GRADE = 3
"""Grades below this restart the repetitions (the item is learned anew)."""
DRILL_UNTIL = 4
"""Step 7: cards graded below this are drilled again the same day until they reach it."""

GRADE_MEANINGS: dict[int, str] = {
    5: "perfect response",
    4: "correct after a hesitation",
    3: "correct with serious difficulty",
    2: "wrong; the correct one seemed easy",
    1: "wrong; the correct one remembered",
    0: "complete blackout",
}

MAX_INTERVAL_DAYS = 36_500
"""The longest interval given: 100 years. SM-2's next one after it would be longer still."""

_HUNDREDTH = Decimal("0.01")


def _exact(value: Decimal | float | int | str) -> Decimal:
    """Read an EF the way people write it (2.5, "1.3"), never via binary float digits."""
    if isinstance(value, Decimal) and value.as_tuple().exponent == -2:
        return value  # already in hundredths (every EF SM-2 or the store produces)
    return Decimal(str(value)).quantize(_HUNDREDTH)


@dataclass(frozen=True, slots=True)
class SM2State:
    """One item's SM-2 memory state; the defaults are a new item's."""

    easiness: Decimal = Decimal("2.50")
    """E-Factor, 1.30 or more."""
    repetitions: int = 0
    """Successful repetitions in a row (n)."""
    interval: int = 0
    """Days until the next repetition (I)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "easiness", _exact(self.easiness))
        if self.easiness < MIN_EASINESS:
            raise ValueError(f"easiness {self.easiness} is below {MIN_EASINESS}")
        if self.repetitions < 0 or self.interval < 0:
            raise ValueError("repetitions and interval cannot be negative")


def _easiness_change(quality: int) -> Decimal:
    miss = 5 - quality
    return Decimal("0.1") - miss * (Decimal("0.08") + miss * Decimal("0.02"))


_EASINESS_CHANGE = {quality: _easiness_change(quality) for quality in range(6)}
"""EF change per grade, worked out once (grades 5 to 0: +0.10, 0.00, −0.14, −0.32, −0.54, −0.80)."""


def updated_easiness(easiness: Decimal, quality: int) -> Decimal:
    """EF' = max(1.3, EF + 0.1 − (5−q)(0.08 + (5−q)·0.02))."""
    return max(MIN_EASINESS, easiness + _EASINESS_CHANGE[quality])


def review(state: SM2State, quality: int) -> SM2State:
    """Apply one graded repetition (quality 0–5); same inputs, same output."""
    if isinstance(quality, bool) or not isinstance(quality, int) or not 0 <= quality <= 5:
        raise ValueError(f"quality must be an integer from 0 to 5, got {quality!r}")
    easiness = updated_easiness(state.easiness, quality)
    if quality < PASSING_GRADE:
        return SM2State(easiness=easiness, repetitions=0, interval=1)
    if state.repetitions == 0:
        interval = 1
    elif state.repetitions == 1:
        interval = 6
    else:
        # SuperMemo's own implementation multiplies by the EF from before this update.
        product = state.interval * state.easiness
        interval = min(int(product.to_integral_value(rounding=ROUND_CEILING)), MAX_INTERVAL_DAYS)
    return SM2State(easiness=easiness, repetitions=state.repetitions + 1, interval=interval)


def due_date(day: date, interval: int) -> date:
    """The day a card graded on ``day`` comes back: ``interval`` days later, or the calendar's
    last day (9999-12-31) if that is sooner."""
    if interval >= (date.max - day).days:
        return date.max
    return day + timedelta(days=interval)


def suspends_as_leech(lapses: int, threshold: int) -> bool:
    """A card's ``lapses``-th lapse (graded below 3) makes it a leech and suspends it: at the
    threshold, and again every half threshold after (8, 12, 16, … as Anki)."""
    if threshold < 1 or lapses < threshold:
        return False
    return (lapses - threshold) % max(1, threshold // 2) == 0


def is_drill_grade(quality: int) -> bool:
    """True when step 7 brings the card back later in today's session."""
    return quality < DRILL_UNTIL


@dataclass(frozen=True, slots=True)
class Replayed:
    """One logged grade replayed: the state and due date before and after it."""

    before: SM2State
    due_before: date | None
    after: SM2State
    due_after: date | None


def replay(log: Iterable[tuple[int, bool, date]]) -> Iterator[Replayed]:
    """Replay (grade, drill, study day) entries, oldest first, from a new card's state.

    Drills leave the schedule alone; other grades move it and set due = study day + interval.
    """
    state, due = SM2State(), None
    for quality, drill, day in log:
        before, due_before = state, due
        if not drill:
            state = review(state, quality)
            due = due_date(day, state.interval)
        yield Replayed(before, due_before, state, due)
