"""A review session: today's queue of one deck, the card in front, grades, drills and undo.

The app's review screen draws a ``ReviewSession`` and forwards keys to it; tests drive it
directly with a real store, and later use cases (key-point checks, mock interviews, the
interview plan) build on it. Nothing here knows Textual.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.records import CardRecord, StudyPrefs
from infracards.scheduler import StudyQueue, study_day
from infracards.services.settings import study_prefs
from infracards.services.study import (
    CHECKPOINT_EVERY,
    Graded,
    grade_card,
    next_intervals,
    undo_grade,
)
from infracards.store.db import checkpoint, transaction
from infracards.store.queries import (
    build_queue,
    end_session,
    load_queue_page,
    start_session,
)
from infracards.store.reads import load_card


@dataclass(frozen=True, slots=True)
class Step:
    """What undo needs: the committed grade and the queue and card as they were before it."""

    graded: Graded
    queue: StudyQueue
    card: CardRecord
    duration_ms: int


@dataclass(frozen=True, slots=True)
class Progress:
    """The session's counts: answers given, showings still ahead, and drills among them."""

    done: int
    remaining: int
    drills: int


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """Counts for the end-of-session screen."""

    cards: int
    answers: int
    drills: int
    grades: dict[int, int]
    seconds: float
    next_due: dict[str, date]
    """Card id → next due date, for every card whose schedule this session changed."""
    left: int


class ReviewSession:
    """One review of one deck, from its first card to its summary.

    Every grade is committed before the next card is loaded; ``grade`` and ``undo`` raise
    ``InfracardsError`` with nothing changed (in the store or here) when the store refuses.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        deck_id: str,
        clock: Callable[[], datetime],
        home: Path | None = None,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.deck_id = deck_id
        self.home = home
        """The data folder: with `study-locked no`, a card key stored there lets the deck's
        sealed cards into the queue (None: none is looked for)."""
        self.clock = clock
        """Wall time for the log and the study day (fixed in tests)."""
        self.timer = timer
        """Monotonic seconds, for how long a card was in front of the learner."""
        self.prefs = StudyPrefs()
        self.queue = StudyQueue()
        self.card: CardRecord | None = None
        """The card in front of the learner; None once the queue is done."""
        self.history: list[Step] = []
        self.session_id: int | None = None
        self.started_at = clock()
        self.shown_at = timer()
        self._since_checkpoint = 0
        """Grades committed since the write-ahead log was last checkpointed."""

    def start(self) -> CardRecord | None:
        """Build today's queue, open the session in the log, and load the first card."""
        self.prefs = study_prefs(self.engine)
        unlocked = False
        if self.home is not None and not self.prefs.study_locked:
            from infracards.services.unlock import unlocked_decks  # with the seal: only if needed

            unlocked = self.deck_id in unlocked_decks(self.engine, self.home)
        with transaction(self.engine, write=True) as session:
            today = self.today()
            self.queue = build_queue(
                session,
                deck_id=self.deck_id,
                today=today,
                prefs=self.prefs,
                deck_unlocked=unlocked,
            )
            self.session_id = start_session(
                session, now=self.started_at, study_day=today, deck_id=self.deck_id
            )
        return self._load_current()

    def today(self) -> date:
        """The study day now; settings are read once per session, so grading needs no query."""
        return study_day(self.clock(), rollover_hour=self.prefs.rollover_hour)

    @property
    def is_drill(self) -> bool:
        """The card in front is a same-day drill: logged, but the schedule stays as it is."""
        return self.queue.current_is_drill

    @property
    def can_undo(self) -> bool:
        return bool(self.history)

    @property
    def progress(self) -> Progress:
        return Progress(
            done=len(self.history), remaining=self.queue.remaining, drills=len(self.queue.drills)
        )

    def intervals(self) -> dict[int, int]:
        """The interval each grade would give the card in front (the grade bar's labels)."""
        if self.card is None:
            return {}
        return next_intervals(self.card.state)

    def grade(self, quality: int) -> Graded:
        """Commit a grade for the card in front, then bring the next card forward."""
        card = self.card
        if card is None:
            raise InfracardsError("the session has no card left to grade")
        duration_ms = int((self.timer() - self.shown_at) * 1000)
        graded = grade_card(
            self.engine,
            card=card,
            quality=quality,
            drill=self.is_drill,
            now=self.clock(),
            today=self.today(),
            duration_ms=duration_ms,
            session_id=self.session_id,
        )
        self.history.append(
            Step(graded=graded, queue=self.queue, card=card, duration_ms=duration_ms)
        )
        self.queue = self.queue.after_grade(quality)
        self._since_checkpoint += 1
        self._load_current()
        return graded

    def undo(self) -> Step:
        """Take back the last grade: the log entry goes, the card's state and the queue return."""
        if not self.history:
            raise InfracardsError("nothing to undo in this session")
        step = self.history[-1]
        undo_grade(self.engine, graded=step.graded)
        self.history.pop()
        self.queue = step.queue
        self._load_current()
        return step

    def claim_checkpoint(self) -> bool:
        """True once every ``CHECKPOINT_EVERY`` grades: time to fold the log into the database
        (``checkpoint``, off the grading path, while the learner reads)."""
        if self._since_checkpoint < CHECKPOINT_EVERY:
            return False
        self._since_checkpoint = 0
        return True

    def checkpoint(self) -> None:
        checkpoint(self.engine)

    def end(self) -> None:
        """Record when the session ended, once, however the learner leaves it."""
        if self.session_id is None:
            return
        session_id, self.session_id = self.session_id, None
        # Only a note, not progress: every grade is committed already, so a store that cannot
        # take it (full disk, read-only folder) must not make leaving fail.
        with suppress(InfracardsError), transaction(self.engine, write=True) as session:
            end_session(session, session_id=session_id, now=self.clock())

    def summary(self) -> SessionSummary:
        grades = [step.graded for step in self.history]
        card_ids = {step.card.pk: step.card.card_id for step in self.history}
        return SessionSummary(
            cards=len(card_ids),
            answers=len(grades),
            drills=sum(g.drill for g in grades),
            grades=dict(Counter(g.quality for g in grades)),
            seconds=(self.clock() - self.started_at).total_seconds(),
            next_due={
                card_ids[g.card_pk]: g.due for g in grades if not g.drill and g.due is not None
            },
            left=self.queue.remaining,
        )

    def _load_current(self) -> CardRecord | None:
        with transaction(self.engine) as session:
            if self.queue.needs_loading:
                self.queue = load_queue_page(session, queue=self.queue)
            card_pk = self.queue.current
            self.card = load_card(session, pk=card_pk) if card_pk is not None else None
        self.shown_at = self.timer()
        return self.card
