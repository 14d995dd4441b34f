"""A grade's reads and writes as plain SQL on the pooled sqlite3 connection (the hot path).

A grade is one ``BEGIN IMMEDIATE … COMMIT`` around two statements (a conditional UPDATE of the
state and the review's INSERT; a read and a second UPDATE when the card changed since it was
shown). Through the Session and SQLAlchemy's statement layer such statements cost ~250 µs of
Python around ~200 µs of SQLite (most of it the fsync); as sqlite3's own cached statements,
~30 µs. Values still pass through the columns' own SQLite bind and result processors, so a row
reads back exactly as the ORM wrote it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Column, Table
from sqlalchemy.dialects import sqlite

from infracards.records import RecalledPoints
from infracards.scheduler import SM2State
from infracards.store.models import CardState, Review
from infracards.store.reads import stored_state

_DIALECT = sqlite.dialect()
_REVIEW: Table = Review.__table__  # type: ignore[attr-defined]
_CARD_STATE: Table = CardState.__table__  # type: ignore[attr-defined]


def _same(value: Any) -> Any:
    return value


def _to_db(column: Column[Any]) -> Callable[[Any], Any]:
    return column.type.dialect_impl(_DIALECT).bind_processor(_DIALECT) or _same


def _from_db(column: Column[Any]) -> Callable[[Any], Any]:
    return column.type.dialect_impl(_DIALECT).result_processor(_DIALECT, None) or _same


_DATETIME_TO_DB = _to_db(_CARD_STATE.c.last_review_at)
_DATE_TO_DB = _to_db(_CARD_STATE.c.due)
_DATE_FROM_DB = _from_db(_CARD_STATE.c.due)
_BOOLEAN_TO_DB = _to_db(_REVIEW.c.drill)

_LOAD_STATE = "SELECT easiness_centi, repetitions, interval, due FROM cardstate WHERE card = ?"
SET_STATE_SQL = (
    "UPDATE cardstate SET easiness_centi = ?, repetitions = ?, interval = ?, due = ?,"
    " last_review_at = ? WHERE card = ?"
)
_SET_STATE_IF_UNCHANGED = (
    f"{SET_STATE_SQL} AND easiness_centi = ? AND repetitions = ? AND interval = ? AND due IS ?"
)
REVIEW_COLUMNS = (
    "card",
    "session",
    "reviewed_at",
    "study_day",
    "grade",
    "drill",
    "duration_ms",
    "easiness_centi_before",
    "repetitions_before",
    "interval_before",
    "due_before",
    "easiness_centi_after",
    "repetitions_after",
    "interval_after",
    "due_after",
    "points",
    "recalled",
    "points_fp",
    "practice",
)
"""The order ``log_review`` binds a row in (a test keeps it equal to the table's columns)."""
_LAPSES = "SELECT count(*) FROM review WHERE card = ? AND drill = 0 AND grade < 3"
_LEECH = "SELECT leech FROM cardstate WHERE card = ?"
_FLAG_LEECH = "UPDATE cardstate SET leech = 1, suspended = 1 WHERE card = ?"
_INSERT_REVIEW = "INSERT INTO review ({}) VALUES ({})".format(
    ", ".join(REVIEW_COLUMNS), ", ".join("?" * len(REVIEW_COLUMNS))
)


def db_datetime(moment: datetime | None) -> Any:
    """A time as the store holds it (what the ORM would write)."""
    return _DATETIME_TO_DB(moment)


def db_date(day: date | None) -> Any:
    return _DATE_TO_DB(day)


def db_boolean(flag: bool) -> Any:
    return _BOOLEAN_TO_DB(flag)


def to_centi(easiness: Decimal) -> int:
    """EF as stored: integer hundredths, exact."""
    return int(easiness * 100)


def load_state(connection: sqlite3.Connection, *, pk: int) -> tuple[SM2State, date | None]:
    """A card's SM-2 state and due date (what grading needs; no prompt or answer is read)."""
    row = connection.execute(_LOAD_STATE, (pk,)).fetchone()
    if row is None:
        raise LookupError(pk)
    *state, due = row
    return stored_state(*state), _DATE_FROM_DB(due)


def write_state(
    connection: sqlite3.Connection,
    *,
    card_pk: int,
    state: SM2State,
    due: date | None,
    last_review_at: datetime | None,
) -> None:
    """Store a card's SM-2 state (after a grade, an undo, or a replay of its log)."""
    connection.execute(SET_STATE_SQL, (*_state_values(state, due, last_review_at), card_pk))


def replace_state(
    connection: sqlite3.Connection,
    *,
    card_pk: int,
    shown: SM2State,
    shown_due: date | None,
    state: SM2State,
    due: date | None,
    last_review_at: datetime,
) -> bool:
    """Store the state a grade computed from ``shown`` if the card still has that state: one
    statement in place of a read and a write. False if another process changed it first."""
    expected = (to_centi(shown.easiness), shown.repetitions, shown.interval, _DATE_TO_DB(shown_due))
    values = (*_state_values(state, due, last_review_at), card_pk, *expected)
    return connection.execute(_SET_STATE_IF_UNCHANGED, values).rowcount == 1


def _state_values(
    state: SM2State, due: date | None, last_review_at: datetime | None
) -> tuple[object, ...]:
    return (
        to_centi(state.easiness),
        state.repetitions,
        state.interval,
        _DATE_TO_DB(due),
        _DATETIME_TO_DB(last_review_at),
    )


def log_review(
    connection: sqlite3.Connection,
    *,
    card_pk: int,
    grade: int,
    drill: bool,
    before: SM2State,
    due_before: date | None,
    after: SM2State,
    due_after: date | None,
    reviewed_at: datetime,
    study_day: date,
    duration_ms: int,
    session_id: int | None,
    recalled: RecalledPoints | None = None,
    practice: str | None = None,
) -> int:
    """Append a grade, with the state before and after it (and the key points said, by index,
    when the learner checked them), to the log; returns its id."""
    row = (
        card_pk,
        session_id,
        _DATETIME_TO_DB(reviewed_at),
        _DATE_TO_DB(study_day),
        grade,
        _BOOLEAN_TO_DB(drill),
        duration_ms,
        to_centi(before.easiness),
        before.repetitions,
        before.interval,
        _DATE_TO_DB(due_before),
        to_centi(after.easiness),
        after.repetitions,
        after.interval,
        _DATE_TO_DB(due_after),
        recalled.points if recalled else None,
        recalled.mask if recalled else None,
        recalled.fingerprint if recalled else None,
        practice,
    )
    review_id = connection.execute(_INSERT_REVIEW, row).lastrowid
    assert review_id is not None
    return review_id


def count_lapses(connection: sqlite3.Connection, *, pk: int) -> int:
    """Graded reviews below 3 (drills and practice aside): read only on a lapse."""
    return int(connection.execute(_LAPSES, (pk,)).fetchone()[0])


def suspend_leech(connection: sqlite3.Connection, *, pk: int) -> bool:
    """Flag a card as a leech and suspend it; returns whether it was a leech already."""
    was_leech = bool(connection.execute(_LEECH, (pk,)).fetchone()[0])
    connection.execute(_FLAG_LEECH, (pk,))
    return was_leech
