"""Screenshots of interview practice at 80×24 and 120×40 (fixed date, deck and fake clock);
review the report before updating them."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine
from textual.pilot import Pilot
from textual.widgets import Select

from infracards.services.plan import set_interview_date
from infracards.tui.app import InfracardsApp, MockOptions
from infracards.tui.context import AppContext
from infracards.tui.screens.mock import MockScreen
from tests.conftest import grade_by_id

SIZES = [(80, 24), (120, 40)]


class FakeTimer:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_review_checklist_after_reveal(
    app: InfracardsApp, snap_compare: Any, size: tuple[int, int]
) -> None:
    """The 要点 first, one ticked, the suggested grade starred."""
    assert snap_compare(app, press=["r", "space", "b"], terminal_size=size)


def mock_app(context: AppContext, timer: FakeTimer) -> InfracardsApp:
    options = MockOptions("sample", questions=1, minutes=3, topic="communication")
    return InfracardsApp(replace(context, timer=timer), start_mock=options)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_mock_question_with_the_clock_running(
    context: AppContext, snap_compare: Any, size: tuple[int, int]
) -> None:
    timer = FakeTimer()

    async def answer(pilot: Pilot[None]) -> None:
        await pilot.press(*"ring: 2(N-1)/N")
        timer.now = 155.0  # 25 s left: the clock turns to a warning
        screen = pilot.app.screen
        assert isinstance(screen, MockScreen)
        screen.tick()
        await pilot.pause()

    assert snap_compare(mock_app(context, timer), run_before=answer, terminal_size=size)


def test_mock_question_revealed_at_time_out(context: AppContext, snap_compare: Any) -> None:
    timer = FakeTimer()

    async def time_out(pilot: Pilot[None]) -> None:
        await pilot.press(*"ring")
        timer.now = 181.0
        screen = pilot.app.screen
        assert isinstance(screen, MockScreen)
        screen.tick()
        await pilot.press("a")

    assert snap_compare(mock_app(context, timer), run_before=time_out, terminal_size=(80, 24))


def test_mock_report(context: AppContext, snap_compare: Any) -> None:
    timer = FakeTimer()

    async def finish(pilot: Pilot[None]) -> None:
        timer.now = 95.0
        await pilot.press("ctrl+r", "b", "n")

    assert snap_compare(mock_app(context, timer), run_before=finish, terminal_size=(80, 24))


@pytest.fixture
def planned(engine: Engine, now: datetime, today: date) -> None:
    """Some history and an interview in 12 days."""
    grade_by_id(engine, "q01", 5, now=now - timedelta(days=3), today=today - timedelta(days=3))
    grade_by_id(engine, "q02", 3, now=now - timedelta(days=1), today=today - timedelta(days=1))
    set_interview_date(engine, (today + timedelta(days=12)).isoformat())


async def settle(pilot: Pilot[None]) -> None:
    """Readiness is worked out in a worker; its lines then need a layout pass."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_home_with_the_interview_plan(
    app: InfracardsApp, planned: None, snap_compare: Any, size: tuple[int, int]
) -> None:
    assert snap_compare(app, run_before=settle, terminal_size=size)


def test_extra_study_menu(app: InfracardsApp, planned: None, snap_compare: Any) -> None:
    assert snap_compare(app, press=["p"], terminal_size=(80, 24))


def test_browse_filtered_by_state_and_sorted(
    app: InfracardsApp, planned: None, snap_compare: Any
) -> None:
    async def filter_and_sort(pilot: Pilot[None]) -> None:
        await pilot.press("b")
        pilot.app.screen.query_one("#browse-state", Select).value = "learned"
        await pilot.pause()
        pilot.app.screen.query_one("#browse-table").focus()
        await pilot.press("o", "o", "o", "o", "O")  # by EF, highest first

    assert snap_compare(app, run_before=filter_and_sort, terminal_size=(120, 40))
