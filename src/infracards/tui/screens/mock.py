"""Mock interview: the screen of a ``MockInterview`` (services.mock). A question and a countdown;
the learner answers aloud or types notes; at time-out or on ctrl+r the key-point checklist and
the reference answer appear, and the learner ticks what they covered. Then the report.

The countdown reads the context's ``timer`` (a fake one in tests) whenever the interval fires;
ticking a point restyles two lines and touches no store, so it stays within a frame. Opening
one from Home does too: Home makes it ready while it waits for a key (``MockReserve``), and its
first frame holds only what the question needs.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from dataclasses import dataclass
from datetime import date
from functools import partial

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Header, Static, TextArea

from infracards.errors import InfracardsError
from infracards.records import CardRecord, MockOptions
from infracards.services.formatting import clock_text, key_points_heading, mock_report_text
from infracards.services.keypoints import POINT_KEYS, RECOGNISED_KEY
from infracards.services.mock import (
    DEFAULT_QUESTIONS,
    MockInterview,
    MockReport,
    add_missed_to_today,
)
from infracards.tui.checking import show_check, show_ticks
from infracards.tui.context import AppContext, PreparedAnswer, prepare
from infracards.tui.messages import AnswersOpened
from infracards.tui.text import literal, notice
from infracards.tui.widgets.card_view import CardView, card_meta
from infracards.tui.widgets.checklist import KeyPointList
from infracards.tui.widgets.footer import KeysFooter

CLOCK_TICK_S = 0.25
CLOCK_CELLS = 20
HURRY_BELOW_S = 30
PREPARE_DELAY_S = 0.03


def clock_line(
    *, number: int, total: int, topic: str, left: float, limit: int, width: int
) -> Content:
    """Question n of N, its topic, and the time left as digits and a draining bar, which
    shrinks to keep the line within ``width`` cells (at 60 columns the time went onto a
    second line)."""
    style = "$error" if left <= 0 else "$warning" if left <= HURRY_BELOW_S else "$primary"
    status = " time's up" if left <= 0 else f" {clock_text(left)} left"
    heading = f"Mock interview {number}/{total} · {notice(topic)}   "
    cells = max(0, min(CLOCK_CELLS, width - cell_len(heading) - cell_len(status)))
    filled = round(cells * left / limit) if limit else 0
    return Content.assemble(
        heading,
        ("━" * filled, style),
        ("━" * (cells - filled), "$surface-lighten-1"),
        (status, style),
    )


def open_mock_screen(context: AppContext, options: MockOptions) -> MockScreen:
    """A mock interview of a deck with its questions drawn (``InfracardsError`` if it has none
    to ask). Drawn before the screen is pushed: it opens with its first question, and the
    footer composes the keys that question offers, in its first frame.
    """
    return MockScreen(context, draw_mock(context, options))


def draw_mock(context: AppContext, options: MockOptions) -> MockInterview:
    """A mock interview with its questions drawn (safe in a worker thread)."""
    mock = MockInterview(
        context.engine,
        deck_id=options.deck_id,
        clock=context.clock,
        timer=context.timer,
        answers=context.answers,
        questions=options.questions or DEFAULT_QUESTIONS,
        minutes=options.minutes,
        topic=options.topic,
    )
    mock.start()
    return mock


class MockScreen(Screen[None]):
    """One mock interview of one deck, its questions drawn (``open_mock_screen``)."""

    BINDINGS = [
        Binding("ctrl+r", "reveal", "Check now", id="reveal"),
        Binding(POINT_KEYS[0], "tick(0)", "Tick", key_display=f"a-{POINT_KEYS[-1]}", id="tick"),
        *(
            Binding(key, f"tick({index})", show=False)
            for index, key in enumerate(POINT_KEYS[1:], start=1)
        ),
        Binding(RECOGNISED_KEY, "recognised", "Recognised", id="recognised"),
        Binding("n,enter", "next", "Next question", id="next"),
        Binding("0", "count(0)", "Count as review", key_display="0-5", id="count"),
        *(Binding(str(quality), f"count({quality})", show=False) for quality in range(1, 6)),
        Binding("k", "app.unlock", "Unlock", id="unlock"),
        Binding("escape", "leave", "End", id="leave"),
    ]

    AUTO_FOCUS = "#mock-notes"
    """Focused as the screen composes, so its first frame is the settled one: the card body,
    Textual's first pick, took the focus for a frame and gave it to the notes a frame later."""

    revealed: reactive[bool] = reactive(False, bindings=True)

    def __init__(self, context: AppContext, mock: MockInterview) -> None:
        super().__init__()
        self.context = context
        self.deck_id = mock.deck_id
        self.mock = mock
        self.prepared: PreparedAnswer | None = None
        self.made_ahead = False
        """Composed while Home waits for a key, not when asked for (``MockReserve``)."""
        self.begun = False
        """Shown at least once: the interview's clock runs."""
        self.view_mounted = asyncio.Event()

    @property
    def card(self) -> CardRecord | None:
        return self.mock.card

    @property
    def unlock_target(self) -> str | None:
        return self.deck_id if self.card is not None and self.card.locked else None

    def compose(self) -> ComposeResult:
        """What the question needs; the card view (key points, answer) comes after the first
        frame (``on_screen_resume``): each widget the screen has when it is first shown costs
        its first frame about a millisecond of styling and drawing."""
        yield Static(id="mock-clock")
        yield Static(id="mock-question")
        notes = TextArea(id="mock-notes", soft_wrap=True, show_line_numbers=False)
        notes.border_title = "Your notes (kept with this interview)"
        yield notes
        yield Static(id="mock-hint")
        yield KeysFooter()

    def on_mount(self) -> None:
        """A screen composed ahead shows its question when it is taken (``MockReserve``):
        not here, where an app quitting meanwhile has already closed its widgets."""
        if not self.made_ahead:
            self.show_question()

    def on_screen_resume(self) -> None:
        """The interview begins when first shown (its screen may have been composed ahead,
        while Home waited for a key: ``MockReserve``). Its clock starts now; the card view
        follows the first frame."""
        if self.begun:
            return
        self.begun = True
        self.mock.begin_now()
        self.show_clock()
        self.call_after_refresh(self.mount_card_view)

    async def mount_card_view(self) -> None:
        """Out of sight until the reveal, and laid out, so that the answer is prepared for the
        width it is shown at."""
        await self.mount(CardView(id="card-view"), after="#mock-question")
        self.view_mounted.set()
        self.set_interval(CLOCK_TICK_S, self.tick)
        if self.card is not None:
            self.prepare_soon(self.card)

    @property
    def notes(self) -> TextArea:
        return self.query_one("#mock-notes", TextArea)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that come and go with each reveal and question answer None (disabled, so
        not drawn), as in a review."""
        if action == "reveal":
            return (not self.revealed and self.card is not None) or None
        if action in ("tick", "recognised"):
            return (self.revealed and self.mock.check is not None) or None
        if action in ("next", "count"):
            return self.revealed or None
        return True

    def show_question(self) -> None:
        card = self.card
        if card is None:
            self.finish()
            return
        self.revealed = False
        meta = card_meta(card.card_id, card.tags)
        meta.stylize("dim")
        question = Text.assemble(meta, "\n", literal(card.prompt))
        self.query_one("#mock-question", Static).update(question)
        notes = self.notes
        notes.read_only = False
        self.remove_class("revealed")
        notes.load_text("")
        notes.focus()
        self.query_one("#mock-hint", Static).update(
            "Answer aloud, or type notes. ctrl+r shows the key points and the reference answer;"
            " time-out does too."
        )
        self.show_clock()
        self.prepared = None
        if self.begun:
            self.prepare_soon(card)

    def prepare_soon(self, card: CardRecord) -> None:
        """After the question's frame, so laying out its answer does not hold that back."""
        self.set_timer(PREPARE_DELAY_S, lambda: self.prepare_answer(card))

    @work(thread=True, exclusive=True, group="prepare-answer")
    def prepare_answer(self, card: CardRecord) -> None:
        """Lay out the reference answer while the learner answers, so reveal is instant."""
        prepared = prepare(self.context, card, width=self.query_one(CardView).answer_width)
        self.app.call_from_thread(self._prepared, prepared)

    def _prepared(self, prepared: PreparedAnswer) -> None:
        if self.card is not None and prepared.card_pk == self.card.pk:
            self.prepared = prepared

    def tick(self) -> None:
        """The countdown: redraw the clock, and reveal when the time has run out."""
        if self.card is None:
            return
        if self.mock.tick():
            self.show_answer()
        self.show_clock()

    def on_resize(self) -> None:
        self.show_clock()  # its bar fits the new width

    def show_clock(self) -> None:
        card = self.card
        if card is None:
            return
        clock = self.query_one("#mock-clock", Static)
        clock.update(
            clock_line(
                number=self.mock.index + 1,
                total=self.mock.total,
                topic=card.topic,
                left=self.mock.remaining_seconds,
                limit=self.mock.seconds_per_question,
                # The screen's width, known before the clock is first laid out.
                width=self.app.size.width - clock.styles.gutter.width,
            )
        )

    async def action_reveal(self) -> None:
        await self.view_mounted.wait()  # pressed within milliseconds of the first frame
        if self.card is None or self.revealed:
            return
        self.mock.reveal()
        self.show_answer()
        self.show_clock()

    def show_answer(self) -> None:
        """The checklist first, then the reference answer; the notes stay, read-only."""
        card = self.card
        assert card is not None
        notes = self.notes
        self.mock.notes = notes.text
        view = self.query_one(CardView)
        prepared = self.prepared
        if prepared is None or not prepared.fits(card, view.answer_width):
            prepared = prepare(self.context, card, width=view.answer_width)
        view.show_card(card_id=card.card_id, tags=card.tags, prompt=card.prompt)
        view.reveal(prepared.rendered, notice=prepared.notice)
        heading = key_points_heading(card.language)
        show_check(view.key_points, self.mock.check, locked=card.locked, heading=heading)
        notes.read_only = True
        self.add_class("revealed")
        view.body.focus()
        self.revealed = True
        self._hint()

    def _hint(self) -> None:
        check = self.mock.check
        covered = "" if check is None else f"{len(check.ticked)} of {check.points} covered · "
        suggested = "" if check is None else f" (★ {check.suggested} suggested)"
        self.query_one("#mock-hint", Static).update(
            f"{covered}n next question · 0–5 count it as a normal review too{suggested}"
        )

    def action_tick(self, index: int) -> None:
        if self.mock.toggle_point(index) and self.mock.check is not None:
            show_ticks(self.query_one(KeyPointList), self.mock.check)
            self._hint()

    def action_recognised(self) -> None:
        if self.mock.toggle_recognised() and self.mock.check is not None:
            show_ticks(self.query_one(KeyPointList), self.mock.check)

    @on(KeyPointList.Toggled)
    def _point_clicked(self, event: KeyPointList.Toggled) -> None:
        self.action_tick(event.index)

    def action_count(self, quality: int) -> None:
        """Count this question as a normal graded review, then go on."""
        if not self.revealed:
            return
        try:
            self.mock.count_as_review(quality)
        except InfracardsError as error:
            failed = notice(f"Not counted: {error}")
            self.notify(failed, severity="error", timeout=8, markup=False)
            return
        self.action_next()

    def action_next(self) -> None:
        if not self.revealed:
            return
        try:
            self.mock.next()
        except InfracardsError as error:
            failed = notice(f"Not saved: {error}")
            self.notify(failed, severity="error", timeout=10, markup=False)
            return
        self.show_question()

    def action_leave(self) -> None:
        """End early: the questions answered so far make the report."""
        self.finish()

    def finish(self) -> None:
        try:
            report = self.mock.finish()
        except InfracardsError as error:
            failed = notice(f"The interview's end was not saved: {error}")
            self.notify(failed, severity="error", markup=False)
            report = self.mock.report()
        if not report.questions:
            self.dismiss()
            return
        self.app.switch_screen(MockReportScreen(self.context, report))

    def on_answers_opened(self, _message: AnswersOpened) -> None:
        """A sealed question's answer and checklist appear once its deck is unlocked."""
        if self.card is not None and self.revealed:
            self.prepared = None
            self.mock.reopen_check()
            self.show_answer()
        self.refresh_bindings()


@dataclass(frozen=True, slots=True)
class ReadyMock:
    """A mock interview drawn and composed ahead, and when (``MockReserve``)."""

    screen: MockScreen
    study_day: date
    drawn_at: float
    """The context's timer when it was drawn."""


class MockReserve:
    """One mock interview made ready while Home waits for a key, so that ``m`` only shows it.

    Opening one costs about three frames at 100,000 cards, nearly all before its first frame:
    the draw (5–10 ms of store reads) and composing the screen (Textual styles and mounts each
    widget). Both are done ahead: the draw in a thread, the screen composed but not shown. It
    is used for the deck it was drawn for, with the default options, on the same study day,
    within ``KEPT_FOR_S``; it is drawn again whenever Home is shown (a review or an unlock
    changes what a draw would pick). Anything else (``infracards mock`` with options, say) is
    drawn and composed when asked for.
    """

    KEPT_FOR_S = 300.0

    def __init__(self, app: App[None], context: AppContext) -> None:
        self.app = app
        self.context = context
        self.ready: ReadyMock | None = None
        self.drawing: str | None = None
        """The deck being drawn for now, in a thread."""

    def keep_for(self, deck_id: str | None) -> None:
        """Home's cursor is on this deck: draw ahead for it, unless that is under way or done
        (what was ready for another deck is dropped). None: Home is not shown, nothing is kept."""
        ready = self.ready.screen.deck_id if self.ready is not None else None
        if deck_id is not None and deck_id in (ready, self.drawing):
            return
        self.drop()
        if deck_id is not None:
            self.drawing = deck_id
            # Not exclusive: a thread cannot be stopped, and cancelling it only makes waiting
            # for the app's workers fail. A draw the learner has moved on from is ignored.
            self.app.run_worker(
                partial(self._draw, deck_id), thread=True, group="mock-reserve", exit_on_error=False
            )

    def _draw(self, deck_id: str) -> None:
        """In a thread: a deck with nothing to ask has no reserve (``m`` then says why)."""
        with suppress(InfracardsError):
            mock = draw_mock(self.context, MockOptions(deck_id=deck_id))
            self.app.call_from_thread(self._drawn, mock)

    def _drawn(self, mock: MockInterview) -> None:
        if mock.deck_id != self.drawing or self.ready is not None or not self.app.is_running:
            return  # the learner moved on (or quit) while it was drawn
        self.drawing = None
        screen = MockScreen(self.context, mock)
        screen.made_ahead = True
        # Composed now, out of sight. Textual has no public call for this: it is the one
        # `push_screen` makes first (the tests that take a screen made ready depend on it).
        self.app._register(self.app, screen)
        self.ready = ReadyMock(screen, mock.today(), self.context.timer())

    def take(self, options: MockOptions) -> MockScreen | None:
        """The interview made ready, if it is the one asked for and still fresh; it is then
        no longer in reserve."""
        ready = self.ready
        if ready is None or options != MockOptions(deck_id=ready.screen.deck_id):
            return None
        self.ready = None
        screen, mock = ready.screen, ready.screen.mock
        fresh = self.context.timer() - ready.drawn_at <= self.KEPT_FOR_S
        if screen.is_mounted and fresh and mock.today() == ready.study_day:
            screen.show_question()
            return screen
        screen.remove()  # still composing (asked for at once), or stale
        return None

    def drop(self) -> None:
        """Nothing in reserve (what was drawn goes, unshown: nothing of it was stored)."""
        if self.ready is not None:
            self.ready.screen.remove()
            self.ready = None
        self.drawing = None


class MockReportScreen(Screen[None]):
    """The end of a mock interview: per question, the score, the weakest topics, the misses."""

    BINDINGS = [
        Binding("t", "add_missed", "Add missed to today", id="add-missed"),
        Binding("s", "stats", "Statistics", id="stats"),
        Binding("enter,escape,q", "close", "Back", id="close"),
    ]

    def __init__(self, context: AppContext, report: MockReport) -> None:
        super().__init__()
        self.context = context
        self.report = report
        self.added = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Mock interview report", id="summary-title")
        yield Static(literal(mock_report_text(self.report)), id="summary-body")
        yield KeysFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "add_missed":
            return bool(self.report.missed) and not self.added
        return True

    def action_add_missed(self) -> None:
        """One key: the missed cards go into today's review (due today, schedule kept)."""
        try:
            moved = add_missed_to_today(
                self.context.engine, report=self.report, now=self.context.clock()
            )
        except InfracardsError as error:
            failed = notice(f"Nothing changed: {error}")
            self.notify(failed, severity="error", timeout=8, markup=False)
            return
        self.added = True
        self.refresh_bindings()
        cards = ", ".join(self.report.missed)
        added = f"In today's review: {cards}" + (
            "" if moved == len(self.report.missed) else " (some were due already)"
        )
        self.notify(notice(added), timeout=5, markup=False)

    async def action_stats(self) -> None:
        self.dismiss()
        await self.app.run_action("app.stats")

    def action_close(self) -> None:
        self.dismiss()
