"""The mock interview and the key-point checklist in the real app (Pilot, real store), the
clock driven by a fake time source: no sleeps."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from infracards.tui.app import InfracardsApp, MockOptions
from infracards.tui.context import AppContext
from infracards.tui.screens.home import HomeScreen
from infracards.tui.screens.mock import MockReportScreen, MockReserve, MockScreen
from infracards.tui.screens.review import ReviewScreen
from infracards.tui.widgets.card_view import CardView
from infracards.tui.widgets.checklist import KeyPointList, PointLine
from infracards.tui.widgets.grade_bar import GradeBar
from tests.conftest import db_rows

SIZE = (100, 32)


class FakeTimer:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


def text(app: InfracardsApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def points(app: InfracardsApp) -> list[str]:
    return [line.plain for line in app.screen.query_one(KeyPointList).query(PointLine)]


async def test_the_countdown_runs_out_the_learner_ticks_and_the_report_adds_misses_to_today(
    context: AppContext, home: Path, today: date
) -> None:
    timer = FakeTimer()
    options = MockOptions("sample", questions=1, minutes=2, topic="communication")
    app = InfracardsApp(replace(context, timer=timer), start_mock=options)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MockScreen) and screen.card is not None
        assert screen.card.card_id == "q01"
        assert "Mock interview 1/1" in text(app, "#mock-clock") and "2:00 left" in text(
            app, "#mock-clock"
        )
        await pilot.press(*"ring", "space", *"2(N-1)/N")  # typed into the notes
        assert screen.query_one(TextArea).text == "ring 2(N-1)/N"
        await pilot.press("a")  # a letter is typed while the clock runs, never a tick
        assert not screen.revealed and screen.query_one(TextArea).text.endswith("/Na")
        timer.now += 89.2
        screen.tick()
        assert "0:31 left" in text(app, "#mock-clock") and not screen.revealed
        timer.now += 31
        screen.tick()  # time is up: checklist and reference answer appear
        await pilot.pause()
        assert screen.revealed and "time's up" in text(app, "#mock-clock")
        assert screen.query_one(TextArea).read_only
        assert points(app) == ["a ☐ 等价于 Reduce-Scatter + All-Gather", "b ☐ 每卡发送 2(N-1)/N·S"]
        await pilot.press("a")
        await pilot.pause()
        assert points(app)[0].startswith("a ☑") and "1 of 2 covered" in text(app, "#mock-hint")
        await pilot.click(PointLine)  # a click on the first point unticks it again
        await pilot.press("b")
        assert [p[:3] for p in points(app)] == ["a ☐", "b ☑"]
        await pilot.press("n")
        assert isinstance(app.screen, MockReportScreen)
        report = text(app, "#summary-body")
        assert "Score 50% (1 of 2 key points)" in report
        assert "q01" in report and "1/2 points" in report and "2:00 of 2:00, time up" in report
        assert db_rows(home, "SELECT count(*) FROM review") == [(0,)]  # no schedule touched
        assert db_rows(home, "SELECT notes, recalled, seconds_used FROM mockquestion") == [
            ("ring 2(N-1)/Na", 0b10, 120)
        ]
        await pilot.press("t")  # the missed card goes into today's review
        assert db_rows(home, "SELECT due FROM cardstate WHERE card = 1") == [(today.isoformat(),)]
        await pilot.press("enter")
        assert isinstance(app.screen, HomeScreen)


async def made_ready(app: InfracardsApp, pilot: Pilot[None]) -> MockScreen:
    """The interview Home makes ready while it waits for a key, once it is composed."""
    for _ in range(200):
        await pilot.pause(0.01)
        reserve = app.mock_reserve
        if reserve is not None and reserve.ready is not None and reserve.ready.screen.is_mounted:
            return reserve.ready.screen
    raise AssertionError("Home made no mock interview ready")


@pytest.mark.parametrize("made_ahead", [True, False], ids=["m on Home", "other options"])
async def test_the_notes_have_the_focus_in_every_frame_from_the_first(
    context: AppContext, made_ahead: bool
) -> None:
    """The learner can type at once, and the first frame is the settled one: no frame shows
    the focus (its highlight) on the card first. So whether the interview was made ready on
    Home or is drawn and composed when asked for."""
    app = InfracardsApp(context)
    async with app.run_test(size=SIZE) as pilot:
        ready = await made_ready(app, pilot)
        if made_ahead:
            app.action_mock()  # what m does, without waiting past the first frame
            assert app.screen is ready
        else:
            app.open_mock(MockOptions("sample", questions=2))
            assert app.screen is not ready
        screen = app.screen
        focused_when_drawn: list[object] = []
        screen.screen_layout_refresh_signal.subscribe(
            app, lambda drawn: focused_when_drawn.append(drawn.focused), immediate=True
        )
        await pilot.pause()
        notes = screen.query_one(TextArea)
        assert focused_when_drawn and all(widget is notes for widget in focused_when_drawn)
        await pilot.press("x")
        assert notes.text == "x"


async def test_a_sealed_question_has_no_checklist_and_says_so(context: AppContext) -> None:
    timer = FakeTimer()
    options = MockOptions("sample", questions=1, topic="pipeline")
    app = InfracardsApp(replace(context, timer=timer), start_mock=options)
    async with app.run_test(size=SIZE) as pilot:
        timer.now += 42
        await pilot.press("ctrl+r")  # on a key, before the time is up
        message = str(app.screen.query_one("#points-title", Static).render())
        assert "No key-point checklist" in message and "sealed" in message
        assert "0:00" not in text(app, "#mock-clock")
        await pilot.press("n")
        assert "question only" in text(app, "#summary-body")


async def test_the_review_checklist_ticks_by_key_and_click_and_enter_confirms_the_suggestion(
    app: InfracardsApp, home: Path
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space")
        assert isinstance(app.screen, ReviewScreen)
        bar = app.screen.query_one(GradeBar)
        assert bar.suggested == 0  # nothing ticked yet
        await pilot.press("b")
        assert bar.suggested == 4 and [p[:3] for p in points(app)] == ["a ☐", "b ☑"]
        await pilot.click(PointLine)  # point a, with the mouse
        assert bar.suggested == 5
        hint = str(app.screen.query_one("#points-hint", Static).render())
        assert "2 of 2 said → suggested grade 5" in hint
        await pilot.press("enter")
        assert db_rows(home, "SELECT grade, points, recalled FROM review") == [(5, 2, 0b11)]
        # q03 is sealed and the deck locked: question-only, and the screen says so.
        await pilot.press("space", "5", "space")
        message = str(app.screen.query_one("#points-title", Static).render())
        assert "No key-point checklist" in message
        await pilot.press("a")  # nothing to tick
        assert bar.suggested is None


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


async def test_m_on_home_opens_the_interview_drawn_ahead_and_its_clock_starts_then(
    context: AppContext, home: Path, now: datetime
) -> None:
    """Home draws an interview and composes its screen while it waits; `m` shows it. Its
    countdown and its start time are those of the moment it opens, not of its draw."""
    timer, clock = FakeTimer(), Clock(now)
    app = InfracardsApp(replace(context, timer=timer, clock=clock))
    async with app.run_test(size=SIZE) as pilot:
        ready = await made_ready(app, pilot)
        timer.now += 100
        clock.now += timedelta(seconds=100)
        await pilot.press("m")
        assert app.screen is ready and ready.card is not None
        assert "Mock interview 1/4" in text(app, "#mock-clock")  # the deck's four cards
        assert "3:00 left" in text(app, "#mock-clock")
        await pilot.press("ctrl+r")  # at once: the card view, mounted after the first frame
        await pilot.pause()
        view = ready.query_one(CardView)  # the answer, or why it is sealed
        shown = [widget.id for widget in view.query("#card-answer, #card-notice") if widget.display]
        assert ready.revealed and view.region.height > 5 and len(shown) == 1
        assert app.mock_reserve is not None and app.mock_reserve.ready is None  # taken
        timer.now += 7
        await pilot.press("n")
        await pilot.pause(0.2)  # the next answer is laid out ahead, for the width it is shown at
        assert ready.card is not None and ready.prepared is not None
        assert ready.prepared.fits(ready.card, view.answer_width) and view.answer_width > 60
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MockReportScreen)
    [(started_at, seconds)] = db_rows(
        home,
        "SELECT m.started_at, q.seconds_used FROM mocksession m JOIN mockquestion q ON q.mock = m.id",
    )
    assert started_at.startswith(clock.now.strftime("%Y-%m-%d %H:%M:%S")) and seconds == 0


async def test_a_draw_made_ahead_is_used_only_fresh_for_m_and_while_home_is_shown(
    context: AppContext, now: datetime
) -> None:
    timer, clock = FakeTimer(), Clock(now)
    app = InfracardsApp(replace(context, timer=timer, clock=clock))
    async with app.run_test(size=SIZE) as pilot:
        ready = await made_ready(app, pilot)
        app.open_mock(MockOptions("sample", questions=2))  # other options: drawn now
        assert isinstance(app.screen, MockScreen) and app.screen is not ready
        assert app.screen.mock.total == 2
        await pilot.press("escape")  # nothing answered: back to Home
        ready = await made_ready(app, pilot)  # drawn again now Home is shown again
        timer.now += MockReserve.KEPT_FOR_S + 1
        await pilot.press("m")  # too old: drawn and composed afresh, and it works as well
        screen = app.screen
        assert isinstance(screen, MockScreen) and screen is not ready
        assert not ready.is_attached  # the stale one is gone
        assert screen.card is not None and "5:00" not in text(app, "#mock-clock")
        await pilot.press("escape")
        ready = await made_ready(app, pilot)
        timer.now += 10
        clock.now += timedelta(days=1)  # young, but drawn from yesterday's queue
        await pilot.press("m")
        assert isinstance(app.screen, MockScreen) and app.screen is not ready
        assert not ready.is_attached
        await pilot.press("escape")
        ready = await made_ready(app, pilot)
        await pilot.press("ctrl+p", *"Mock interview")  # the palette keeps it ready
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is ready
        await pilot.press("escape")
        ready = await made_ready(app, pilot)
        await pilot.press("r")  # a review may change what a draw picks: dropped
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        assert app.mock_reserve is not None and app.mock_reserve.ready is None
        assert not ready.is_attached
        await pilot.press("q")
        assert await made_ready(app, pilot) is not ready


@pytest.mark.parametrize("wait_ms", [0, 5, 10, 20, 30, 45])
async def test_quitting_while_home_makes_an_interview_ready_is_clean(
    context: AppContext, wait_ms: int
) -> None:
    """The app may quit while the interview is drawn or its screen composed: no error."""
    app = InfracardsApp(context)
    async with app.run_test(size=SIZE):
        await asyncio.sleep(wait_ms / 1000)
    assert app.return_code in (0, None)


async def test_the_clock_stays_on_one_line_however_narrow(context: AppContext) -> None:
    """At 60 columns "3:00 left" went onto a second line; the bar gives way instead."""
    options = MockOptions("sample", questions=1, topic="communication")
    app = InfracardsApp(context, start_mock=options)
    async with app.run_test(size=(60, 20)) as pilot:
        clock = app.screen.query_one("#mock-clock", Static)
        line = text(app, "#mock-clock")
        assert clock.region.height == 1 and line.endswith("3:00 left") and cell_len(line) <= 56
        assert 0 < line.count("━") < 20
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        assert text(app, "#mock-clock").count("━") == 20
