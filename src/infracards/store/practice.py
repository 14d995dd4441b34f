"""SQL of interview practice through the Session: mock interviews as they are written, the
mock interview's draw and extra practice. What `stats` and `status` read (checks, past mock
interviews, leeches, readiness) is plain SQL in ``store.practice_reads``. Values cross as
frozen records; key points are indexes, never text."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import insert, text, update
from sqlmodel import Session, col, select

from infracards.records import RecalledPoints
from infracards.store.models import MockQuestion, MockSession

# --- mock interviews ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MockAnswer:
    """One answered question of a mock interview, as it is stored."""

    card_pk: int
    position: int
    seconds_used: int
    timed_out: bool
    recalled: RecalledPoints | None
    notes: str
    review_id: int | None = None


def start_mock(
    session: Session,
    *,
    deck_id: str,
    now: datetime,
    study_day: date,
    questions: int,
    seconds_per_question: int,
    topic: str | None,
) -> int:
    values = {
        "deck_id": deck_id,
        "started_at": now,
        "study_day": study_day,
        "questions": questions,
        "seconds_per_question": seconds_per_question,
        "topic": topic,
    }
    inserted = session.connection().execute(insert(MockSession).values(values)).inserted_primary_key
    assert inserted is not None
    return int(inserted[0])


def save_mock_answer(session: Session, *, mock_id: int, answer: MockAnswer) -> None:
    """Store a question's outcome; saving the same position again replaces it."""
    recalled = answer.recalled
    values = {
        "mock": mock_id,
        "card": answer.card_pk,
        "position": answer.position,
        "seconds_used": answer.seconds_used,
        "timed_out": answer.timed_out,
        "points": recalled.points if recalled else None,
        "recalled": recalled.mask if recalled else None,
        "points_fp": recalled.fingerprint if recalled else None,
        "notes": answer.notes,
        "review": answer.review_id,
    }
    existing = session.exec(
        select(MockQuestion.id).where(
            MockQuestion.mock == mock_id, MockQuestion.position == answer.position
        )
    ).first()
    if existing is None:
        session.execute(insert(MockQuestion).values(values))
    else:
        session.execute(update(MockQuestion).where(col(MockQuestion.id) == existing).values(values))


def end_mock(session: Session, *, mock_id: int, now: datetime) -> None:
    session.execute(update(MockSession).where(col(MockSession.id) == mock_id).values(ended_at=now))


# --- the mock interview's draw -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DrawCandidate:
    """A card a mock interview may ask, with what its weight is computed from."""

    card_pk: int
    card_id: str
    topic: str
    easiness_centi: int
    interval: int
    due: date | None
    best_grade: int | None
    """The best grade it ever got in a graded (non-drill) review; None if never answered."""
    points_checked: int
    """Key points checked over all its recorded checks (a check of 5 points counts 5)."""
    points_missed: int


SAMPLE_ABOVE = 500
"""Decks with more candidates than this are sampled (see ``draw_candidates``)."""
SAMPLE_RANDOM = 100
SAMPLE_OVERDUE = 25
SAMPLE_MISSED = 25
"""A sampled draw reads each candidate's best grade, one seek of the per-card review index
(schema 0007): 150 candidates keep it to a few milliseconds at 1M reviews, cold or warm."""

_ACTIVE = (
    "s.deck_id = :deck AND s.retired = 0 AND (:locked_too OR NOT s.locked) AND s.suspended = 0"
)
_DECK_SIZE = text(
    "SELECT coalesce(sum(cards), 0) FROM duecount"
    " WHERE deck_id = :deck AND NOT suspended AND (:locked_too OR NOT locked)"
)
_ALL_CANDIDATES = text(f"SELECT s.card FROM cardstate s WHERE {_ACTIVE}")
_TOPIC_CANDIDATES = text(
    # Cards whose first tag is the topic: tags equal to it, or starting with it and a space
    # (one range of ix_card_retired_tags_deck_id; '!' is the character after the space).
    "SELECT c.id FROM card c JOIN cardstate s ON s.card = c.id"
    f" WHERE c.retired = 0 AND c.tags >= :topic AND c.tags < :topic || '!' AND {_ACTIVE}"
)
_MOST_OVERDUE = text(
    f"SELECT s.card FROM cardstate s WHERE {_ACTIVE} AND s.due <= :today"
    " ORDER BY s.due LIMIT :limit"
)
# Two subqueries: SQLite answers a lone min() or max() from the primary key at once, but scans
# the table (10 ms at 100k cards) for both in one SELECT.
_PK_RANGE = text("SELECT (SELECT min(card) FROM cardstate), (SELECT max(card) FROM cardstate)")
_RECENTLY_MISSED = text(
    "SELECT card FROM review WHERE points IS NOT NULL AND recalled <> (1 << points) - 1"
    " GROUP BY card ORDER BY max(id) DESC LIMIT :limit"
)
_CANDIDATE_ROWS = text(
    f"""
SELECT s.card, c.card_id, c.tags, s.easiness_centi, s.interval, s.due,
       (SELECT max(r.grade) FROM review r WHERE r.card = s.card AND r.drill = 0)
FROM json_each(:cards) AS j CROSS JOIN cardstate AS s ON s.card = j.value
JOIN card AS c ON c.id = s.card
WHERE {_ACTIVE}
"""
)
_CANDIDATE_CHECKS = text(
    """
SELECT r.card, r.points, r.recalled FROM json_each(:cards) AS j
CROSS JOIN review AS r INDEXED BY ix_review_checked ON r.card = j.value WHERE r.points IS NOT NULL
UNION ALL
SELECT q.card, q.points, q.recalled FROM json_each(:cards) AS j
CROSS JOIN mockquestion AS q ON q.card = j.value WHERE q.points IS NOT NULL AND q.review IS NULL
"""
)


def draw_candidates(
    session: Session,
    *,
    deck_id: str,
    today: date,
    locked_too: bool,
    topic: str | None,
    rng: random.Random,
) -> list[DrawCandidate]:
    """The cards a mock interview draws from: every active, unsuspended card of the deck (of
    the topic, if one is given), or for a deck of more than ``SAMPLE_ABOVE`` such cards a
    sample: the ``SAMPLE_OVERDUE`` most overdue, the ``SAMPLE_MISSED`` whose key points were
    missed most recently, and ``SAMPLE_RANDOM`` at random, so the draw stays within a frame
    at 100,000 cards."""
    connection = session.connection()
    params = {"deck": deck_id, "locked_too": locked_too, "today": today.isoformat()}
    if topic is not None:
        pks = list(connection.execute(_TOPIC_CANDIDATES, {**params, "topic": topic}).scalars())
        if len(pks) > SAMPLE_ABOVE:
            pks = rng.sample(pks, SAMPLE_RANDOM)
    elif connection.execute(_DECK_SIZE, params).scalar_one() <= SAMPLE_ABOVE:
        pks = list(connection.execute(_ALL_CANDIDATES, params).scalars())
    else:
        first, last = connection.execute(_PK_RANGE).one()
        pks = [rng.randint(first, last) for _ in range(SAMPLE_RANDOM)]
        pks += connection.execute(_MOST_OVERDUE, {**params, "limit": SAMPLE_OVERDUE}).scalars()
        pks += connection.execute(_RECENTLY_MISSED, {"limit": SAMPLE_MISSED}).scalars()
    listed = json.dumps(sorted(set(pks)))
    checks: dict[int, list[int]] = {}
    for card, points, recalled in connection.execute(_CANDIDATE_CHECKS, {"cards": listed}):
        tally = checks.setdefault(card, [0, 0])
        tally[0] += points
        tally[1] += points - (recalled or 0).bit_count()
    candidates = []
    for card, card_id, tags, easiness_centi, interval, due, best in connection.execute(
        _CANDIDATE_ROWS, {**params, "cards": listed}
    ):
        checked, missed = checks.get(card, (0, 0))
        candidates.append(
            DrawCandidate(
                card_pk=card,
                card_id=card_id,
                topic=tags.split()[0] if tags else "",
                easiness_centi=easiness_centi,
                interval=interval,
                due=date.fromisoformat(due) if due else None,
                best_grade=best,
                points_checked=checked,
                points_missed=missed,
            )
        )
    return candidates


_TOPICS = text(
    "SELECT DISTINCT substr(tags, 1, instr(tags || ' ', ' ') - 1) FROM card"
    " WHERE deck_id = :deck AND NOT retired AND tags <> '' ORDER BY 1"
)


def deck_topics(session: Session, *, deck_id: str) -> list[str]:
    """Each topic (a card's first tag) of a deck's active cards, sorted."""
    return list(session.connection().execute(_TOPICS, {"deck": deck_id}).scalars())


_ADD_TO_TODAY = text(
    "UPDATE cardstate SET due = :today FROM json_each(:cards) AS j"
    " WHERE cardstate.card = j.value AND (due IS NULL OR due > :today)"
)


def move_due_to(session: Session, *, card_pks: list[int], today: date) -> int:
    """Make these cards due ``today`` (those due later, or new); their EF, repetitions and
    interval stay. Returns how many moved."""
    params = {"today": today.isoformat(), "cards": json.dumps(card_pks)}
    return session.connection().execute(_ADD_TO_TODAY, params).rowcount


# --- extra practice outside the schedule ---------------------------------------------------------

_DUE_AHEAD = text(
    f"SELECT s.card FROM cardstate s WHERE {_ACTIVE} AND s.due > :today AND s.due <= :until"
    " ORDER BY s.due, s.position"
)
_TOPIC_CARDS = text(
    "SELECT c.id FROM card c JOIN cardstate s ON s.card = c.id"
    f" WHERE c.retired = 0 AND c.tags >= :topic AND c.tags < :topic || '!' AND {_ACTIVE}"
    " ORDER BY s.position"
)
_WEAKEST = text(
    f"SELECT s.card FROM cardstate s WHERE {_ACTIVE} AND s.due IS NOT NULL"
    " ORDER BY s.easiness_centi, s.repetitions, s.position LIMIT :limit"
)
# Cards reviewed in the last days come from ix_review_study_day (a few thousand rows).
_NOT_RECENT = text(
    f"SELECT s.card FROM cardstate s WHERE {_ACTIVE}"
    " AND s.card NOT IN (SELECT card FROM review WHERE study_day > :since)"
    " ORDER BY s.due IS NULL, s.easiness_centi, s.position"
)
_TOPIC_COUNTS = text(
    "SELECT substr(c.tags, 1, instr(c.tags || ' ', ' ') - 1) AS topic, count(*)"
    " FROM card c JOIN cardstate s ON s.card = c.id"
    f" WHERE c.retired = 0 AND c.tags <> '' AND {_ACTIVE} GROUP BY topic ORDER BY topic"
)


def _cards(session: Session, statement: Any, **params: object) -> list[int]:
    return list(session.connection().execute(statement, params).scalars())


def due_ahead(
    session: Session, *, deck_id: str, today: date, days: int, locked_too: bool
) -> list[int]:
    """Cards due in the next ``days`` days (not today: those are today's review), soonest first."""
    until = (today + timedelta(days=days)).isoformat()
    return _cards(
        session,
        _DUE_AHEAD,
        deck=deck_id,
        today=today.isoformat(),
        until=until,
        locked_too=locked_too,
    )


def topic_cards(session: Session, *, deck_id: str, topic: str, locked_too: bool) -> list[int]:
    return _cards(session, _TOPIC_CARDS, deck=deck_id, topic=topic, locked_too=locked_too)


def weakest(session: Session, *, deck_id: str, limit: int, locked_too: bool) -> list[int]:
    """Reviewed cards with the lowest EF (then the fewest repetitions in a row)."""
    return _cards(session, _WEAKEST, deck=deck_id, limit=limit, locked_too=locked_too)


def not_reviewed_since(
    session: Session, *, deck_id: str, since: date, locked_too: bool
) -> list[int]:
    """Cards with no review of any kind after study day ``since``: lowest EF first, new last."""
    return _cards(
        session, _NOT_RECENT, deck=deck_id, since=since.isoformat(), locked_too=locked_too
    )


def topic_counts(session: Session, *, deck_id: str, locked_too: bool) -> list[tuple[str, int]]:
    rows = session.connection().execute(_TOPIC_COUNTS, {"deck": deck_id, "locked_too": locked_too})
    return [(topic, count) for topic, count in rows]


_ACTIVE_AMONG = text(
    "SELECT s.card FROM json_each(:cards) AS j CROSS JOIN cardstate AS s ON s.card = j.value"
    f" WHERE {_ACTIVE}"
)


def active_among(
    session: Session, *, deck_id: str, card_pks: list[int], locked_too: bool
) -> set[int]:
    """Those of ``card_pks`` that are active, unsuspended cards of the deck."""
    params = {"deck": deck_id, "cards": json.dumps(card_pks), "locked_too": locked_too}
    return set(session.connection().execute(_ACTIVE_AMONG, params).scalars())
