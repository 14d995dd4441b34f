"""The progress document's reads and writes: review rows streamed for export, and the rows an
import adds and recomputes. Values stay what SQLite holds (strings and integers); the export
service shapes them into JSON and CSV."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import date, datetime
from functools import lru_cache
from itertools import groupby
from operator import itemgetter
from typing import Any, TypeAlias

from sqlalchemy import insert
from sqlmodel import Session, col, select

from infracards.scheduler import Replayed
from infracards.store.db import session_connection
from infracards.store.grading import SET_STATE_SQL, db_boolean, db_date, db_datetime, to_centi
from infracards.store.models import Deck, MockQuestion, MockSession, Review

ImportedReview: TypeAlias = tuple[
    int, str, date, int, bool, int, int | None, int | None, str | None, str | None
]
"""(card, stored review time, study day, grade, drill, duration in ms, key points listed,
points said as a bit mask, fingerprint of the list, practice kind) of a review to add."""
Logged: TypeAlias = tuple[int, int, bool, date, str]
"""(review id, grade, drill, study day, stored review time) of a logged review."""

# Exports read plain SQL rows: values stay the strings and integers SQLite holds, skipping
# the ORM and type decorators that tripled the time of a 1M-review export.
_REVIEWS_SQL = """
SELECT c.deck_id, c.card_id, r.reviewed_at, r.study_day, r.grade, r.drill, r.duration_ms,
       r.easiness_centi_before, r.repetitions_before, r.interval_before, r.due_before,
       r.easiness_centi_after, r.repetitions_after, r.interval_after, r.due_after,
       r.points, r.recalled, r.points_fp, r.practice
FROM review r JOIN card c ON c.id = r.card
WHERE (:deck IS NULL OR c.deck_id = :deck) AND (:since IS NULL OR r.study_day >= :since)
ORDER BY c.deck_id, r.reviewed_at, r.id
"""
_CARD_KEYS_SQL = "SELECT card_id, id FROM card WHERE deck_id = ?"
_LOGGED_TIMES_SQL = (
    "SELECT r.card, r.reviewed_at FROM card c JOIN review r ON r.card = c.id WHERE c.deck_id = ?"
)
_ADD_REVIEW_SQL = (
    "INSERT INTO review (card, reviewed_at, study_day, grade, drill, duration_ms,"
    " points, recalled, points_fp, practice,"
    " easiness_centi_before, repetitions_before, interval_before,"
    " easiness_centi_after, repetitions_after, interval_after)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 250, 0, 0, 250, 0, 0)"
)
# CROSS JOIN: the list drives, each card's reviews come from the per-card index, then sorted.
_CARD_LOGS_SQL = """
SELECT r.card, r.id, r.grade, r.drill, r.study_day, r.reviewed_at
FROM json_each(?) AS j CROSS JOIN review AS r ON r.card = j.value
ORDER BY j.key, r.reviewed_at, r.id
"""
_SET_REPLAYED_SQL = (
    "UPDATE review SET easiness_centi_before = ?, repetitions_before = ?, interval_before = ?,"
    " due_before = ?, easiness_centi_after = ?, repetitions_after = ?, interval_after = ?,"
    " due_after = ? WHERE id = ?"
)
_CARDS_SQL = """
SELECT c.card_id, c.prompt, c.tags, c.answer IS NULL, c.retired,
       s.easiness_centi, s.repetitions, s.interval, s.due, s.last_review_at, s.suspended, s.leech
FROM card c JOIN cardstate s ON s.card = c.id
WHERE c.deck_id = :deck ORDER BY c.position, c.id
"""


def review_rows(session: Session, *, deck_id: str | None, since: date | None) -> Iterator[Any]:
    """Review rows in deck and time order, streamed from the sqlite3 cursor itself (memory
    stays flat; SQLAlchemy's row objects cost ~0.25 s more per million)."""
    params = {"deck": deck_id, "since": since.isoformat() if since else None}
    yield from session_connection(session).execute(_REVIEWS_SQL, params)


def card_rows(session: Session, *, deck_id: str) -> Iterator[Any]:
    """Each card of a deck with its state, in deck order."""
    yield from session.connection().exec_driver_sql(_CARDS_SQL, {"deck": deck_id})


_MOCKS_SQL = """
SELECT m.id, m.started_at, m.ended_at, m.study_day, m.questions, m.seconds_per_question, m.topic
FROM mocksession m WHERE m.deck_id = :deck ORDER BY m.started_at, m.id
"""
_MOCK_QUESTIONS_SQL = """
SELECT q.mock, c.card_id, q.position, q.seconds_used, q.timed_out, q.points, q.recalled,
       q.points_fp, q.notes, r.reviewed_at
FROM mockquestion q JOIN mocksession m ON m.id = q.mock JOIN card c ON c.id = q.card
LEFT JOIN review r ON r.id = q.review
WHERE m.deck_id = :deck ORDER BY q.mock, q.position
"""


def mock_rows(session: Session, *, deck_id: str) -> tuple[list[Any], list[Any]]:
    """A deck's mock interviews and their questions, as SQLite holds them (few rows)."""
    connection = session.connection()
    params = {"deck": deck_id}
    return (
        list(connection.exec_driver_sql(_MOCKS_SQL, params)),
        list(connection.exec_driver_sql(_MOCK_QUESTIONS_SQL, params)),
    )


def mock_starts(session: Session, *, deck_id: str) -> set[datetime]:
    """When each of a deck's mock interviews started: how an import recognises one it has."""
    query = select(MockSession.started_at).where(MockSession.deck_id == deck_id)
    return set(session.exec(query))


def add_mock(session: Session, *, mock: dict[str, Any], questions: list[dict[str, Any]]) -> None:
    """Insert an imported mock interview and its questions."""
    inserted = session.connection().execute(insert(MockSession).values(mock)).inserted_primary_key
    assert inserted is not None
    if questions:
        session.execute(insert(MockQuestion), [{**q, "mock": inserted[0]} for q in questions])


def review_ids(session: Session, *, card_pk: int) -> dict[datetime, int]:
    """Review time → id for one card (to link a counted mock question to its review)."""
    query = select(Review.reviewed_at, Review.id).where(Review.card == card_pk)
    return {moment: review_id for moment, review_id in session.exec(query) if review_id}


def deck_headers(session: Session, *, deck_id: str | None) -> list[tuple[str, str, int]]:
    """(id, title, version) of every deck, or of one; empty when that one is not loaded."""
    query = select(Deck.id, Deck.title, Deck.version).order_by(col(Deck.id))
    if deck_id is not None:
        query = query.where(Deck.id == deck_id)
    return [(row[0], row[1], row[2]) for row in session.exec(query)]


def is_loaded(session: Session, *, deck_id: str) -> bool:
    return session.get(Deck, deck_id) is not None


def card_keys(session: Session, *, deck_id: str) -> dict[str, int]:
    """Card id → primary key for every card of a deck, retired ones included."""
    rows = session.connection().exec_driver_sql(_CARD_KEYS_SQL, (deck_id,))
    return {card_id: pk for card_id, pk in rows}


def stored_time(moment: datetime) -> str:
    """A review time as the store holds it (UTC text): how an import recognises a review."""
    return str(db_datetime(moment))


def logged_times(session: Session, *, deck_id: str) -> set[tuple[int, str]]:
    """(card, stored review time) of every logged review of a deck's cards."""
    return set(session_connection(session).execute(_LOGGED_TIMES_SQL, (deck_id,)))


def add_reviews(session: Session, rows: Iterable[ImportedReview]) -> None:
    """Insert imported reviews; their before/after states are placeholders until replayed."""
    session_connection(session).executemany(
        _ADD_REVIEW_SQL,
        (
            (pk, at, db_date(day), grade, db_boolean(drill), *rest)
            for pk, at, day, grade, drill, *rest in rows
        ),
    )


def card_logs(session: Session, *, card_pks: Iterable[int]) -> Iterator[tuple[int, list[Logged]]]:
    """Each card's log, oldest first (ties in time by insertion order): (card, its reviews as
    (review id, grade, drill, study day, stored time)). One query for any number of cards."""
    rows = session_connection(session).execute(_CARD_LOGS_SQL, (json.dumps(sorted(card_pks)),))
    for card, log in groupby(rows, key=itemgetter(0)):
        yield (
            card,
            [
                (review_id, grade, bool(drill), date.fromisoformat(day), at)
                for _, review_id, grade, drill, day, at in log
            ],
        )


@lru_cache(maxsize=4096)
def _day(day: date | None) -> Any:
    """A date as stored; a long log repeats few of them (the processor costs ~3 µs a call)."""
    return db_date(day)


def store_replays(
    session: Session, replays: Iterable[tuple[int, list[Logged], list[Replayed]]]
) -> None:
    """Write each replayed review's before/after states, then each card's resulting state."""
    connection = session_connection(session)
    reviews: list[tuple[object, ...]] = []
    states: list[tuple[object, ...]] = []
    for card, log, steps in replays:
        for (review_id, *_), step in zip(log, steps, strict=True):
            reviews.append(
                (
                    to_centi(step.before.easiness),
                    step.before.repetitions,
                    step.before.interval,
                    _day(step.due_before),
                    to_centi(step.after.easiness),
                    step.after.repetitions,
                    step.after.interval,
                    _day(step.due_after),
                    review_id,
                )
            )
        last = steps[-1]
        states.append(
            (
                to_centi(last.after.easiness),
                last.after.repetitions,
                last.after.interval,
                db_date(last.due_after),
                # As grading does: a drill or a practice review leaves the state, its time
                # included, alone.
                next((at for _, _, drill, _, at in reversed(log) if not drill), None),
                card,
            )
        )
    connection.executemany(_SET_REPLAYED_SQL, reviews)
    connection.executemany(SET_STATE_SQL, states)
