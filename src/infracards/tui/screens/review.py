"""Review: today's queue, one card at a time, graded with SM-2 and committed at once."""

from __future__ import annotations

import time
from contextlib import suppress
from dataclasses import dataclass
from datetime import date

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from infracards.errors import InfracardsError
from infracards.records import CardRecord, StudyPrefs
from infracards.scheduler import StudyQueue, study_day
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
    load_card,
    load_queue_page,
    start_session,
)
from infracards.tui.context import AppContext, PreparedAnswer, prepare
from infracards.tui.messages import AnswersOpened, UnlockRequested
from infracards.tui.text import notice
from infracards.tui.widgets.card_view import CardView
from infracards.tui.widgets.footer import KeysFooter
from infracards.tui.widgets.grade_bar import GradeBar

PREPARE_DELAY_S = 0.03


@dataclass(slots=True)
class _Step:
    """What undo needs: the committed grade and the queue and card as they were before it."""

    graded: Graded
    queue: StudyQueue
    card: CardRecord
    duration_ms: int


PROGRESS_CELLS = 20


def progress_line(*, done: int, remaining: int, drills: int) -> Content:
    """The session's one status line: counts, then a bar (the card gets the rest of the screen)."""
    total = done + remaining
    filled = PROGRESS_CELLS * done // total if total else PROGRESS_CELLS
    counts = f"{done} answered · {remaining} to go" + (
        f" · {drills} to drill again" if drills else ""
    )
    return Content.assemble(
        counts,
        "   ",
        ("━" * filled, "$success" if filled == PROGRESS_CELLS else "$primary"),
        ("━" * (PROGRESS_CELLS - filled), "$surface-lighten-1"),
        f" {100 * done // total if total else 100}%",
    )


class ReviewScreen(Screen[None]):
    """One review session of one deck."""

    BINDINGS = [
        Binding("space,enter", "reveal", "Show answer", id="reveal"),
        Binding("0", "grade(0)", "Grade", key_display="0-5", id="grade"),
        *(Binding(str(quality), f"grade({quality})", show=False) for quality in range(1, 6)),
        Binding("u,ctrl+z", "undo", "Undo", id="undo"),
        Binding("k", "unlock", "Unlock", id="unlock"),
        Binding("q,escape", "leave", "Leave", id="leave"),
    ]

    revealed: reactive[bool] = reactive(False, bindings=True)
    """True once the answer side is shown; grading is possible only then."""
    can_undo: reactive[bool] = reactive(False, bindings=True)

    def __init__(self, context: AppContext, *, deck_id: str) -> None:
        super().__init__()
        self.context = context
        self.deck_id = deck_id
        self.queue = StudyQueue()
        self.card: CardRecord | None = None
        self.history: list[_Step] = []
        self.shown_at = time.monotonic()
        self.session_id: int | None = None
        self.prepared: PreparedAnswer | None = None
        self.prefs = StudyPrefs()
        self.started_at = context.clock()
        self.since_checkpoint = 0
        """Grades committed since the write-ahead log was last checkpointed."""

    def compose(self) -> ComposeResult:
        yield Static(id="review-progress")
        yield CardView(id="card-view")
        yield GradeBar(id="grade-bar")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.prefs = prefs = self.context.prefs()
        today = self.today()
        with transaction(self.context.engine, write=True) as session:
            self.queue = build_queue(session, deck_id=self.deck_id, today=today, prefs=prefs)
            self.session_id = start_session(
                session, now=self.started_at, study_day=today, deck_id=self.deck_id
            )
        self.show_current()

    def on_unmount(self) -> None:
        self.end_study_session()

    def end_study_session(self) -> None:
        """Record when the session ended, once, however the learner leaves it (q, quitting
        the app, nothing due)."""
        if self.session_id is None:
            return
        session_id, self.session_id = self.session_id, None
        # Only a note, not progress: every grade is committed already, so a store that cannot
        # take it (full disk, read-only folder) must not make leaving fail.
        with suppress(InfracardsError), transaction(self.context.engine, write=True) as session:
            end_session(session, session_id=session_id, now=self.context.clock())

    def today(self) -> date:
        """The study day now; settings are read once per session, so grading needs no query."""
        return study_day(self.context.clock(), rollover_hour=self.prefs.rollover_hour)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that work right now appear in the footer."""
        if action == "grade":
            return self.revealed
        if action == "reveal":
            return not self.revealed and self.card is not None
        if action == "undo":
            return self.can_undo
        if action == "unlock":
            return (
                self.card is not None
                and self.card.locked
                and not self.context.answers.is_unlocked(self.deck_id)
            )
        return True

    def action_unlock(self) -> None:
        self.post_message(UnlockRequested(self.deck_id))

    def on_answers_opened(self, _message: AnswersOpened) -> None:
        """Show the answer at once if the card on screen was waiting for its key."""
        if self.card is not None:
            view = self.query_one(CardView)
            self.prepared = prepare(self.context, self.card, width=view.answer_width)
            if self.revealed:
                view.hide_answer()
                view.reveal(self.prepared.rendered, notice=self.prepared.notice)
        self.refresh_bindings()

    def show_current(self) -> None:
        """Show the question side of the queue's current card, or finish the session."""
        with transaction(self.context.engine) as session:
            if self.queue.needs_loading:
                self.queue = load_queue_page(session, queue=self.queue)
            card_pk = self.queue.current
            if card_pk is not None:
                self.card = load_card(session, pk=card_pk)
        if card_pk is None:
            self.finish()
            return
        caption = "drill: again until graded 4+" if self.queue.current_is_drill else ""
        self.query_one(CardView).show_card(
            card_id=self.card.card_id,
            topic=self.card.topic,
            prompt=self.card.prompt,
            caption=caption,
        )
        self.query_one(GradeBar).display = False
        self.revealed = False
        self.can_undo = bool(self.history)
        self.query_one("#review-progress", Static).update(
            progress_line(
                done=len(self.history),
                remaining=self.queue.remaining,
                drills=len(self.queue.drills),
            )
        )
        self.shown_at = time.monotonic()
        self.prepared = None
        card = self.card
        # Start after this frame is drawn: rendering holds the GIL for 30-60 ms.
        self.set_timer(PREPARE_DELAY_S, lambda: self.prepare_answer(card))

    @work(thread=True, exclusive=True, group="prepare-answer")
    def prepare_answer(self, card: CardRecord) -> None:
        """Decrypt and lay out the answer while the learner thinks, so reveal is instant."""
        width = self.query_one(CardView).answer_width
        prepared = prepare(self.context, card, width=width)
        self.app.call_from_thread(self._prepared, prepared)

    def _prepared(self, prepared: PreparedAnswer) -> None:
        if self.card is not None and prepared.card_pk == self.card.pk:
            self.prepared = prepared

    def action_reveal(self) -> None:
        if self.card is None or self.revealed:
            return
        view = self.query_one(CardView)
        prepared = self.prepared
        if prepared is None or not prepared.fits(self.card, view.answer_width):
            prepared = prepare(self.context, self.card, width=view.answer_width)
        view.reveal(prepared.rendered, notice=prepared.notice)
        bar = self.query_one(GradeBar)
        bar.show_intervals(next_intervals(self.card.state), drill=self.queue.current_is_drill)
        bar.display = True
        self.revealed = True

    @on(GradeBar.Graded)
    def _grade_clicked(self, event: GradeBar.Graded) -> None:
        self.action_grade(event.quality)

    def action_grade(self, quality: int) -> None:
        if self.card is None or not self.revealed:
            return
        duration_ms = int((time.monotonic() - self.shown_at) * 1000)
        try:
            graded = grade_card(
                self.context.engine,
                card=self.card,
                quality=quality,
                drill=self.queue.current_is_drill,
                now=self.context.clock(),
                today=self.today(),
                duration_ms=duration_ms,
                session_id=self.session_id,
            )
        except InfracardsError as error:
            # Nothing was written: the card stays on screen so the grade can be given again.
            self.notify(
                notice(f"Grade not saved: {error}"), severity="error", timeout=10, markup=False
            )
            return
        self.history.append(
            _Step(graded=graded, queue=self.queue, card=self.card, duration_ms=duration_ms)
        )
        self.queue = self.queue.after_grade(quality)
        self.show_current()
        self.since_checkpoint += 1
        if self.since_checkpoint >= CHECKPOINT_EVERY:
            self.since_checkpoint = 0
            self.set_timer(PREPARE_DELAY_S, self.checkpoint)

    @work(thread=True, exclusive=True, group="checkpoint")
    def checkpoint(self) -> None:
        """Copy the log into the database file while the learner reads, not inside a grade."""
        checkpoint(self.context.engine)

    def action_undo(self) -> None:
        if not self.history:
            return
        step = self.history[-1]
        try:
            undo_grade(self.context.engine, graded=step.graded)
        except InfracardsError as error:
            message = notice(f"Undo failed, the grade stays: {error}")
            self.notify(message, severity="error", timeout=10, markup=False)
            return
        self.history.pop()
        self.queue = step.queue
        self.show_current()
        undone = notice(f"Undid grade {step.graded.quality} on {step.card.card_id}")
        self.notify(undone, timeout=2, markup=False)

    def action_leave(self) -> None:
        """Leave early: every grade so far is already committed."""
        self.finish()

    def finish(self) -> None:
        self.end_study_session()
        if not self.history:
            self.dismiss()
            if self.queue.current is None:
                self.app.notify("Nothing to review in this deck today.", timeout=3)
            return
        from infracards.tui.screens.summary import SessionSummary, SummaryScreen

        summary = SessionSummary.from_grades(
            [step.graded for step in self.history],
            card_ids={step.card.pk: step.card.card_id for step in self.history},
            seconds=(self.context.clock() - self.started_at).total_seconds(),
            left=self.queue.remaining,
        )
        self.app.switch_screen(SummaryScreen(summary))
