"""Review: the screen of a ``ReviewSession`` (services.review): it draws the session's card,
counts and grade bar, and forwards keys; the session owns the queue, grades, drills and undo."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from infracards.errors import InfracardsError
from infracards.records import CardRecord
from infracards.scheduler import StudyQueue
from infracards.services.formatting import progress_counts
from infracards.services.review import ReviewSession
from infracards.tui.context import AppContext, PreparedAnswer, prepare
from infracards.tui.messages import AnswersOpened
from infracards.tui.widgets.card_view import CardView
from infracards.tui.widgets.footer import KeysFooter
from infracards.tui.widgets.grade_bar import GradeBar

PREPARE_DELAY_S = 0.03
PROGRESS_CELLS = 20


def progress_line(*, done: int, remaining: int, drills: int) -> Content:
    """The session's one status line: counts, then a bar (the card gets the rest of the screen)."""
    total = done + remaining
    filled = PROGRESS_CELLS * done // total if total else PROGRESS_CELLS
    return Content.assemble(
        progress_counts(done=done, remaining=remaining, drills=drills),
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
        Binding("p", "toggle_prompt", "Question", id="prompt"),
        Binding("k", "app.unlock", "Unlock", id="unlock"),
        Binding("q,escape", "leave", "Leave", id="leave"),
    ]

    revealed: reactive[bool] = reactive(False, bindings=True)
    """True once the answer side is shown; grading is possible only then."""
    can_undo: reactive[bool] = reactive(False, bindings=True)

    def __init__(self, context: AppContext, *, deck_id: str) -> None:
        super().__init__()
        self.context = context
        self.deck_id = deck_id
        self.review = ReviewSession(
            context.engine, deck_id=deck_id, clock=context.clock, home=context.home
        )
        self.prepared: PreparedAnswer | None = None

    @property
    def card(self) -> CardRecord | None:
        """The card on screen (the session's card in front)."""
        return self.review.card

    @property
    def queue(self) -> StudyQueue:
        return self.review.queue

    @property
    def unlock_target(self) -> str | None:
        """The deck `k` unlocks: this one, while the card on screen is sealed."""
        return self.deck_id if self.card is not None and self.card.locked else None

    def compose(self) -> ComposeResult:
        yield Static(id="review-progress")
        yield CardView(id="card-view")
        yield GradeBar(id="grade-bar")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.review.start()
        self.show_current()

    def on_unmount(self) -> None:
        self.review.end()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that work right now appear in the footer."""
        if action == "grade":
            return self.revealed
        if action == "reveal":
            return not self.revealed and self.card is not None
        if action == "undo":
            return self.can_undo
        if action == "toggle_prompt":
            return self.revealed and self.query_one(CardView).prompt_is_long
        return True

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
        """Show the question side of the session's card in front, or finish the session."""
        card = self.card
        if card is None:
            self.finish()
            return
        caption = "drill: again until graded 4+" if self.review.is_drill else ""
        self.query_one(CardView).show_card(
            card_id=card.card_id, tags=card.tags, prompt=card.prompt, caption=caption
        )
        self.query_one(GradeBar).display = False
        self.revealed = False
        self.can_undo = self.review.can_undo
        self.refresh_bindings()  # `k` depends on the card, which the reactives above may not
        progress = self.review.progress
        self.query_one("#review-progress", Static).update(
            progress_line(done=progress.done, remaining=progress.remaining, drills=progress.drills)
        )
        self.prepared = None
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
        bar.show_intervals(self.review.intervals(), drill=self.review.is_drill)
        bar.display = True
        self.revealed = True

    @on(GradeBar.Graded)
    def _grade_clicked(self, event: GradeBar.Graded) -> None:
        self.action_grade(event.quality)

    def action_grade(self, quality: int) -> None:
        if self.card is None or not self.revealed:
            return
        try:
            self.review.grade(quality)
        except InfracardsError as error:
            # Nothing was written: the card stays on screen so the grade can be given again.
            self.notify(f"Grade not saved: {error}", severity="error", timeout=10)
            return
        self.show_current()
        if self.review.claim_checkpoint():
            self.set_timer(PREPARE_DELAY_S, self.checkpoint)

    @work(thread=True, exclusive=True, group="checkpoint")
    def checkpoint(self) -> None:
        """Copy the log into the database file while the learner reads, not inside a grade."""
        self.review.checkpoint()

    def action_undo(self) -> None:
        if not self.review.can_undo:
            return
        try:
            step = self.review.undo()
        except InfracardsError as error:
            self.notify(f"Undo failed, the grade stays: {error}", severity="error", timeout=10)
            return
        self.show_current()
        self.notify(f"Undid grade {step.graded.quality} on {step.card.card_id}", timeout=2)

    def action_toggle_prompt(self) -> None:
        """The whole question, or one line again (once the answer is out)."""
        view = self.query_one(CardView)
        view.expand_prompt(view.prompt_collapsed)

    def action_leave(self) -> None:
        """Leave early: every grade so far is already committed."""
        self.finish()

    def finish(self) -> None:
        self.review.end()
        if not self.review.history:
            self.dismiss()
            if self.card is None:
                self.app.notify("Nothing to review in this deck today.", timeout=3)
            return
        from infracards.tui.screens.summary import SummaryScreen

        self.app.switch_screen(SummaryScreen(self.review.summary()))
