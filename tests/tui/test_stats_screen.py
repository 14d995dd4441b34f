"""The stats screen, driven by Pilot over the hand-built history of tests/store/test_stats.py."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from sqlalchemy import Engine
from textual.pilot import Pilot
from textual.widgets import Static

from infracards.tui.app import InfracardsApp
from infracards.tui.context import AppContext
from infracards.tui.screens.home import HomeScreen
from infracards.tui.screens.stats import StatsScreen
from infracards.tui.widgets.charts import BarChart, BarRow, Heatmap, RatioBars
from tests.store.test_stats import build_history

SIZE = (100, 32)


@pytest.fixture
def history(engine: Engine, tmp_path: Path) -> Engine:
    build_history(engine, tmp_path)
    return engine


def text_of(screen: StatsScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_the_stats_screen_shows_the_numbers(
    app: InfracardsApp, context: AppContext, history: Engine, today: date
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(StatsScreen(context))
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        assert screen.sub_title == "all decks · 2025-01-06"
        assert text_of(screen, "#stats-summary") == (
            "5 cards (4 reviewed) · 24 reviews · average EF 2.27\n"
            "Streak 5 days · longest 7 days · study day 2025-01-06"
        )
        assert text_of(screen, "#stats-heatmap-title") == (
            "Reviews per day: 23 in the last 365 days, on 16 days"
        )
        heatmap = screen.query_one(Heatmap)
        assert heatmap.levels[today] == 4  # 5 reviews: the busiest day
        assert heatmap.levels[date(2024, 6, 12)] == 1
        assert (heatmap.first, heatmap.last) == (date(2024, 1, 8), today)

        assert text_of(screen, "#stats-forecast-title") == (
            "Due in the next 30 days: 4 (1 today, overdue included)"
        )
        forecast = screen.query_one(BarChart)
        assert forecast.bars[:2] == (("Jan 6", 1), ("Jan 7", 2))
        assert forecast.bars[16] == ("Jan 22", 1)
        assert sum(value for _, value in forecast.bars) == 4
        assert forecast.text_lines()[0].startswith("2 ┤")

        assert "(last 30 days: 78% of 9)" in text_of(screen, "#stats-weekly-title")
        weekly = screen.query_one("#stats-weekly", RatioBars)
        assert weekly.rows[0] == BarRow("Oct 21", None, "no reviews")
        assert weekly.rows[-2:] == (
            BarRow("Dec 30", 5 / 6, " 83% of 6"),
            BarRow("Jan  6", 2 / 3, " 67% of 3"),
        )
        tags = screen.query_one("#stats-tags", RatioBars)
        assert [row.label for row in tags.rows] == [
            "communication",
            "memory",
            "tensor-parallel",
            "zero",
        ]
        assert tags.rows[0].detail == " 83% of 6     EF 2.34"
        assert "communication" in tags.text_lines()[0]

        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (40, 12)])
async def test_the_heatmap_fits_small_terminals(
    app: InfracardsApp, context: AppContext, history: Engine, size: tuple[int, int]
) -> None:
    async with app.run_test(size=size) as pilot:
        await app.push_screen(StatsScreen(context))
        await app.workers.wait_for_complete()
        await pilot.pause()
        heatmap = app.screen.query_one(Heatmap)
        width = heatmap.size.width
        lines = heatmap.text_lines()
        assert len(lines) == 9
        assert max(cell_len(line) for line in lines) <= width
        weeks = heatmap.weeks_for(width)
        monday_row = lines[1]
        assert cell_len(monday_row) == Heatmap.LABEL_CELLS + weeks
        if size == (80, 24):
            assert weeks == Heatmap.MAX_WEEKS  # the whole year still fits at 80 columns
        for chart in app.screen.query(".stats-title").results(Static):
            assert chart.size.width <= width
        for bars in (app.screen.query_one(BarChart), *app.screen.query(RatioBars)):
            assert max(cell_len(line) for line in bars.text_lines()) <= bars.size.width
        await pilot.press("end")  # the rest scrolls into view
        await pilot.press("q")
        assert isinstance(app.screen, HomeScreen)


async def test_a_store_without_reviews(
    app: InfracardsApp, context: AppContext, today: date
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(StatsScreen(context, deck_id="sample"))
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        assert screen.sub_title == "sample · 2025-01-06"
        assert text_of(screen, "#stats-summary").startswith(
            "4 cards (0 reviewed) · 0 reviews · average EF –"
        )
        assert screen.query_one(Heatmap).levels == {}
        assert screen.query_one(BarChart).bars[-1] == (
            f"{today + timedelta(days=29):%b} {(today + timedelta(days=29)).day}",
            0,
        )
        assert all(row.share is None for row in screen.query_one("#stats-tags", RatioBars).rows)


@pytest.mark.parametrize("size", [SIZE, (80, 24), (60, 20)], ids=["100x32", "80x24", "60x20"])
def test_snapshot(
    app: InfracardsApp,
    context: AppContext,
    history: Engine,
    snap_compare: Any,
    size: tuple[int, int],
) -> None:
    async def open_stats(pilot: Pilot[None]) -> None:
        await pilot.app.push_screen(StatsScreen(context))
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, run_before=open_stats, terminal_size=size)


async def test_a_new_learner_sees_no_empty_weeks(
    app: InfracardsApp, context: AppContext, engine: Engine, today: date, now: datetime
) -> None:
    from tests.conftest import grade_by_id

    grade_by_id(engine, "q01", 4, now=now, today=today)
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(StatsScreen(context))
        await app.workers.wait_for_complete()
        await pilot.pause()
        weekly = app.screen.query_one("#stats-weekly", RatioBars)
        assert weekly.rows == (BarRow("Jan  6", 1.0, "100% of 1"),)
        assert text_of(app.screen, "#stats-tags-title").endswith("average EF of the cards seen")
