"""Clocks and calendars: rollover hour, DST, a clock moved backwards, a changed time zone."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine

from infracards.records import StudyPrefs
from infracards.scheduler import study_day
from infracards.store.db import transaction
from infracards.store.queries import build_queue
from infracards.store.reads import card_history, find_card
from tests.conftest import grade_by_id

NEW_YORK = ZoneInfo("America/New_York")
SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize(
    ("local", "expected"),
    [
        (datetime(2025, 3, 9, 3, 59, tzinfo=NEW_YORK), date(2025, 3, 8)),  # DST starts at 02:00
        (datetime(2025, 3, 9, 4, 0, tzinfo=NEW_YORK), date(2025, 3, 9)),
        (
            datetime(2025, 11, 2, 1, 30, tzinfo=NEW_YORK, fold=1),
            date(2025, 11, 1),
        ),  # the repeated hour
        (datetime(2025, 11, 2, 4, 0, tzinfo=NEW_YORK), date(2025, 11, 2)),
        (datetime(2025, 1, 6, 3, 59, tzinfo=SHANGHAI), date(2025, 1, 5)),
        (datetime(2025, 1, 6, 4, 0, tzinfo=SHANGHAI), date(2025, 1, 6)),
    ],
)
def test_the_study_day_follows_the_local_wall_clock(local: datetime, expected: date) -> None:
    assert study_day(local, rollover_hour=4) == expected


@given(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)), st.integers(0, 23)
)
def test_study_days_never_run_backwards_within_a_zone(moment: datetime, rollover: int) -> None:
    earlier = study_day(moment, rollover_hour=rollover)
    assert study_day(moment + timedelta(minutes=1), rollover_hour=rollover) >= earlier
    assert study_day(moment, rollover_hour=rollover) in (
        moment.date(),
        moment.date() - timedelta(days=1),
    )


def grade(engine: Engine, card_id: str, quality: int, now: datetime) -> None:
    grade_by_id(engine, card_id, quality, now=now, today=study_day(now, rollover_hour=4))


def test_a_clock_moved_backwards_gives_no_negative_interval_and_no_card_twice(
    engine: Engine,
) -> None:
    later = datetime(2025, 1, 10, 9, 0, tzinfo=SHANGHAI)
    grade(engine, "q01", 5, later)
    earlier = later - timedelta(days=3)  # the system clock jumps back three days
    grade(engine, "q02", 4, earlier)
    with transaction(engine) as session:
        for card_id in ("q01", "q02"):
            [card] = find_card(session, card_id=card_id, deck_id="sample")
            [entry] = card_history(session, pk=card.pk)
            assert card.state.interval >= 1 and card.due is not None
            assert card.due > entry.study_day  # due is always after the day it was graded
        queue = build_queue(
            session, deck_id="sample", today=study_day(earlier, rollover_hour=4), prefs=StudyPrefs()
        )
    pending = list(queue.pending)
    assert len(pending) == len(set(pending)) and not set(pending) & set(queue.drills)
    [q01] = find_card_ids(engine, "q01")
    assert q01 not in pending  # graded "in the future": not due on the earlier day


def find_card_ids(engine: Engine, card_id: str) -> list[int]:
    with transaction(engine) as session:
        return [card.pk for card in find_card(session, card_id=card_id, deck_id="sample")]


def test_a_time_zone_change_between_sessions_keeps_the_stored_study_day(engine: Engine) -> None:
    # 02:00 in Shanghai is still "yesterday" at a 4:00 rollover; the log keeps that day even
    # when the laptop later wakes up in New York.
    shanghai = datetime(2025, 1, 6, 2, 0, tzinfo=SHANGHAI)
    grade(engine, "q01", 2, shanghai)
    new_york = shanghai.astimezone(NEW_YORK) + timedelta(hours=2)
    today = study_day(new_york, rollover_hour=4)
    with transaction(engine) as session:
        [card] = find_card(session, card_id="q01", deck_id="sample")
        [entry] = card_history(session, pk=card.pk)
        queue = build_queue(session, deck_id="sample", today=today, prefs=StudyPrefs())
    assert entry.study_day == date(2025, 1, 5) == today
    assert card.pk in queue.drills  # graded 2 "today": drilled again, not lost to the zone change
