"""A review session: today's queue of one deck, the card in front, grades, drills and undo.

The app's review screen draws a ``ReviewSession`` and forwards keys to it; tests drive it
directly with a real store. The same session runs extra practice outside the schedule (study
ahead, cram, the final pass before an interview: ``Practice``), takes the card in front out of
the session (suspend, bury), and keeps its undo history after it ends, so a wrong last grade
can be taken back from the summary. Nothing here knows Textual.
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
from infracards.services.answers import AnswerBook
from infracards.services.keypoints import KeyPointCheck, open_check
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
    bury,
    end_session,
    load_queue_page,
    reopen_session,
    set_suspended,
    start_session,
)
from infracards.store.reads import load_card

SUSPENDED = "suspended"
BURIED = "buried"


@dataclass(frozen=True, slots=True)
class Practice:
    """Extra practice outside the schedule: which cards, in which order, and why.

    Its grades are logged as practice (like a same-day drill): the SM-2 state, and so the
    schedule, stay exactly as they were (``services.practice`` says which cards)."""

    kind: str
    """``ahead`` (study ahead), ``cram`` or ``final`` (the final pass before an interview)."""
    title: str
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Step:
    """What undo needs: a committed grade (or the card taken out of the session) and the
    queue and card as they were before it."""

    graded: Graded | None
    queue: StudyQueue
    card: CardRecord
    duration_ms: int
    hidden: str | None = None
    """``suspended`` or ``buried`` when the step took the card out instead of grading it."""


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
    practice: str | None = None
    """The practice's title, when the session was extra practice outside the schedule."""
    leeches: tuple[str, ...] = ()
    """Cards this session suspended as leeches."""
    hidden: tuple[tuple[str, str], ...] = ()
    """(card id, ``suspended`` or ``buried``) for the cards taken out of the session."""
    can_undo: bool = False


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
        answers: AnswerBook | None = None,
        practice: Practice | None = None,
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
        self.practice = practice
        self.prefs = StudyPrefs()
        self.queue = StudyQueue()
        self.answers = answers or AnswerBook()
        """Opens the answer in front for its key points (sealed ones: in memory only)."""
        self.card: CardRecord | None = None
        """The card in front of the learner; None once the queue is done."""
        self.check: KeyPointCheck | None = None
        """The key-point checklist of the revealed card; None before reveal, and for a card
        studied question-only (sealed, deck locked) or without key points."""
        self.history: list[Step] = []
        self.session_id: int | None = None
        self.ended = False
        self.started_at = clock()
        self.shown_at = timer()
        self._since_checkpoint = 0
        """Grades committed since the write-ahead log was last checkpointed."""

    def start(self) -> CardRecord | None:
        """Build today's queue (or take the practice's cards), open the session in the log,
        and load the first card."""
        self.prefs = study_prefs(self.engine)
        unlocked = False
        if self.practice is None and self.home is not None and not self.prefs.study_locked:
            from infracards.services.unlock import unlocked_decks  # with the seal: only if needed

            unlocked = self.deck_id in unlocked_decks(self.engine, self.home)
        with transaction(self.engine, write=True) as session:
            today = self.today()
            if self.practice is not None:
                self.queue = StudyQueue(pending=self.practice.cards)
            else:
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
    def changes_schedule(self) -> bool:
        """Whether grading the card in front moves its SM-2 schedule (not in a drill or in
        practice)."""
        return self.practice is None and not self.is_drill

    @property
    def can_undo(self) -> bool:
        return bool(self.history)

    @property
    def graded(self) -> list[Graded]:
        return [step.graded for step in self.history if step.graded is not None]

    @property
    def progress(self) -> Progress:
        return Progress(
            done=len(self.graded), remaining=self.queue.remaining, drills=len(self.queue.drills)
        )

    def intervals(self) -> dict[int, int]:
        """The interval each grade would give the card in front (the grade bar's labels)."""
        if self.card is None:
            return {}
        return next_intervals(self.card.state)

    def reveal(self) -> KeyPointCheck | None:
        """Turn the card in front over: its key points become a checklist to tick."""
        if self.card is None:
            raise InfracardsError("the session has no card left to reveal")
        self.check = open_check(self.answers, self.card)
        return self.check

    def toggle_point(self, index: int) -> bool:
        """Tick or untick key point ``index`` of the revealed card; False if there is none."""
        return self.check is not None and self.check.toggle(index)

    def toggle_recognised(self) -> bool:
        if self.check is None:
            return False
        self.check.toggle_recognised()
        return True

    @property
    def suggested_grade(self) -> int | None:
        """The grade the ticked points suggest (None without a checklist)."""
        return self.check.suggested if self.check is not None else None

    def grade(self, quality: int) -> Graded:
        """Commit a grade for the card in front, then bring the next card forward.

        The key points ticked go with it (by index) if the learner used the checklist or
        confirmed its suggested grade."""
        card = self.card
        if card is None:
            raise InfracardsError("the session has no card left to grade")
        duration_ms = int((self.timer() - self.shown_at) * 1000)
        recalled = self.check.record_for(quality) if self.check is not None else None
        graded = grade_card(
            self.engine,
            card=card,
            quality=quality,
            drill=self.is_drill,
            now=self.clock(),
            today=self.today(),
            duration_ms=duration_ms,
            session_id=self.session_id,
            recalled=recalled,
            practice=self.practice.kind if self.practice is not None else None,
            leech_threshold=self.prefs.leech_threshold,
        )
        self.history.append(
            Step(graded=graded, queue=self.queue, card=card, duration_ms=duration_ms)
        )
        # A card just suspended as a leech is not drilled again today.
        self.queue = (
            self.queue.without_current() if graded.leech else self.queue.after_grade(quality)
        )
        self._since_checkpoint += 1
        self._load_current()
        return graded

    def suspend(self) -> CardRecord:
        """Suspend the card in front: out of this session and every queue until unsuspended."""
        return self._hide(SUSPENDED)

    def bury(self) -> CardRecord:
        """Bury the card in front: out of today's queue; it comes back on the next study day
        with its schedule untouched."""
        return self._hide(BURIED)

    def _hide(self, how: str) -> CardRecord:
        card = self.card
        if card is None:
            raise InfracardsError("the session has no card in front")
        with transaction(self.engine, write=True) as session:
            if how == SUSPENDED:
                set_suspended(session, card_pks=[card.pk], suspended=True)
            else:
                bury(session, card_pks=[card.pk], day=self.today())
        self.history.append(Step(None, self.queue, card, 0, hidden=how))
        self.queue = self.queue.without_current()
        self._load_current()
        return card

    def undo(self) -> Step:
        """Take back the last step: a grade's log entry goes and the card's state returns, or
        a suspended or buried card comes back; the queue is as it was. After ``end`` (from
        the summary) the session is open again."""
        if not self.history:
            raise InfracardsError("nothing to undo in this session")
        step = self.history[-1]
        if step.graded is not None:
            undo_grade(self.engine, graded=step.graded)
        else:
            with transaction(self.engine, write=True) as session:
                if step.hidden == SUSPENDED:
                    set_suspended(session, card_pks=[step.card.pk], suspended=False)
                else:
                    bury(session, card_pks=[step.card.pk], day=None)
        self.history.pop()
        self.queue = step.queue
        self._reopen()
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
        if self.session_id is None or self.ended:
            return
        self.ended = True
        # Only a note, not progress: every grade is committed already, so a store that cannot
        # take it (full disk, read-only folder) must not make leaving fail.
        with suppress(InfracardsError), transaction(self.engine, write=True) as session:
            end_session(session, session_id=self.session_id, now=self.clock())

    def _reopen(self) -> None:
        """An undo from the summary continues the session: it is open in the log again."""
        if not self.ended or self.session_id is None:
            return
        self.ended = False
        with suppress(InfracardsError), transaction(self.engine, write=True) as session:
            reopen_session(session, session_id=self.session_id)

    def summary(self) -> SessionSummary:
        grades = self.graded
        card_ids = {step.card.pk: step.card.card_id for step in self.history}
        return SessionSummary(
            cards=len({g.card_pk for g in grades}),
            answers=len(grades),
            drills=sum(g.drill for g in grades),
            grades=dict(Counter(g.quality for g in grades)),
            seconds=(self.clock() - self.started_at).total_seconds(),
            next_due={
                card_ids[g.card_pk]: g.due for g in grades if not g.drill and g.due is not None
            },
            left=self.queue.remaining,
            practice=self.practice.title if self.practice is not None else None,
            leeches=tuple(card_ids[g.card_pk] for g in grades if g.leech),
            hidden=tuple((step.card.card_id, step.hidden) for step in self.history if step.hidden),
            can_undo=self.can_undo,
        )

    def _load_current(self) -> CardRecord | None:
        with transaction(self.engine) as session:
            if self.queue.needs_loading:
                self.queue = load_queue_page(session, queue=self.queue)
            card_pk = self.queue.current
            self.card = load_card(session, pk=card_pk) if card_pk is not None else None
        self.check = None
        self.shown_at = self.timer()
        return self.card
