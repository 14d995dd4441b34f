"""Mock interviews on a real store: the draw rule, the clock (a fake time source), what a mock
session logs, and that it changes no SM-2 state unless a question is counted as a review."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from contextlib import closing
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.paths import database_path
from infracards.services.mock import (
    MockInterview,
    add_missed_to_today,
    draw_questions,
    draw_weight,
)
from infracards.services.mock_history import mock_reports
from infracards.store.db import transaction
from infracards.store.practice import DrawCandidate
from infracards.store.queries import set_suspended
from infracards.store.reads import find_card, load_card
from tests.conftest import grade_by_id


class FakeTimer:
    """Monotonic seconds that move only when the test says so (no sleeps)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def candidate(
    card_id: str,
    topic: str,
    *,
    ef: int = 250,
    interval: int = 0,
    due: date | None = None,
    best: int | None = None,
    checked: int = 0,
    missed: int = 0,
) -> DrawCandidate:
    return DrawCandidate(
        card_pk=int(card_id[1:]),
        card_id=card_id,
        topic=topic,
        easiness_centi=ef,
        interval=interval,
        due=due,
        best_grade=best,
        points_checked=checked,
        points_missed=missed,
    )


def test_the_draw_weight_adds_up_the_readme_terms(today: date) -> None:
    strong = candidate("q1", "a", ef=260, interval=10, due=today + timedelta(days=3), best=5)
    assert draw_weight(strong, today) == 1.0
    assert draw_weight(candidate("q2", "a"), today) == 4.0  # never answered: +3
    overdue = candidate("q3", "a", interval=4, due=today - timedelta(days=2), best=4)
    assert draw_weight(overdue, today) == 2.0  # half its interval overdue: +2 × 0.5
    weak = candidate("q4", "a", ef=130, interval=1, due=today, best=3, checked=10, missed=5)
    assert draw_weight(weak, today) == pytest.approx(1 + 3 + 2 + 1.5)


def test_questions_mix_topics_and_never_repeat_the_last_topic_while_another_is_left(
    today: date,
) -> None:
    cards = [candidate(f"q{n}", topic) for n, topic in enumerate("aaaaabbbc", start=1)]
    for seed in range(50):
        drawn = draw_questions(cards, 3, today=today, rng=random.Random(seed))
        assert sorted(card.topic for card in drawn) == ["a", "b", "c"]
        drawn = draw_questions(cards, 7, today=today, rng=random.Random(seed))
        topics = [card.topic for card in drawn]
        assert len({card.card_id for card in drawn}) == 7
        assert Counter(topics[:3]) == Counter("abc")  # every topic once before any twice
        assert Counter(topics) == Counter("aaabbbc")
        assert all(topics[i] != topics[i - 1] for i in range(1, 7))
        everything = draw_questions(cards, 20, today=today, rng=random.Random(seed))
        assert len(everything) == 9  # never more than there are cards
        assert [c.topic for c in everything][-2:] == ["a", "a"]  # only "a" is left at the end


def test_weak_overdue_and_never_well_answered_cards_are_asked_more_often(today: date) -> None:
    strong = candidate("q1", "a", ef=270, interval=30, due=today + timedelta(days=9), best=5)
    weak = candidate("q2", "a", ef=140, interval=6, due=today - timedelta(days=6), best=3)
    rng = random.Random(7)
    asked = Counter(
        draw_questions([strong, weak], 1, today=today, rng=rng)[0].card_id for _ in range(2000)
    )
    share = asked["q2"] / 2000
    expected = draw_weight(weak, today) / (draw_weight(weak, today) + draw_weight(strong, today))
    assert expected == pytest.approx(7.83 / 8.83, abs=0.01)
    assert share == pytest.approx(expected, abs=0.03)


def interview(engine: Engine, now: datetime, timer: FakeTimer, **options: object) -> MockInterview:
    mock = MockInterview(
        engine, deck_id="sample", clock=lambda: now, timer=timer, rng=random.Random(3), **options
    )
    mock.start()
    return mock


def rows(home: Path, sql: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(database_path(home))) as db:
        return db.execute(sql).fetchall()


def test_a_mock_session_is_logged_with_its_clock_and_changes_no_schedule(
    engine: Engine, home: Path, now: datetime
) -> None:
    states_before = rows(home, "SELECT * FROM cardstate ORDER BY card")
    timer = FakeTimer()
    mock = interview(engine, now, timer, questions=4, minutes=2)
    assert mock.total == 4 and mock.seconds_per_question == 120
    assert rows(home, "SELECT count(*) FROM mocksession") == [(0,)]  # opening writes nothing
    order = [mock.card.card_id if mock.card else ""]
    timer.now += 119.5
    assert not mock.tick() and mock.remaining_seconds == pytest.approx(0.5)
    timer.now += 1
    assert mock.tick() and mock.revealed and mock.timed_out  # time is up: the answer shows
    timer.now += 30
    assert mock.remaining_seconds == 0 and mock.seconds_used == 120  # the clock stopped
    mock.notes = "ring all-reduce: 2(N-1)/N"
    while mock.card is not None:
        if mock.check is not None:
            mock.toggle_point(0)
        mock.next()
        if mock.card is not None:
            order.append(mock.card.card_id)
            timer.now += 45
            mock.reveal()  # on a key, before the time is up
    report = mock.finish()
    assert sorted(order) == ["q01", "q02", "q03", "q04"]
    assert [(q.seconds_used, q.timed_out) for q in report.questions] == [
        (120, True),
        (45, False),
        (45, False),
        (45, False),
    ]
    assert report.questions[0].notes == "ring all-reduce: 2(N-1)/N"
    [q01] = [q for q in report.questions if q.card_id == "q01"]
    assert q01.recalled is not None and (q01.recalled.covered, q01.recalled.points) == (1, 2)
    # q01 is the only card with key points here (q03 is sealed, question-only): score 1 of 2.
    assert report.score == 0.5 and report.missed == ("q01",)
    assert report.weakest_topics == (("communication", 0.5),)
    assert rows(home, "SELECT count(*) FROM mockquestion") == [(4,)]
    assert rows(home, "SELECT count(*) FROM review") == [(0,)]
    assert rows(home, "SELECT * FROM cardstate ORDER BY card") == states_before
    [stored] = mock_reports(engine, deck_id="sample")
    assert stored.score == 0.5 and stored.questions == report.questions
    assert stored.started_at == report.started_at == now  # read back as the UTC time it was
    assert rows(
        home, "SELECT questions, seconds_per_question, ended_at IS NOT NULL FROM mocksession"
    ) == [(4, 120, 1)]


def test_a_question_counted_as_a_review_is_a_normal_graded_review(
    engine: Engine, home: Path, now: datetime, today: date
) -> None:
    timer = FakeTimer()
    mock = interview(engine, now, timer, questions=1, topic="communication")
    assert mock.card is not None and mock.card.card_id == "q01"
    timer.now += 50
    mock.reveal()
    mock.toggle_point(0)
    mock.toggle_point(1)
    graded = mock.count_as_review(5)
    with pytest.raises(InfracardsError, match="counted as a review already"):
        mock.count_as_review(4)
    mock.next()
    report = mock.finish()
    assert report.questions[0].counted and report.score == 1.0 and report.missed == ()
    assert rows(
        home, "SELECT grade, drill, practice, duration_ms, points, recalled FROM review"
    ) == [(5, 0, None, 50_000, 2, 0b11)]
    assert graded.due == today + timedelta(days=1) and graded.after.repetitions == 1
    assert rows(home, "SELECT review IS NOT NULL FROM mockquestion") == [(1,)]


def test_suspended_cards_are_never_asked_and_a_topic_limits_the_draw(
    engine: Engine, now: datetime
) -> None:
    with transaction(engine, write=True) as session:
        [q02] = find_card(session, card_id="q02", deck_id="sample")
        set_suspended(session, card_pks=[q02.pk], suspended=True)
    for seed in range(20):
        mock = MockInterview(
            engine, deck_id="sample", clock=lambda: now, rng=random.Random(seed), questions=4
        )
        mock.start()
        assert "q02" not in {card_id for (card_id,) in mock_card_ids(engine, mock)}
    with pytest.raises(InfracardsError, match="no card to ask on topic 'nonsense'"):
        MockInterview(engine, deck_id="sample", clock=lambda: now, topic="nonsense").start()


def mock_card_ids(engine: Engine, mock: MockInterview) -> list[tuple[str]]:
    with transaction(engine) as session:
        return [(load_card(session, pk=pk).card_id,) for pk in mock.cards]


def test_missed_cards_go_into_todays_review_with_their_schedule(
    engine: Engine, home: Path, now: datetime, today: date
) -> None:
    grade_by_id(engine, "q01", 5, now=now - timedelta(days=2), today=today - timedelta(days=2))
    mock = interview(engine, now, FakeTimer(), questions=1, topic="communication")
    mock.reveal()
    mock.next()  # nothing ticked: both points missed
    report = mock.finish()
    assert report.missed == ("q01",)
    assert add_missed_to_today(engine, report=report, now=now) == 0  # overdue: in it already
    grade_by_id(engine, "q01", 5, now=now, today=today)
    state = "SELECT easiness_centi, repetitions, interval, due FROM cardstate WHERE card = 1"
    assert rows(home, state) == [(270, 2, 6, "2025-01-12")]
    assert add_missed_to_today(engine, report=report, now=now) == 1
    assert rows(home, state) == [(270, 2, 6, "2025-01-06")]  # due today, schedule kept


def test_the_question_count_and_minutes_are_bounded(engine: Engine, now: datetime) -> None:
    with pytest.raises(InfracardsError, match="1 to 50 questions"):
        MockInterview(engine, deck_id="sample", clock=lambda: now, questions=0)
    with pytest.raises(InfracardsError, match="1 to 60 minutes"):
        MockInterview(engine, deck_id="sample", clock=lambda: now, minutes=90)
