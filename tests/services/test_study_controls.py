"""Study controls on a real store: practice outside the schedule (final pass, cram, study ahead)
logged without moving SM-2, more new cards today, suspend and bury, leeches, the daily cap,
and undo from the end-of-session summary."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.paths import database_path
from infracards.scheduler import SM2State, review
from infracards.services import practice
from infracards.services.plan import set_interview_date
from infracards.services.review import ReviewSession
from infracards.services.settings import add_new_cards_today, change_setting
from tests.conftest import grade_by_id


def rows(home: Path, sql: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(database_path(home))) as db:
        return db.execute(sql).fetchall()


def session_at(engine: Engine, moment: datetime, **options: object) -> ReviewSession:
    session = ReviewSession(engine, deck_id="sample", clock=lambda: moment, **options)  # type: ignore[arg-type]
    session.start()
    return session


def shown(session: ReviewSession) -> str | None:
    return session.card.card_id if session.card else None


def days(now: datetime, n: int) -> datetime:
    return now + timedelta(days=n)


STATE = "SELECT easiness_centi, repetitions, interval, due, last_review_at FROM cardstate"


def test_practice_is_logged_and_the_exact_sm2_vectors_still_hold_for_normal_reviews(
    engine: Engine, home: Path, now: datetime, today: date
) -> None:
    """Normal reviews of q01 graded 5, 4, 3, 5 give SM-2's vectors exactly; final-pass and
    cram grades in between (0 and 2 among them) are logged and change nothing."""
    grades = [5, 4, 3, 5]
    expected = SM2State()
    day = 0
    set_interview_date(engine, (today + timedelta(days=60)).isoformat())
    for quality in grades:
        normal = session_at(engine, days(now, day))
        while shown(normal) not in ("q01", None):
            normal.grade(5)
        assert shown(normal) == "q01"
        graded = normal.grade(quality)
        while normal.card is not None:  # drills of this session
            normal.grade(5)
        expected = review(expected, quality)
        assert graded.after == expected
        assert graded.due == today + timedelta(days=day + expected.interval)
        before = rows(home, STATE + " WHERE card = 1")
        # Practice the same day: cram (grade 0), then later the final pass (grade 2).
        cram = practice.cram_topic(engine, deck_id="sample", topic="communication")
        extra = session_at(engine, days(now, day) + timedelta(hours=1), practice=cram)
        assert not extra.changes_schedule
        extra.grade(0)
        extra.grade(2)  # graded below 4: asked again, as a drill of the practice
        extra.grade(5)
        assert extra.card is None
        assert rows(home, STATE + " WHERE card = 1") == before
        # A practice grade below 4 is no same-day drill of the normal queue.
        again = session_at(engine, days(now, day) + timedelta(hours=2))
        assert 1 not in again.queue.drills and 1 not in again.queue.pending
        day += expected.interval
    # EF 2.5 → 2.6 → 2.6 → 2.46 → 2.56; intervals 1, 6, ⌈6 × 2.6⌉ = 16, ⌈16 × 2.46⌉ = 40.
    assert expected == SM2State(Decimal("2.56"), 4, 40)
    logged = rows(home, "SELECT practice, drill, grade FROM review WHERE card = 1 ORDER BY id")
    assert [(p, g) for p, d, g in logged if p is None and not d] == [(None, q) for q in grades]
    assert {(p, d) for p, d, _ in logged if p is not None} == {("cram", 1)}
    assert rows(
        home,
        "SELECT count(*) FROM review WHERE practice IS NOT NULL AND ("
        "easiness_centi_before, repetitions_before, interval_before, due_before) IS NOT ("
        "easiness_centi_after, repetitions_after, interval_after, due_after)",
    ) == [(0,)]


def test_the_final_pass_opens_in_the_last_days_and_holds_cards_not_reviewed_recently(
    engine: Engine, home: Path, now: datetime, today: date
) -> None:
    grade_by_id(engine, "q01", 5, now=now, today=today)
    grade_by_id(engine, "q02", 4, now=days(now, -5), today=today - timedelta(days=5))
    set_interview_date(engine, (today + timedelta(days=4)).isoformat())
    assert practice.practice_options(engine, deck_id="sample", now=now).final_pass is None
    set_interview_date(engine, (today + timedelta(days=3)).isoformat())
    assert practice.practice_options(engine, deck_id="sample", now=now).final_pass == 3
    final = practice.final_pass(engine, deck_id="sample", now=now)
    assert final.kind == "final"
    names = {1: "q01", 2: "q02", 3: "q03", 4: "q04"}
    assert [names[pk] for pk in final.cards] == ["q02", "q03", "q04"]  # q01 was just reviewed
    before = rows(home, STATE)
    run = session_at(engine, now, practice=final)
    for _ in range(3):
        run.grade(4)
    assert run.card is None and rows(home, STATE) == before
    assert rows(home, "SELECT count(*) FROM review WHERE practice = 'final' AND drill") == [(3,)]


def test_study_ahead_takes_the_cards_due_in_the_next_days_soonest_first(
    engine: Engine, now: datetime, today: date
) -> None:
    grade_by_id(engine, "q01", 5, now=now, today=today)  # due tomorrow
    grade_by_id(engine, "q02", 5, now=days(now, -1), today=today - timedelta(days=1))  # due today
    grade_by_id(engine, "q02", 5, now=now, today=today)  # and again: due in 6 days
    ahead = practice.study_ahead(engine, deck_id="sample", now=now)
    assert (ahead.kind, ahead.cards) == ("ahead", (1, 2))
    with pytest.raises(InfracardsError, match="no card to practise"):
        practice.study_ahead(engine, deck_id="sample", now=days(now, 30))


def test_more_new_cards_today_raises_todays_limit_only(engine: Engine, now: datetime) -> None:
    change_setting(engine, key="new-per-day", value="1")
    first = session_at(engine, now)
    assert first.progress.remaining == 1
    first.grade(5)
    assert session_at(engine, now).card is None
    assert add_new_cards_today(engine, now=now, count=2) == 3
    more = session_at(engine, now)
    assert more.progress.remaining == 2 and more.practice is None  # normal first reviews
    assert session_at(engine, days(now, 1)).progress.remaining == 2  # q01 due + 1 new


def test_suspend_and_bury_take_the_card_out_and_undo_brings_it_back(
    engine: Engine, now: datetime
) -> None:
    session = session_at(engine, now)
    assert shown(session) == "q01"
    session.suspend()
    assert shown(session) == "q02" and session.progress.remaining == 3
    session.bury()
    assert shown(session) == "q03"
    assert session_at(engine, now).progress.remaining == 2  # q03, q04 today
    assert session_at(engine, days(now, 1)).progress.remaining == 3  # q02 is back tomorrow
    session.undo()  # the bury
    assert shown(session) == "q02"
    session.undo()  # the suspension
    assert shown(session) == "q01" and session_at(engine, now).progress.remaining == 4


def test_a_card_that_lapses_leech_threshold_times_is_flagged_and_suspended(
    engine: Engine, home: Path, now: datetime, today: date
) -> None:
    change_setting(engine, key="leech-threshold", value="3")
    leeches = []
    for lapse in range(4):
        session = session_at(engine, days(now, lapse))
        while shown(session) not in ("q01", None):
            session.grade(5)
        graded = session.grade(1)
        leeches.append(graded.leech)
        if graded.leech:
            summary = session.summary()
            assert summary.leeches == ("q01",)
            assert rows(home, "SELECT leech, suspended FROM cardstate WHERE card = 1") == [(1, 1)]
            assert shown(session) != "q01"  # not drilled again: it is suspended
            if lapse == 2:
                session.undo()  # a wrong grade: the leech flag and the suspension go too
                assert rows(home, "SELECT leech, suspended FROM cardstate WHERE card = 1") == [
                    (0, 0)
                ]
                session.grade(1)
                with closing(sqlite3.connect(database_path(home))) as db, db:
                    db.execute("UPDATE cardstate SET suspended = 0 WHERE card = 1")  # unsuspend
    # Lapse 3 reaches the threshold; with a threshold of 3, every further lapse suspends too
    # (Anki: again each half threshold, here every 1).
    assert leeches == [False, False, True, True]


def test_the_daily_cap_limits_due_reviews_not_new_cards(
    engine: Engine, now: datetime, today: date
) -> None:
    yesterday = days(now, -1)
    for card_id in ("q01", "q02", "q04"):
        grade_by_id(engine, card_id, 5, now=yesterday, today=today - timedelta(days=1))
    change_setting(engine, key="new-per-day", value="0")
    change_setting(engine, key="max-reviews-per-day", value="2")
    session = session_at(engine, now)
    assert session.progress.remaining == 2
    session.grade(5)
    assert session_at(engine, now).progress.remaining == 1  # one of the two left today
    change_setting(engine, key="max-reviews-per-day", value="none")
    assert session_at(engine, now).progress.remaining == 2


def test_undo_from_the_summary_reopens_the_session_and_restores_the_card(
    engine: Engine, home: Path, now: datetime
) -> None:
    session = session_at(engine, now)
    for _ in range(4):
        session.grade(4)
    assert session.card is None
    session.end()
    summary = session.summary()
    assert summary.answers == 4 and summary.can_undo
    assert rows(home, "SELECT ended_at IS NOT NULL FROM session") == [(1,)]
    step = session.undo()  # the wrong last grade, from the summary
    assert step.graded is not None and step.card.card_id == "q04"
    assert shown(session) == "q04"
    assert rows(home, "SELECT count(*) FROM review") == [(3,)]
    assert rows(home, "SELECT due FROM cardstate WHERE card = 4") == [(None,)]
    assert rows(home, "SELECT ended_at IS NULL FROM session") == [(1,)]
    session.grade(5)
    session.end()
    assert session.summary().grades == {4: 3, 5: 1}
