"""Plain-SQL reads (and the settings' one write) on a ``sqlite3`` connection, no SQLAlchemy.

Each function takes the connection of ``store.file.reading`` (a ``StoreFile``'s, or the app
engine's pooled one) or, for the callers that already hold one, a ``Session``, whose own
connection it then uses. So the CLI's fast commands and the app run the same SQL text, written
once. Values come back as the records that cross layers: dates as ``date``, flags as ``bool``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeAlias

from infracards.records import CardRecord, DeckSummary, ReviewEntry, StudyPrefs
from infracards.scheduler import SM2State

if TYPE_CHECKING:
    from sqlmodel import Session

Database: TypeAlias = "sqlite3.Connection | Session"
"""What a read runs on: a sqlite3 connection in a transaction, or a Session (its connection)."""


def driver(db: Database) -> sqlite3.Connection:
    """The sqlite3 connection to run plain SQL on."""
    if isinstance(db, sqlite3.Connection):
        return db
    from infracards.store.db import session_connection  # a Session: SQLAlchemy is loaded

    return session_connection(db)


def from_centi(easiness_centi: int) -> Decimal:
    """EF from its stored integer hundredths, exactly."""
    return Decimal(easiness_centi).scaleb(-2)


def stored_state(easiness_centi: int, repetitions: int, interval: int) -> SM2State:
    """An SM-2 state from its stored columns (a card's, or a review's before or after)."""
    return SM2State(easiness=from_centi(easiness_centi), repetitions=repetitions, interval=interval)


def _day(text: str | None) -> date | None:
    return date.fromisoformat(text) if text is not None else None


def _utc(text: str) -> datetime:
    """A time as the store holds it (UTC, "2025-01-06 10:00:00.000000")."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# --- decks -------------------------------------------------------------------------------------


def deck_origin(db: Database, *, deck_id: str) -> tuple[str, str, int] | None:
    """(source, digest, release) of the file last synced into ``deck_id``; None if it is not
    loaded."""
    row = (
        driver(db)
        .execute("SELECT source, digest, version FROM deck WHERE id = ?", (deck_id,))
        .fetchone()
    )
    return (row[0], row[1], row[2]) if row else None


def deck_ids(db: Database) -> list[str]:
    return [row[0] for row in driver(db).execute("SELECT id FROM deck ORDER BY id")]


def last_studied_deck(db: Database) -> str | None:
    """The deck of the latest review session (where Home's cursor starts, as Anki opens on the
    deck studied last); None before the first review."""
    row = (
        driver(db)
        .execute("SELECT deck_id FROM session WHERE deck_id IS NOT NULL ORDER BY id DESC LIMIT 1")
        .fetchone()
    )
    return row[0] if row else None


# Running counts kept by triggers (schema 0003, suspended and buried since 0006): a few
# hundred rows, not 100k cards joined to their states and today's reviews joined to their
# cards. New and due cards the review shows (not suspended, not buried today) are counted
# twice, all of them and the free ones alone: which a deck studies depends on the study-locked
# setting and on whether the deck is unlocked.
_DECK_COUNTS = """
SELECT deck_id, sum(cards),
       coalesce(sum(cards) FILTER (WHERE due IS NULL AND {studyable}), 0),
       coalesce(sum(cards) FILTER (WHERE due IS NULL AND {studyable} AND NOT locked), 0),
       coalesce(sum(cards) FILTER (WHERE due <= :today AND {studyable}), 0),
       coalesce(sum(cards) FILTER (WHERE due <= :today AND {studyable} AND NOT locked), 0),
       coalesce(sum(cards) FILTER (WHERE locked), 0),
       coalesce(sum(cards) FILTER (WHERE suspended), 0),
       coalesce(sum(cards) FILTER (WHERE leech), 0)
FROM duecount GROUP BY deck_id
""".format(studyable="NOT suspended AND buried_on IS NOT :today")
_REVIEWED_ON = "SELECT deck_id, reviews FROM daycount WHERE study_day = :today"
# Cards first studied today, per deck: a card's first review is the one logged with no due
# date before it (only one per card), drills aside; build_queue counts the same from the log.
# Due cards reviewed today count against max-reviews-per-day.
_INTRODUCED_ON = """
SELECT s.deck_id, count(*) FILTER (WHERE r.due_before IS NULL),
       count(*) FILTER (WHERE r.due_before IS NOT NULL)
FROM review AS r JOIN cardstate AS s ON s.card = r.card
WHERE r.study_day = :today AND NOT r.drill GROUP BY s.deck_id
"""
# When one deck has all of the day's reviews, they are counted without the join that finds
# each review's deck (3.6 → 0.4 ms for 3,300 reviews), as build_queue reads its log.
_INTRODUCED_IN_ONE_DECK = """
SELECT count(*) FILTER (WHERE due_before IS NULL), count(*) FILTER (WHERE due_before IS NOT NULL)
FROM review WHERE study_day = :today AND NOT drill
"""
_DECK_ROWS = "SELECT id, title, version, lock_header IS NOT NULL FROM deck ORDER BY id"


def deck_summaries(
    db: Database, *, today: date, prefs: StudyPrefs, unlocked: Collection[str] = ()
) -> list[DeckSummary]:
    """Per deck: active cards, new (and new today, within the daily limit), due today, locked,
    suspended, leeches, reviews today. New today and due today count what the review will
    show: no suspended or buried card, sealed cards only where ``prefs.studies_sealed``
    (``unlocked``: the decks whose card key opens their release)."""
    connection = driver(db)
    params = {"today": today.isoformat()}
    by_deck = {deck_id: counts for deck_id, *counts in connection.execute(_DECK_COUNTS, params)}
    reviewed = dict(connection.execute(_REVIEWED_ON, params).fetchall())
    studied = [deck for deck, reviews in reviewed.items() if reviews]
    done: dict[str, tuple[int, int]] = {}
    if len(studied) == 1:
        introduced, reviewed_due = connection.execute(_INTRODUCED_IN_ONE_DECK, params).fetchone()
        done[studied[0]] = (introduced, reviewed_due)
    elif studied:
        done = {deck: (new, due) for deck, new, due in connection.execute(_INTRODUCED_ON, params)}
    summaries = []
    for deck_id, title, version, sealed in connection.execute(_DECK_ROWS).fetchall():
        total, new, free_new, due, free_due, locked, suspended, leeches = by_deck.get(
            deck_id, (0,) * 8
        )
        studied_new = new
        if not prefs.studies_sealed(deck_unlocked=deck_id in unlocked):
            studied_new, due = free_new, free_due
        introduced, reviewed_due = done.get(deck_id, (0, 0))
        room = max(0, prefs.new_limit(today) - introduced)
        cap = prefs.max_reviews_per_day
        summaries.append(
            DeckSummary(
                deck_id=deck_id,
                title=title,
                version=version,
                total=total,
                new=new,
                new_today=min(room, studied_new),
                due=due,
                locked=locked,
                reviews_today=reviewed.get(deck_id, 0),
                sealed=bool(sealed),
                due_today=due if cap is None else min(due, max(0, cap - reviewed_due)),
                suspended=suspended,
                leeches=leeches,
            )
        )
    return summaries


def deck_lock(db: Database, *, deck_id: str) -> tuple[int, str | None, str | None]:
    """(release, lock header JSON, key slots JSON) of a deck, for unlocking."""
    row = (
        driver(db)
        .execute("SELECT version, lock_header, keyslots FROM deck WHERE id = ?", (deck_id,))
        .fetchone()
    )
    if row is None:
        raise LookupError(deck_id)
    return row[0], row[1], row[2]


def sealed_decks(db: Database) -> list[str]:
    rows = driver(db).execute("SELECT id FROM deck WHERE lock_header IS NOT NULL ORDER BY id")
    return [row[0] for row in rows]


def sealed_cards(db: Database, *, deck_id: str) -> list[tuple[str, str, str]]:
    """(card id, prompt, sealed base64) of every active sealed card, for the unlock check."""
    rows = driver(db).execute(
        "SELECT card_id, prompt, sealed FROM card"
        " WHERE deck_id = ? AND sealed IS NOT NULL AND NOT retired ORDER BY position",
        (deck_id,),
    )
    return [(card_id, prompt, sealed) for card_id, prompt, sealed in rows]


_CARD_LABELS = (
    "SELECT card_id, sealed IS NOT NULL, answer IS NOT NULL FROM card"
    " WHERE deck_id = ? AND NOT retired"
)


def card_labels(db: Database, *, deck_id: str) -> tuple[frozenset[str], frozenset[str]]:
    """(sealed, free) card ids of a deck's active cards, as stored."""
    rows = driver(db).execute(_CARD_LABELS, (deck_id,)).fetchall()
    return (
        frozenset(card_id for card_id, sealed, _ in rows if sealed),
        frozenset(card_id for card_id, _, free in rows if free),
    )


def deck_notation(db: Database, *, deck_id: str) -> str | None:
    """The deck's notation-and-constants page, if it ships one."""
    row = driver(db).execute("SELECT notation FROM deck WHERE id = ?", (deck_id,)).fetchone()
    return row[0] if row else None


# --- cards -------------------------------------------------------------------------------------


# A card with its state and its deck's language: one query, as each card reaches the screen.
_LOAD_CARD = """
SELECT c.id, c.deck_id, c.card_id, c.prompt, c.tags, c.key_points, c.answer, c.sealed,
       c.retired, c.calculators, s.easiness_centi, s.repetitions, s.interval, s.due, d.language
FROM card AS c JOIN cardstate AS s ON s.card = c.id JOIN deck AS d ON d.id = c.deck_id
"""


def load_card(db: Database, *, pk: int) -> CardRecord:
    row = driver(db).execute(_LOAD_CARD + "WHERE c.id = ?", (pk,)).fetchone()
    if row is None:
        raise LookupError(pk)
    return _card_record(row)


def find_card(db: Database, *, card_id: str, deck_id: str | None = None) -> list[CardRecord]:
    """Cards with this card id (one per deck that has it)."""
    rows = driver(db).execute(
        _LOAD_CARD + "WHERE c.card_id = ? AND (? IS NULL OR c.deck_id = ?) ORDER BY c.deck_id",
        (card_id, deck_id, deck_id),
    )
    return [_card_record(row) for row in rows]


def _card_record(row: Any) -> CardRecord:
    (pk, deck_id, card_id, prompt, tags, key_points, answer, sealed, retired, calculators) = row[
        :10
    ]
    easiness_centi, repetitions, interval, due, language = row[10:]
    return CardRecord(
        pk=pk,
        deck_id=deck_id,
        card_id=card_id,
        prompt=prompt,
        tags=tuple(tags.split()),
        key_points=tuple(json.loads(key_points)),
        answer=answer,
        sealed=sealed,
        state=stored_state(easiness_centi, repetitions, interval),
        due=_day(due),
        language=language,
        retired=bool(retired),
        calculators=tuple(json.loads(calculators)),
    )


def active_card_ids(db: Database, *, deck_id: str | None = None) -> list[tuple[str, str]]:
    """(deck, card id) of every active card, in deck order."""
    rows = driver(db).execute(
        "SELECT deck_id, card_id FROM card WHERE NOT retired AND (? IS NULL OR deck_id = ?)"
        " ORDER BY deck_id, position",
        (deck_id, deck_id),
    )
    return [(deck, card_id) for deck, card_id in rows]


_CARD_ID_SPANS = """
SELECT d.id,
    (SELECT card_id FROM card WHERE deck_id = d.id AND NOT retired ORDER BY position LIMIT 1),
    (SELECT card_id FROM card WHERE deck_id = d.id AND NOT retired ORDER BY position DESC LIMIT 1)
FROM deck AS d WHERE :deck IS NULL OR d.id = :deck ORDER BY d.id
"""


def card_id_spans(db: Database, *, deck_id: str | None = None) -> list[tuple[str, str, str]]:
    """Each deck's first and last card id, to say what exists when a card id is not found."""
    rows = driver(db).execute(_CARD_ID_SPANS, {"deck": deck_id})
    return [(deck, first, last) for deck, first, last in rows if first is not None]


def card_history(db: Database, *, pk: int) -> list[ReviewEntry]:
    """A card's logged grades, oldest first."""
    rows = driver(db).execute(
        "SELECT id, card, reviewed_at, study_day, grade, drill, duration_ms, interval_after"
        " FROM review WHERE card = ? ORDER BY reviewed_at, id",
        (pk,),
    )
    return [
        ReviewEntry(
            review_id=review_id,
            card_pk=card,
            reviewed_at=_utc(reviewed_at),
            study_day=date.fromisoformat(study_day),
            grade=grade,
            drill=bool(drill),
            duration_ms=duration_ms,
            interval_after=interval_after,
        )
        for review_id, card, reviewed_at, study_day, grade, drill, duration_ms, interval_after in (
            rows
        )
    ]


# --- settings ----------------------------------------------------------------------------------


def load_prefs(db: Database) -> StudyPrefs:
    return StudyPrefs.from_settings(dict(driver(db).execute("SELECT key, value FROM setting")))


def load_setting(db: Database, *, key: str) -> str | None:
    row = driver(db).execute("SELECT value FROM setting WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def save_setting(db: Database, *, key: str, value: str) -> None:
    driver(db).execute(
        "INSERT INTO setting (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
