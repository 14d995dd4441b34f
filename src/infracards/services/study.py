"""Study actions that join the pure scheduler to the store: grade, undo, preview."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import Engine

from infracards.records import CardRecord
from infracards.scheduler import SM2State, review
from infracards.store.db import transaction
from infracards.store.file import writing
from infracards.store.grading import load_state, log_review, replace_state, write_state
from infracards.store.queries import undo_review
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
) -> Graded:
    """Commit one grade (state and log in one transaction) before anything else is shown.

    SM-2 continues from the state the card was shown with, which is stored only if the card
    still has it under the write lock. Another infracards process may have graded the card
    since it was shown; then SM-2 continues from that latest state instead. A drill records
    the state as it is and leaves it alone.
    """
    reviewed_at = now.astimezone(UTC)
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
            duration_ms=duration_ms,
            session_id=session_id,
        )
    return Graded(
        review_id=review_id, card_pk=card.pk, quality=quality, drill=drill, after=after, due=due
    )


def _scheduled(state: SM2State, quality: int, today: date) -> tuple[SM2State, date]:
    after = review(state, quality)
    return after, today + timedelta(days=after.interval)


def undo_grade(engine: Engine, *, graded: Graded) -> CardRecord:
    """Remove a grade from the log and restore the card's state exactly as it was."""
    with transaction(engine, write=True) as session:
        undo_review(session, review_id=graded.review_id)
        return load_card(session, pk=graded.card_pk)
