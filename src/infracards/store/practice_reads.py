"""Plain-SQL reads of interview practice: key-point checks, past mock interviews, leeches and
what readiness reads. Like ``store.reads``, each takes a ``sqlite3`` connection (or a Session),
so `stats` and `status` read them without SQLAlchemy and the app runs the same SQL text.
Key points are indexes here, never text."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime

from infracards.records import RecalledPoints
from infracards.store.reads import Database, driver


def _topic(tags: str) -> str:
    """A card's topic: its first tag."""
    return tags.split()[0] if tags else ""


# --- key-point checks ------------------------------------------------------------------------


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
_CHECK_COUNTS = """
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


def check_counts(db: Database, *, deck_id: str | None = None) -> list[CheckCounts]:
    rows = driver(db).execute(_CHECK_COUNTS, {"deck": deck_id})
    return [CheckCounts(*row) for row in rows]


# --- past mock interviews --------------------------------------------------------------------


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


_MOCKS = """
SELECT id, deck_id, started_at, ended_at, study_day, questions, seconds_per_question, topic
FROM mocksession WHERE (:deck IS NULL OR deck_id = :deck) AND (:mock IS NULL OR id = :mock)
ORDER BY started_at, id
"""
_MOCK_QUESTIONS = """
SELECT q.mock, q.card, c.deck_id, c.card_id, c.prompt, c.tags, q.position, q.seconds_used,
       q.timed_out, q.points, q.recalled, q.points_fp, q.notes, r.reviewed_at
FROM json_each(:mocks) AS j CROSS JOIN mockquestion AS q ON q.mock = j.value
JOIN card AS c ON c.id = q.card LEFT JOIN review AS r ON r.id = q.review
ORDER BY q.mock, q.position
"""


def _time(text: str | None) -> datetime | None:
    """A time as the store holds it (UTC, "2026-12-01 10:00:00.000000"), as the models read it."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC) if text is not None else None


def mock_history(
    db: Database, *, deck_id: str | None = None, mock_id: int | None = None
) -> list[StoredMock]:
    """Past mock interviews, oldest first, each with its questions in order."""
    connection = driver(db)
    mocks = connection.execute(_MOCKS, {"deck": deck_id, "mock": mock_id}).fetchall()
    if not mocks:
        return []
    questions: dict[int, list[StoredQuestion]] = {row[0]: [] for row in mocks}
    rows = connection.execute(_MOCK_QUESTIONS, {"mocks": json.dumps(list(questions))})
    for mock, card, deck, card_id, prompt, tags, position, seconds, timed_out, *checked in rows:
        points, mask, fingerprint, notes, counted_at = checked
        questions[mock].append(
            StoredQuestion(
                card_pk=card,
                deck_id=deck,
                card_id=card_id,
                prompt=prompt,
                topic=_topic(tags),
                position=position,
                seconds_used=seconds,
                timed_out=bool(timed_out),
                recalled=(
                    RecalledPoints.from_mask(points, mask or 0, fingerprint)
                    if points is not None and fingerprint is not None
                    else None
                ),
                notes=notes,
                counted_at=_time(counted_at),
            )
        )
    return [
        StoredMock(
            mock_id=mock,
            deck_id=deck,
            started_at=datetime.fromisoformat(started_at).replace(tzinfo=UTC),
            ended_at=_time(ended_at),
            study_day=date.fromisoformat(day),
            planned=planned,
            seconds_per_question=seconds,
            topic=topic,
            questions=tuple(questions[mock]),
        )
        for mock, deck, started_at, ended_at, day, planned, seconds, topic in mocks
    ]


# --- leeches ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeechCard:
    deck_id: str
    card_id: str
    prompt: str
    topic: str
    lapses: int
    suspended: bool


_LEECHES = """
SELECT c.deck_id, c.card_id, c.prompt, c.tags, s.suspended,
       (SELECT count(*) FROM review r WHERE r.card = s.card AND r.drill = 0 AND r.grade < 3)
FROM cardstate s JOIN card c ON c.id = s.card
WHERE s.leech AND s.retired = 0 AND (:deck IS NULL OR s.deck_id = :deck)
ORDER BY c.deck_id, s.position
"""


def leech_cards(db: Database, *, deck_id: str | None = None) -> list[LeechCard]:
    """Cards flagged as leeches, with their lapse count, in deck order."""
    return [
        LeechCard(deck, card_id, prompt, _topic(tags), lapses, bool(suspended))
        for deck, card_id, prompt, tags, suspended, lapses in driver(db).execute(
            _LEECHES, {"deck": deck_id}
        )
    ]


# --- readiness and the plan ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemoryRow:
    """What readiness reads of one active card."""

    card_pk: int
    topic: str
    due: date | None
    interval: int
    repetitions: int
    suspended: bool


# Active cards in tag order from ix_card_retired_tags_deck_id (no prompt or answer is read),
# each joined to its state by key.
_MEMORY = """
SELECT c.id, c.tags, s.due, s.interval, s.repetitions, s.suspended
FROM card AS c INDEXED BY ix_card_retired_tags_deck_id
JOIN cardstate AS s ON s.card = c.id
WHERE c.retired = 0 AND c.deck_id = :deck
"""
# The latest check of each checked card: its coverage (said ÷ listed). With max() in the
# result, SQLite takes the other columns from the row that has the maximum.
_LATEST_CHECKS = """
SELECT card, points, recalled, max(at) FROM (
    SELECT r.card, r.points, r.recalled, r.reviewed_at AS at FROM review r
    WHERE r.points IS NOT NULL
    UNION ALL
    SELECT q.card, q.points, q.recalled, m.started_at FROM mockquestion q
    JOIN mocksession m ON m.id = q.mock WHERE q.points IS NOT NULL AND m.deck_id = :deck
) GROUP BY card
"""
# Graded reviews of cards already learned (the card had passed before): how often the learner
# still knew a card when SM-2 asked again, over the last days.
_RETENTION = """
SELECT count(*), coalesce(sum(r.grade >= :passing), 0) FROM review r
JOIN cardstate s ON s.card = r.card
WHERE r.study_day >= :since AND r.drill = 0 AND r.repetitions_before > 0
  AND s.deck_id = :deck
"""


def memory_rows(db: Database, *, deck_id: str) -> list[MemoryRow]:
    rows = driver(db).execute(_MEMORY, {"deck": deck_id})
    return [
        MemoryRow(
            card_pk=pk,
            topic=_topic(tags),
            due=date.fromisoformat(due) if due else None,
            interval=interval,
            repetitions=repetitions,
            suspended=bool(suspended),
        )
        for pk, tags, due, interval, repetitions, suspended in rows
    ]


def latest_coverage(db: Database, *, deck_id: str) -> dict[int, tuple[int, int]]:
    """Card → (points said, points listed) at its latest key-point check."""
    rows = driver(db).execute(_LATEST_CHECKS, {"deck": deck_id})
    return {card: ((recalled or 0).bit_count(), points) for card, points, recalled, _ in rows}


def recent_retention(db: Database, *, deck_id: str, since: date, passing: int) -> tuple[int, int]:
    """(graded reviews of learned cards since ``since``, how many passed)."""
    params = {"deck": deck_id, "since": since.isoformat(), "passing": passing}
    reviews, passed = driver(db).execute(_RETENTION, params).fetchone()
    return int(reviews), int(passed)


_CARD_IDS = (
    "SELECT c.id, c.card_id FROM json_each(:cards) AS j CROSS JOIN card AS c ON c.id = j.value"
)


def card_ids(db: Database, *, card_pks: list[int]) -> dict[int, str]:
    rows = driver(db).execute(_CARD_IDS, {"cards": json.dumps(card_pks)})
    return {pk: card_id for pk, card_id in rows}


_NEW_STUDYABLE = (
    "SELECT coalesce(sum(cards), 0) FROM duecount WHERE deck_id = :deck AND due IS NULL"
    " AND NOT suspended AND (:locked_too OR NOT locked)"
)


def new_card_count(db: Database, *, deck_id: str, locked_too: bool) -> int:
    """Unsuspended new cards the learner can study (the plan spreads them over the days)."""
    params = {"deck": deck_id, "locked_too": locked_too}
    return int(driver(db).execute(_NEW_STUDYABLE, params).fetchone()[0])
