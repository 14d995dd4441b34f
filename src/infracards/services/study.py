"""Study actions that join the pure scheduler to the store: grade, undo, preview."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy import Engine

from infracards.records import MAX_DURATION_MS, CardRecord, RecalledPoints
from infracards.scheduler import SM2State, due_date, review
from infracards.scheduler.sm2 import PASSING_GRADE, suspends_as_leech
from infracards.store.db import transaction
from infracards.store.file import writing
from infracards.store.grading import (
    count_lapses,
    load_state,
    log_review,
    replace_state,
    suspend_leech,
    write_state,
)
from infracards.store.queries import set_leech, set_suspended, undo_review
from infracards.store.reads import load_card

CHECKPOINT_EVERY = 20
"""Grades between two write-ahead log checkpoints taken off the grading path (~260 log pages)."""


@dataclass(frozen=True, slots=True)
class Graded:
    """A committed grade: enough to show the result and to undo it."""

    review_id: int
    card_pk: int
    quality: int
    drill: bool
    after: SM2State
    due: date | None
    leech: bool = False
    """This grade was the lapse that made the card a leech: it is flagged and suspended now."""
    was_leech: bool = False
    """It had been flagged a leech before (undo leaves that flag)."""
    practice: str | None = None


def next_intervals(state: SM2State) -> dict[int, int]:
    """The interval each grade 0–5 would give, for the grade bar's labels."""
    return {quality: review(state, quality).interval for quality in range(6)}


def grade_card(
    engine: Engine,
    *,
    card: CardRecord,
    quality: int,
    drill: bool,
    now: datetime,
    today: date,
    duration_ms: int,
    session_id: int | None,
    recalled: RecalledPoints | None = None,
    practice: str | None = None,
    leech_threshold: int = 8,
) -> Graded:
    """Commit one grade (state and log in one transaction) before anything else is shown.

    SM-2 continues from the state the card was shown with, which is stored only if the card
    still has it under the write lock. Another infracards process may have graded the card
    since it was shown; then SM-2 continues from that latest state instead. A drill, and
    extra ``practice`` (study ahead, cram, final pass: logged as a drill), records the state as
    it is and leaves it alone. A lapse that reaches ``leech_threshold`` suspends the card.
    """
    reviewed_at = now.astimezone(UTC)
    drill = drill or practice is not None
    leech = was_leech = False
    with writing(engine) as connection:
        before, due_before = card.state, card.due
        if drill:
            before, due_before = load_state(connection, pk=card.pk)
            after, due = before, due_before
        else:
            after, due = _scheduled(before, quality, today)
            if not replace_state(
                connection,
                card_pk=card.pk,
                shown=before,
                shown_due=due_before,
                state=after,
                due=due,
                last_review_at=reviewed_at,
            ):
                before, due_before = load_state(connection, pk=card.pk)
                after, due = _scheduled(before, quality, today)
                write_state(
                    connection, card_pk=card.pk, state=after, due=due, last_review_at=reviewed_at
                )
        review_id = log_review(
            connection,
            card_pk=card.pk,
            grade=quality,
            drill=drill,
            before=before,
            due_before=due_before,
            after=after,
            due_after=due,
            reviewed_at=reviewed_at,
            study_day=today,
            duration_ms=min(duration_ms, MAX_DURATION_MS),
            session_id=session_id,
            recalled=recalled,
            practice=practice,
        )
        # Only a lapse reads the lapse count (one indexed count, not on the passing grades).
        if not drill and quality < PASSING_GRADE:
            leech = suspends_as_leech(count_lapses(connection, pk=card.pk), leech_threshold)
            if leech:
                was_leech = suspend_leech(connection, pk=card.pk)
    return Graded(
        review_id=review_id,
        card_pk=card.pk,
        quality=quality,
        drill=drill,
        after=after,
        due=due,
        leech=leech,
        was_leech=was_leech,
        practice=practice,
    )


def _scheduled(state: SM2State, quality: int, today: date) -> tuple[SM2State, date]:
    after = review(state, quality)
    return after, due_date(today, after.interval)


def undo_grade(engine: Engine, *, graded: Graded) -> CardRecord:
    """Remove a grade from the log and restore the card's state exactly as it was (a card the
    grade suspended as a leech is unsuspended, and unflagged unless it was a leech before)."""
    with transaction(engine, write=True) as session:
        undo_review(session, review_id=graded.review_id)
        if graded.leech:
            set_suspended(session, card_pks=[graded.card_pk], suspended=False)
            set_leech(session, card_pks=[graded.card_pk], leech=graded.was_leech)
        return load_card(session, pk=graded.card_pk)
