"""SM-2 exactly as SuperMemo published it, and the study queue's same-day drills."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infracards.scheduler import MAX_INTERVAL_DAYS, SM2State, StudyQueue, due_date, review
from infracards.scheduler.calendar import study_day


def run(grades: list[int]) -> list[SM2State]:
    state, states = SM2State(), []
    for grade in grades:
        state = review(state, grade)
        states.append(state)
    return states


def test_new_state_defaults() -> None:
    state = SM2State()
    assert (state.easiness, state.repetitions, state.interval) == (Decimal("2.5"), 0, 0)
    assert state.easiness == 2.5


def test_six_grades_of_four_give_the_published_intervals() -> None:
    states = run([4] * 6)
    assert [s.interval for s in states] == [1, 6, 15, 38, 95, 238]
    assert all(s.easiness == Decimal("2.5") for s in states)


def test_failures_lower_easiness_to_the_floor_and_keep_interval_one() -> None:
    states = run([0, 0, 0])
    assert [s.easiness for s in states] == [Decimal("1.70"), Decimal("1.30"), Decimal("1.30")]
    assert [s.interval for s in states] == [1, 1, 1]
    assert [s.repetitions for s in states] == [0, 0, 0]


@pytest.mark.parametrize(
    ("grades", "intervals", "easiness"),
    [
        # EF after each grade: 5 → +0.10, 4 → 0, 3 → −0.14, 2 → −0.32; the interval uses the
        # EF from before this repetition's update: 6 × 2.7 = 16.2 → 17, 17 × 2.8 = 47.6 → 48.
        ([5, 5, 5, 5], [1, 6, 17, 48], ["2.60", "2.70", "2.80", "2.90"]),
        # 6 × 2.22 = 13.32 → 14.
        ([3, 3, 3], [1, 6, 14], ["2.36", "2.22", "2.08"]),
        # A lapse keeps the lowered EF (2.18) and restarts at 1, 6, then 6 × 2.18 = 13.08 → 14.
        ([4, 4, 2, 4, 4, 4], [1, 6, 1, 1, 6, 14], ["2.50", "2.50", "2.18", "2.18", "2.18", "2.18"]),
        # The last step is 75 × 2.32 = 174 exactly; binary floats make it 174.00000000000003 → 175.
        (
            [3, 3, 4, 5, 4, 3],
            [1, 6, 14, 32, 75, 174],
            ["2.36", "2.22", "2.22", "2.32", "2.32", "2.18"],
        ),
    ],
)
def test_worked_sequences(grades: list[int], intervals: list[int], easiness: list[str]) -> None:
    states = run(grades)
    assert [s.interval for s in states] == intervals
    assert [s.easiness for s in states] == [Decimal(e) for e in easiness]


def test_exact_ceiling_where_binary_floats_go_wrong() -> None:
    # With floats, ceil(5 * 2.2) == ceil(11.000000000000002) == 12; SM-2 wants 11.
    state = SM2State(easiness=Decimal("2.2"), repetitions=2, interval=5)
    assert review(state, 4).interval == 11


@pytest.mark.parametrize("quality", [-1, 6, 2.5, True, "4"])
def test_quality_outside_zero_to_five_is_rejected(quality: object) -> None:
    with pytest.raises(ValueError):
        review(SM2State(), quality)  # type: ignore[arg-type]


states = st.builds(
    SM2State,
    easiness=st.integers(min_value=130, max_value=400).map(lambda c: Decimal(c) / 100),
    repetitions=st.integers(min_value=0, max_value=30),
    interval=st.integers(min_value=0, max_value=10_000),
)
grades = st.integers(min_value=0, max_value=5)


@given(states, grades)
def test_easiness_never_drops_below_the_floor(state: SM2State, quality: int) -> None:
    assert review(state, quality).easiness >= Decimal("1.3")


@given(states, st.integers(min_value=0, max_value=2))
def test_a_failing_grade_restarts_repetitions(state: SM2State, quality: int) -> None:
    after = review(state, quality)
    assert (after.repetitions, after.interval) == (0, 1)


@given(st.lists(st.integers(min_value=3, max_value=5), min_size=1, max_size=25))
def test_intervals_never_shrink_across_successes(sequence: list[int]) -> None:
    intervals = [s.interval for s in run(sequence)]
    assert intervals == sorted(intervals)
    assert [s.repetitions for s in run(sequence)] == list(range(1, len(sequence) + 1))


@given(states, grades)
def test_review_is_a_pure_function(state: SM2State, quality: int) -> None:
    assert review(state, quality) == review(state, quality)


def test_queue_drills_cards_graded_below_four_until_they_reach_four() -> None:
    queue = StudyQueue(pending=(1, 2))
    shown = []
    for quality in [2, 5, 3, 4]:
        shown.append((queue.current, queue.current_is_drill))
        queue = queue.after_grade(quality)
    assert shown == [(1, False), (2, False), (1, True), (1, True)]
    assert queue.current is None and queue.remaining == 0


def test_queue_keeps_earlier_values_unchanged_for_undo() -> None:
    before = StudyQueue(pending=(7,))
    after = before.after_grade(0)
    assert before.current == 7 and not before.current_is_drill
    assert after.current == 7 and after.current_is_drill


def test_a_queue_read_in_pages_waits_for_its_next_page() -> None:
    queue = StudyQueue(pending=(1,), unloaded=2, bookmark="after 1")
    assert (queue.current, queue.remaining, queue.needs_loading) == (1, 3, False)
    queue = queue.after_grade(2)  # drilled, but after the two cards still in the store
    assert queue.needs_loading and not queue.current_is_drill and queue.remaining == 3
    with pytest.raises(LookupError):
        _ = queue.current
    queue = queue.with_page((2, 3), unloaded=0, bookmark=None)
    shown = []
    while queue.current is not None:
        shown.append((queue.current, queue.current_is_drill))
        queue = queue.after_grade(5)
    assert shown == [(2, False), (3, False), (1, True)]


def test_study_day_rolls_over_at_the_chosen_hour() -> None:
    from datetime import datetime

    assert study_day(datetime(2025, 1, 6, 3, 59), rollover_hour=4).isoformat() == "2025-01-05"
    assert study_day(datetime(2025, 1, 6, 4, 0), rollover_hour=4).isoformat() == "2025-01-06"
    assert study_day(datetime(2025, 1, 6, 0, 30), rollover_hour=0).isoformat() == "2025-01-06"


# --- the horizon: what SM-2 does where the calendar ends ---------------------------------------


def test_perfect_grades_stop_at_a_hundred_years_instead_of_passing_the_calendar() -> None:
    """Fourteen 5s in a row give SM-2 an interval past 9999-12-31; it stops at the horizon."""
    intervals = [state.interval for state in run([5] * 40)]
    assert intervals[:10] == [1, 6, 17, 48, 140, 420, 1302, 4167, 13752, MAX_INTERVAL_DAYS]
    assert set(intervals[9:]) == {MAX_INTERVAL_DAYS}


@given(st.lists(st.integers(min_value=0, max_value=5), max_size=300))
def test_no_grade_sequence_passes_the_horizon(grades: list[int]) -> None:
    for state in run(grades):
        assert 1 <= state.interval <= MAX_INTERVAL_DAYS


@given(st.dates(), st.integers(min_value=0, max_value=10**7))
def test_a_due_date_is_always_on_the_calendar(day: date, interval: int) -> None:
    due = due_date(day, interval)
    assert day <= due <= date.max
    if (date.max - day).days > interval:
        assert due == day + timedelta(days=interval)
    else:
        assert due == date.max
