"""Review: the screen of a ``ReviewSession`` (services.review): it draws the session's card,
counts and grade bar, and forwards keys; the session owns the queue, grades, drills and undo."""

from __future__ import annotations

from collections.abc import Callable

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
from infracards.services.formatting import (
    NOTHING_TO_REVIEW,
    cells,
    key_points_heading,
    leech_notice,
    practice_caption,
    progress_counts,
)
from infracards.services.keypoints import POINT_KEYS, RECOGNISED_KEY
from infracards.services.library import notation_page
from infracards.services.review import Practice, ReviewSession
from infracards.tui.checking import show_check, show_ticks
from infracards.tui.context import AppContext, PreparedAnswer, prepare
from infracards.tui.messages import AnswersOpened
from infracards.tui.text import notice
from infracards.tui.widgets.card_view import CardView
from infracards.tui.widgets.checklist import KeyPointList
from infracards.tui.widgets.footer import KeysFooter
from infracards.tui.widgets.grade_bar import GradeBar

PREPARE_DELAY_S = 0.03
PROGRESS_CELLS = 20


def progress_line(*, done: int, remaining: int, drills: int, width: int | None = None) -> Content:
    """The session's one status line: counts, then a bar (the card gets the rest of the screen).

    In ``width`` cells the bar gets shorter rather than go onto a second line (at 60 columns
    "1 answered · 8 to go, 1 of them a drill" left it no room).
    """
    total = done + remaining
    counts = progress_counts(done=done, remaining=remaining, drills=drills)
    percent = f" {100 * done // total if total else 100}%"
    bar = PROGRESS_CELLS
    if width is not None:
        bar = max(0, min(bar, width - cells(counts) - len("   ") - len(percent)))
    filled = bar * done // total if total else bar
    return Content.assemble(
        counts,
        "   ",
        ("━" * filled, "$success" if filled == bar else "$primary"),
        ("━" * (bar - filled), "$surface-lighten-1"),
        percent,
    )


class ReviewScreen(Screen[None]):
    """One review session of one deck."""

    BINDINGS = [
        # In the order of their place in a narrow footer (KeysFooter leaves out the last).
        Binding("space,enter", "reveal", "Show answer", id="reveal"),
        Binding("0", "grade(0)", "Grade", key_display="0-5", id="grade"),
        *(Binding(str(quality), f"grade({quality})", show=False) for quality in range(1, 6)),
        Binding("u,ctrl+z", "undo", "Undo", id="undo"),
        Binding("k", "app.unlock", "Unlock", id="unlock"),
        Binding("p", "toggle_prompt", "Question", id="prompt"),
        Binding("equals_sign", "calculator", "Calculator", key_display="=", id="calculator"),
        Binding("n", "notation", "Notation", id="notation"),
        # After reveal: tick the key points said (keys a–i, none a grade), confirm the grade
        # they suggest with enter (the checklist's title says so too).
        Binding(POINT_KEYS[0], "tick(0)", "Tick", key_display=f"a-{POINT_KEYS[-1]}", id="tick"),
        *(
            Binding(key, f"tick({index})", show=False)
            for index, key in enumerate(POINT_KEYS[1:], start=1)
        ),
        Binding(RECOGNISED_KEY, "recognised", "Recognised", id="recognised"),
        Binding("enter", "confirm", "Confirm", show=False, id="confirm"),
        Binding("minus", "bury", "Bury", key_display="-", id="bury"),
        Binding("at", "suspend", "Suspend", key_display="@", id="suspend"),
        Binding("q,escape", "leave", "Leave", id="leave"),
    ]

    revealed: reactive[bool] = reactive(False, bindings=True)
    """True once the answer side is shown; grading is possible only then."""
    can_undo: reactive[bool] = reactive(False, bindings=True)

    def __init__(
        self,
        context: AppContext,
        *,
        deck_id: str,
        practice: Practice | None = None,
        resume: ReviewSession | None = None,
    ) -> None:
        """A review of today's queue, or extra ``practice``; ``resume`` continues a session
        whose summary was left by an undo."""
        super().__init__()
        self.context = context
        self.deck_id = deck_id
        self.review = resume or ReviewSession(
            context.engine,
            deck_id=deck_id,
            clock=context.clock,
            home=context.home,
            answers=context.answers,
            practice=practice,
        )
        self.prepared: PreparedAnswer | None = None
        self.notation: str | None = None
        """The deck's notation page, when it has one (`n`)."""

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
        self.notation = notation_page(self.context.engine, deck_id=self.deck_id)
        if self.review.session_id is None:
            self.review.start()
        self.show_current()

    def on_unmount(self) -> None:
        self.review.end()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that work right now appear in the footer. Keys that come and go with
        each card answer None (disabled, so not drawn), not False (no key of this screen)."""
        if action == "grade":
            return self.revealed or None
        if action == "reveal":
            return (not self.revealed and self.card is not None) or None
        if action == "undo":
            return self.can_undo or None
        if action == "calculator":
            return (self.card is not None and bool(self.card.calculators)) or None
        if action == "notation":
            return self.notation is not None
        if action in ("bury", "suspend"):
            return self.card is not None or None
        if action in ("tick", "recognised", "confirm"):
            return (self.revealed and self.review.check is not None) or None
        if action == "toggle_prompt":
            return (self.revealed and self.query_one(CardView).prompt_is_long) or None
        return True

    def on_answers_opened(self, _message: AnswersOpened) -> None:
        """Show the answer at once if the card on screen was waiting for its key."""
        if self.card is not None:
            view = self.query_one(CardView)
            self.prepared = prepare(self.context, self.card, width=view.answer_width)
            if self.revealed:
                view.hide_answer()
                view.reveal(self.prepared.rendered, notice=self.prepared.notice)
                self.show_checklist()
        self.refresh_bindings()

    def show_current(self) -> None:
        """Show the question side of the session's card in front, or finish the session."""
        card = self.card
        if card is None:
            self.finish()
            return
        caption = practice_caption(self.review.practice.title if self.review.practice else None)
        if self.review.is_drill:
            caption = f"{caption} · drill: again until graded 4+".lstrip(" ·")
        self.query_one(CardView).show_card(
            card_id=card.card_id, tags=card.tags, prompt=card.prompt, caption=caption
        )
        bar = self.query_one(GradeBar)
        bar.visible = False
        bar.suggest(None)
        self.revealed = False
        self.can_undo = self.review.can_undo
        self.refresh_bindings()  # `k` depends on the card, which the reactives above may not
        self.show_progress()
        self.prepared = None
        # Start after this frame is drawn: rendering holds the GIL for 30-60 ms.
        self.set_timer(PREPARE_DELAY_S, lambda: self.prepare_answer(card))

    def show_progress(self) -> None:
        progress = self.review.progress
        line = self.query_one("#review-progress", Static)
        line.update(
            progress_line(
                done=progress.done,
                remaining=progress.remaining,
                drills=progress.drills,
                width=line.content_region.width or None,
            )
        )

    def on_resize(self) -> None:
        self.show_progress()

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
        bar.show_intervals(self.review.intervals(), drill=not self.review.changes_schedule)
        bar.visible = True
        self.revealed = True
        self.show_checklist()

    def show_checklist(self) -> None:
        """The key points first, above the answer: a checklist to tick, or why there is none."""
        check = self.review.reveal()
        card = self.card
        if card is None:
            return
        heading = key_points_heading(card.language)
        show_check(self.query_one(CardView).key_points, check, locked=card.locked, heading=heading)
        self.query_one(GradeBar).suggest(check.suggested if check is not None else None)
        self.refresh_bindings()

    def show_suggestion(self) -> None:
        check = self.review.check
        if check is not None:
            show_ticks(self.query_one(KeyPointList), check)
            self.query_one(GradeBar).suggest(check.suggested)

    def action_tick(self, index: int) -> None:
        if self.revealed and self.review.toggle_point(index):
            self.show_suggestion()

    def action_recognised(self) -> None:
        if self.revealed and self.review.toggle_recognised():
            self.show_suggestion()

    @on(KeyPointList.Toggled)
    def _point_clicked(self, event: KeyPointList.Toggled) -> None:
        self.action_tick(event.index)

    def action_confirm(self) -> None:
        """Give the grade the ticked key points suggest."""
        suggested = self.review.suggested_grade
        if self.revealed and suggested is not None:
            self.action_grade(suggested)

    @on(GradeBar.Graded)
    def _grade_clicked(self, event: GradeBar.Graded) -> None:
        self.action_grade(event.quality)

    def action_grade(self, quality: int) -> None:
        if self.card is None or not self.revealed:
            return
        card = self.card
        try:
            graded = self.review.grade(quality)
        except InfracardsError as error:
            # Nothing was written: the card stays on screen so the grade can be given again.
            self.notify(
                notice(f"Grade not saved: {error}"), severity="error", timeout=10, markup=False
            )
            return
        if graded.leech:
            leech = notice(leech_notice(card.card_id))
            self.notify(leech, severity="warning", timeout=8, markup=False)
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
            message = notice(f"Undo failed, the grade stays: {error}")
            self.notify(message, severity="error", timeout=10, markup=False)
            return
        self.show_current()
        if step.graded is not None:
            undone = f"Undid grade {step.graded.quality} on {step.card.card_id}"
        else:
            undone = f"{step.card.card_id} is back: no longer {step.hidden}"
        self.notify(notice(undone), timeout=2, markup=False)

    def action_suspend(self) -> None:
        self._hide(self.review.suspend, "Suspended {}: out of every review")

    def action_bury(self) -> None:
        self._hide(self.review.bury, "Buried {} until tomorrow, schedule kept")

    def _hide(self, hide: Callable[[], CardRecord], message: str) -> None:
        if self.card is None:
            return
        try:
            card = hide()
        except InfracardsError as error:
            failed = notice(f"Nothing changed: {error}")
            self.notify(failed, severity="error", timeout=10, markup=False)
            return
        hidden = notice(f"{message.format(card.card_id)} · u undoes")  # one toast line
        self.notify(hidden, timeout=4, markup=False)
        self.show_current()

    def action_calculator(self) -> None:
        """The card's calculators; the answer's worked examples fill them once it is shown."""
        from infracards.tui.screens.calculator import open_calculator

        if self.card is not None and self.card.calculators:
            open_calculator(self, self.context, self.card, answer_shown=self.revealed)

    def action_notation(self) -> None:
        from infracards.tui.screens.notation import NotationScreen

        if self.notation is not None:
            self.app.push_screen(NotationScreen(deck_id=self.deck_id, markdown=self.notation))

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
                self.app.notify(NOTHING_TO_REVIEW, timeout=5)
            return
        from infracards.tui.screens.summary import SummaryScreen

        self.app.switch_screen(
            SummaryScreen(self.review.summary(), review=self.review, context=self.context)
        )
