"""The progress document's reads and writes: review rows streamed for export, and the rows an
import adds and recomputes. Values stay what SQLite holds (strings and integers); the export
service shapes them into JSON and CSV."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date, datetime
from typing import Any

from sqlalchemy import insert, update
from sqlmodel import Session, col, select

from infracards.scheduler import Replayed, SM2State
from infracards.store.db import session_connection
from infracards.store.grading import to_centi
from infracards.store.models import Card, Deck, Review
from infracards.store.queries import set_card_state

# Exports read plain SQL rows: values stay the strings and integers SQLite holds, skipping
# the ORM and type decorators that tripled the time of a 1M-review export.
_REVIEWS_SQL = """
SELECT c.deck_id, c.card_id, r.reviewed_at, r.study_day, r.grade, r.drill, r.duration_ms,
       r.easiness_centi_before, r.repetitions_before, r.interval_before, r.due_before,
       r.easiness_centi_after, r.repetitions_after, r.interval_after, r.due_after
FROM review r JOIN card c ON c.id = r.card
WHERE (:deck IS NULL OR c.deck_id = :deck) AND (:since IS NULL OR r.study_day >= :since)
ORDER BY c.deck_id, r.reviewed_at, r.id
"""
_CARDS_SQL = """
SELECT c.card_id, c.prompt, c.tags, c.answer IS NULL, c.retired,
       s.easiness_centi, s.repetitions, s.interval, s.due, s.last_review_at
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
    return {
        card.card_id: card.id
        for card in session.exec(select(Card).where(Card.deck_id == deck_id))
        if card.id is not None
    }


def logged_times(session: Session, *, card_pks: Iterable[int]) -> set[tuple[int, datetime]]:
    """(card, review time) of every logged review of these cards: how an import recognises a
    review it already has."""
    query = select(Review.card, Review.reviewed_at).where(col(Review.card).in_(list(card_pks)))
    return {(row[0], row[1]) for row in session.exec(query)}


def add_reviews(session: Session, rows: list[dict[str, Any]]) -> None:
    """Insert imported reviews; their before/after states are placeholders until replayed."""
    placeholders = {
        "easiness_centi_before": 250,
        "repetitions_before": 0,
        "interval_before": 0,
        "easiness_centi_after": 250,
        "repetitions_after": 0,
        "interval_after": 0,
    }
    session.execute(insert(Review), [{**placeholders, **row} for row in rows])


def card_log(session: Session, *, card_pk: int) -> list[Review]:
    """A card's reviews, oldest first (ties in time by insertion order)."""
    log = select(Review).where(Review.card == card_pk)
    return list(session.exec(log.order_by(col(Review.reviewed_at), col(Review.id))).all())


def store_replay(
    session: Session, *, card_pk: int, log: list[Review], steps: Iterable[Replayed]
) -> SM2State:
    """Write each review's replayed before/after states, then the card's resulting state."""
    state, due = SM2State(), None
    for row, step in zip(log, steps, strict=True):
        session.execute(
            update(Review)
            .where(col(Review.id) == row.id)
            .values(
                easiness_centi_before=to_centi(step.before.easiness),
                repetitions_before=step.before.repetitions,
                interval_before=step.before.interval,
                due_before=step.due_before,
                easiness_centi_after=to_centi(step.after.easiness),
                repetitions_after=step.after.repetitions,
                interval_after=step.after.interval,
                due_after=step.due_after,
            )
        )
        state, due = step.after, step.due_after
    # As grading does: a drill is logged but leaves the state alone, its time included.
    last = max((row.reviewed_at for row in log if not row.drill), default=None)
    set_card_state(session, card_pk=card_pk, state=state, due=due, last_review_at=last)
    return state
