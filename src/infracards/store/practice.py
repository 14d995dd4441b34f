"""SQL of interview practice: key-point checks (on reviews and mock questions) and mock
interviews. Values cross as frozen records; key points are indexes, never text."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

import sqlalchemy as sa
from sqlalchemy import insert, text, update
from sqlmodel import Session, col, select

from infracards.records import RecalledPoints
from infracards.store.models import Card, MockQuestion, MockSession, Review


@dataclass(frozen=True, slots=True)
class CheckCounts:
    """How many checks of one card, against one list of points, said exactly these points."""

    card_pk: int
    fingerprint: str
    points: int
    mask: int
    checks: int
    last_checked: str
    """The newest of these checks (ISO text as SQLite holds it; only compared)."""


# Reviews with a check are read through ix_review_checked (a partial index: a few thousand
# rows, not the million reviews). A mock question counted as a review is that review's check.
_CHECK_COUNTS = text(
    """
SELECT c.card, c.points_fp, c.points, c.recalled, count(*), max(c.at) FROM (
    SELECT card, points_fp, points, recalled, reviewed_at AS at FROM review
    WHERE points IS NOT NULL
    UNION ALL
    SELECT q.card, q.points_fp, q.points, q.recalled, m.started_at FROM mockquestion q
    JOIN mocksession m ON m.id = q.mock WHERE q.points IS NOT NULL AND q.review IS NULL
) AS c JOIN card AS k ON k.id = c.card
WHERE (:deck IS NULL OR k.deck_id = :deck) AND NOT k.retired
GROUP BY c.card, c.points_fp, c.points, c.recalled
"""
)


def check_counts(session: Session, *, deck_id: str | None = None) -> list[CheckCounts]:
    rows = session.connection().execute(_CHECK_COUNTS, {"deck": deck_id})
    return [CheckCounts(*row) for row in rows]


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


@dataclass(frozen=True, slots=True)
class StoredQuestion:
    card_pk: int
    deck_id: str
    card_id: str
    prompt: str
    topic: str
    position: int
    seconds_used: int
    timed_out: bool
    recalled: RecalledPoints | None
    notes: str
    counted_at: datetime | None
    """When the review it was counted as was given (None: not counted)."""


@dataclass(frozen=True, slots=True)
class StoredMock:
    mock_id: int
    deck_id: str
    started_at: datetime
    ended_at: datetime | None
    study_day: date
    planned: int
    seconds_per_question: int
    topic: str | None
    questions: tuple[StoredQuestion, ...]


def mock_history(
    session: Session, *, deck_id: str | None = None, mock_id: int | None = None
) -> list[StoredMock]:
    """Past mock interviews, oldest first, each with its questions in order."""
    query = select(MockSession).order_by(col(MockSession.started_at), col(MockSession.id))
    if deck_id is not None:
        query = query.where(MockSession.deck_id == deck_id)
    if mock_id is not None:
        query = query.where(MockSession.id == mock_id)
    mocks = list(session.exec(query))
    if not mocks:
        return []
    questions: dict[int, list[StoredQuestion]] = {mock.id or 0: [] for mock in mocks}
    rows = session.execute(
        sa.select(  # SQLModel's select types at most four entities
            MockQuestion,
            col(Card.deck_id),
            col(Card.card_id),
            col(Card.prompt),
            col(Card.tags),
            col(Review.reviewed_at),
        )
        .join(Card, col(Card.id) == MockQuestion.card)
        .outerjoin(Review, col(Review.id) == MockQuestion.review)
        .where(col(MockQuestion.mock).in_(list(questions)))
        .order_by(col(MockQuestion.mock), col(MockQuestion.position))
    )
    for question, deck, card_id, prompt, tags, counted_at in rows:
        recalled = (
            RecalledPoints.from_mask(question.points, question.recalled or 0, question.points_fp)
            if question.points is not None and question.points_fp is not None
            else None
        )
        questions[question.mock].append(
            StoredQuestion(
                card_pk=question.card,
                deck_id=deck,
                card_id=card_id,
                prompt=prompt,
                topic=tags.split()[0] if tags else "",
                position=question.position,
                seconds_used=question.seconds_used,
                timed_out=question.timed_out,
                recalled=recalled,
                notes=question.notes,
                counted_at=counted_at,
            )
        )
    return [
        StoredMock(
            mock_id=mock.id or 0,
            deck_id=mock.deck_id,
            started_at=mock.started_at,
            ended_at=mock.ended_at,
            study_day=mock.study_day,
            planned=mock.questions,
            seconds_per_question=mock.seconds_per_question,
            topic=mock.topic,
            questions=tuple(questions[mock.id or 0]),
        )
        for mock in mocks
    ]
