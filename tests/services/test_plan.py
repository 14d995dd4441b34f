"""Readiness on a hand-built history with a known answer, and the plan's arithmetic."""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.records import RecalledPoints
from infracards.services.plan import (
    PRIOR_RETENTION,
    PRIOR_REVIEWS,
    accept_plan,
    make_plan,
    readiness,
    retention_at_interval,
    reviews_span,
    set_interview_date,
)
from infracards.services.settings import change_setting, study_prefs
from tests.conftest import grade_by_id


def at(now: datetime, days: int) -> dict[str, object]:
    moment = now + timedelta(days=days)
    return {"now": moment, "today": moment.date()}


def test_the_sm2_span_of_n_reviews_graded_4() -> None:
    # A new card graded 4 each time: intervals 1, 6, 15, 38 (EF stays 2.5).
    assert [reviews_span(n) for n in (1, 2, 3, 4, 5)] == [0, 1, 7, 22, 60]


@pytest.mark.parametrize(
    ("interview_in", "new_cards", "reviews", "last_start_in", "days", "per_day"),
    [
        (20, 30, 3, 12, 13, 3),  # 30 cards over days 0…12: ⌈30/13⌉
        (20, 26, 3, 12, 13, 2),
        (2, 5, 1, 1, 2, 3),  # one review each: start by the day before the interview
        (2, 5, 2, 0, 1, 5),  # two reviews: start today, review tomorrow
        (5, 4, 3, -3, -2, None),  # too late for three reviews each
        (5, 0, 3, -3, -2, 0),  # nothing new left: nothing to plan
    ],
)
def test_the_plan_spreads_the_new_cards_over_the_days_that_still_leave_room_for_n_reviews(
    today: date,
    interview_in: int,
    new_cards: int,
    reviews: int,
    last_start_in: int,
    days: int,
    per_day: int | None,
) -> None:
    plan = make_plan(
        today=today,
        interview=today + timedelta(days=interview_in),
        new_cards=new_cards,
        reviews_each=reviews,
    )
    assert plan.last_start == today + timedelta(days=last_start_in)
    assert (plan.days, plan.new_per_day) == (days, per_day)


def test_retention_is_the_learners_own_pass_rate_shrunk_towards_the_prior() -> None:
    assert retention_at_interval(0, 0) == PRIOR_RETENTION
    assert retention_at_interval(80, 60) == pytest.approx((60 + 0.9 * 20) / 100)
    assert PRIOR_REVIEWS == 20


def test_readiness_on_a_hand_built_history(engine: Engine, now: datetime, today: date) -> None:
    """q01: one review yesterday (interval 1), 1 of its 2 key points said; q02: two reviews
    (interval 6, last one 6 days ago); q03 and q04 never studied. Interview in 10 days."""
    checked = RecalledPoints(2, frozenset({0}), "0011223344556677")
    grade_by_id(engine, "q01", 5, **at(now, -1), recalled=checked)  # type: ignore[arg-type]
    grade_by_id(engine, "q02", 4, **at(now, -7))  # type: ignore[arg-type]
    grade_by_id(engine, "q02", 4, **at(now, -6))  # type: ignore[arg-type]
    assert readiness(engine, deck_id="sample", now=now) is None  # no interview date yet
    set_interview_date(engine, (today + timedelta(days=10)).isoformat())

    found = readiness(engine, deck_id="sample", now=now)
    assert found is not None and found.days_left == 10
    # One graded review of an already-learned card (q02's second), passed: R = 19/21.
    r = (1 + 0.9 * 20) / (1 + 20)
    assert found.retention == pytest.approx(r)
    q01 = r ** (11 / 1) * 0.5  # last review 11 days before the interview, interval 1
    q02 = r ** (16 / 6)  # last review 16 days before, interval 6
    assert found.overall == pytest.approx((q01 + q02 + 0 + 0) / 4)
    assert dict((t, v) for t, v, _ in found.topics) == pytest.approx(
        {"communication": q01, "memory": q02, "pipeline": 0.0, "tensor-parallel": 0.0}
    )
    assert [card_id for card_id, _ in found.dragging] == ["q03", "q04", "q01", "q02"]
    assert found.dragging[0][1].new and found.dragging[2][1].coverage == 0.5
    assert found.new_cards == 2
    # Plan: 2 new cards, 3 reviews each before day 10: start by day 2, so 3 days: 1 a day.
    assert (found.plan.new_cards, found.plan.days, found.plan.new_per_day) == (2, 3, 1)
    assert math.isclose(sum(o.ready for _, o in found.dragging) / 4, found.overall)


def test_accepting_the_plan_sets_new_per_day(engine: Engine, now: datetime, today: date) -> None:
    with pytest.raises(InfracardsError, match="set an interview date first"):
        accept_plan(engine, deck_id="sample", now=now)
    set_interview_date(engine, (today + timedelta(days=3)).isoformat())
    with pytest.raises(InfracardsError, match="too late to review every new card 3 times"):
        accept_plan(engine, deck_id="sample", now=now)
    change_setting(engine, key="plan-reviews", value="1")
    assert accept_plan(engine, deck_id="sample", now=now) == 2  # 4 new cards over 2 days
    assert study_prefs(engine).new_per_day == 2
    assert set_interview_date(engine, "none") is None
    assert study_prefs(engine).interview_date is None
    with pytest.raises(InfracardsError, match="YYYY-MM-DD"):
        set_interview_date(engine, "20 December")


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.dates(max_value=date(30, 12, 31)), st.dates()),  # the first years, and any
    st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 12, 31)),
    st.integers(min_value=1, max_value=10),
)
def test_a_plan_exists_for_any_interview_date_the_calendar_has(
    interview: date, today: date, reviews_each: int
) -> None:
    """0001-01-01 to 9999-12-31: a date in the calendar's first years has no day ten reviews
    before it, and was an OverflowError in status, plan and Home."""
    plan = make_plan(today=today, interview=interview, new_cards=33, reviews_each=reviews_each)
    assert plan.last_start <= interview
    if interview < today:
        assert plan.new_per_day is None  # too late, and said so


@pytest.mark.parametrize("day", ["0001-01-01", "0001-02-15", "9999-12-31"])
def test_readiness_at_the_ends_of_the_calendar(
    engine: Engine, now: datetime, today: date, day: str
) -> None:
    grade_by_id(engine, "q01", 4, now=now, today=today)
    set_interview_date(engine, day)
    deck = readiness(engine, deck_id="sample", now=now)
    assert deck is not None and deck.interview == date.fromisoformat(day)
    assert (deck.plan.new_per_day is None) == (deck.interview < today)
