"""The review use case without Textual: a ReviewSession over a real store file."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import date, datetime, timedelta

import pytest
from sqlalchemy import Engine, event
from sqlmodel import select

from infracards.errors import InfracardsError
from infracards.services import review as review_module
from infracards.services.review import ReviewSession
from infracards.store.db import transaction
from infracards.store.models import StudySession
from infracards.store.reads import card_history, find_card


class Ticks:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def started(engine: Engine, now: datetime, timer: Ticks | None = None) -> ReviewSession:
    session = ReviewSession(engine, deck_id="sample", clock=lambda: now, timer=timer or Ticks())
    session.start()
    return session


def log_of(engine: Engine, card_id: str) -> list[tuple[int, bool, int]]:
    with transaction(engine) as session:
        [card] = find_card(session, card_id=card_id, deck_id="sample")
        return [(e.grade, e.drill, e.duration_ms) for e in card_history(session, pk=card.pk)]


def test_a_session_walks_the_queue_drills_until_4_and_summarises(
    engine: Engine, now: datetime, today: date
) -> None:
    timer = Ticks()
    review = started(engine, now, timer)
    assert review.card is not None and review.card.card_id == "q01"
    assert review.progress.remaining == 4 and not review.is_drill

    timer.now += 2.5
    review.grade(5)
    assert log_of(engine, "q01") == [(5, False, 2500)]  # committed before the next card
    review.grade(2)  # q02 below 4: comes back as a drill
    review.grade(4)
    review.grade(5)
    assert review.card is not None and review.card.card_id == "q02" and review.is_drill
    assert review.progress.drills == 1
    review.grade(3)  # a drill below 4 is drilled again
    review.grade(4)
    assert review.card is None

    summary = review.summary()
    assert (summary.cards, summary.answers, summary.drills, summary.left) == (4, 6, 2, 0)
    assert summary.next_due["q01"] == today + timedelta(days=1)
    assert [(g, d) for g, d, _ in log_of(engine, "q02")] == [(2, False), (3, True), (4, True)]


def test_undo_restores_the_log_the_state_and_the_queue(engine: Engine, now: datetime) -> None:
    review = started(engine, now)
    review.grade(5)
    before = review.card
    review.grade(2)
    assert review.can_undo
    step = review.undo()
    assert step.graded.quality == 2 and step.card == before
    assert review.card == before and review.progress.drills == 0
    assert log_of(engine, "q02") == []
    with pytest.raises(InfracardsError):
        review.undo()
        review.undo()  # the first grade goes too, then there is nothing left


def test_a_refused_grade_changes_nothing_and_can_be_given_again(
    engine: Engine, now: datetime
) -> None:
    event.listen(engine, "connect", lambda db, _: db.execute("PRAGMA busy_timeout=50"))
    engine.dispose()
    review = started(engine, now)
    card = review.card
    database = engine.url.database
    assert database is not None
    with closing(sqlite3.connect(database)) as other:
        other.execute("BEGIN IMMEDIATE")  # another infracards process is writing
        with pytest.raises(InfracardsError):
            review.grade(5)
        other.rollback()
    assert review.card == card and not review.history and log_of(engine, "q01") == []
    review.grade(5)
    assert [g for g, _, _ in log_of(engine, "q01")] == [5]


def test_the_session_end_is_recorded_once(engine: Engine, now: datetime) -> None:
    review = started(engine, now)
    with transaction(engine) as session:
        assert list(session.exec(select(StudySession.ended_at))) == [None]
    review.end()
    review.end()
    with transaction(engine) as session:
        assert list(session.exec(select(StudySession.ended_at))) == [now]


def test_a_checkpoint_is_claimed_every_so_many_grades(
    engine: Engine, now: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(review_module, "CHECKPOINT_EVERY", 2)
    review = started(engine, now)
    claims = []
    for quality in (5, 5, 5, 5):
        review.grade(quality)
        claims.append(review.claim_checkpoint())
    assert claims == [False, True, False, True]


def test_an_empty_queue_has_no_card_and_nothing_to_grade(engine: Engine, now: datetime) -> None:
    review = started(engine, now)
    for _ in range(4):
        review.grade(5)
    later = ReviewSession(engine, deck_id="sample", clock=lambda: now)
    assert later.start() is None and later.intervals() == {}
    with pytest.raises(InfracardsError):
        later.grade(5)
