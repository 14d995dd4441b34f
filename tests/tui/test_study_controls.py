"""Issue 16 in the real app (Pilot, real store): the plan on Home, extra study (study ahead,
cram), suspend from the review and from Browse, Browse sort and state filter, undo from the
summary."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine
from textual.widgets import DataTable, Input, OptionList, Select, Static
from textual.widgets.data_table import ColumnKey

from infracards.services.plan import set_interview_date
from infracards.tui.app import InfracardsApp
from infracards.tui.dialogs.interview import InterviewDateDialog
from infracards.tui.dialogs.practice import PracticeMenu
from infracards.tui.screens.browse import BrowseScreen
from infracards.tui.screens.card import CardScreen
from infracards.tui.screens.home import HomeScreen
from infracards.tui.screens.review import ReviewScreen
from infracards.tui.screens.summary import SummaryScreen
from tests.conftest import db_rows, grade_by_id

SIZE = (100, 32)


def home_plan(app: InfracardsApp) -> str:
    return str(app.screen.query_one("#home-plan", Static).render())


def header_x(table: DataTable[str], label: str) -> int:
    """A cell inside the header of the column headed ``label``."""
    keys = list(table.columns)
    index = keys.index(ColumnKey(label))
    return sum(table.columns[key].get_render_width(table) for key in keys[:index]) + 1


def column(table: DataTable[str], label: str) -> list[str]:
    """The cells of the column headed ``label``, top to bottom (Browse keys columns by label)."""
    return [str(value) for value in table.get_column(label)]


async def test_home_shows_the_countdown_readiness_and_plan_and_accepts_it(
    app: InfracardsApp, engine: Engine, home: Path, today: date
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        assert "No interview date yet: press i" in home_plan(app)
        await pilot.press("i")
        assert isinstance(app.screen, InterviewDateDialog)
        await pilot.press(*"2025-13-01", "enter")  # not a date: said so, the dialog stays
        assert "YYYY-MM-DD" in str(app.screen.query_one("#interview-status", Static).render())
        app.screen.query_one(Input).value = (today + timedelta(days=10)).isoformat()
        await pilot.press("enter")
        assert isinstance(app.screen, HomeScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = home_plan(app)
        assert "Interview in 10 days (2025-01-16) · ready 0%" in text
        # 4 new cards, 3 reviews each before day 10: start by day 2, 3 days: 2 a day.
        assert "plan 2 new/day (all 4 new cards 3× by then) · a accepts" in text
        assert "Dragging it down: q01 never studied" in text
        await pilot.press("a")
        assert db_rows(home, "SELECT value FROM setting WHERE key = 'new-per-day'") == [("2",)]
        assert app.screen.query_one(DataTable).get_row("sample")[2] == "2"  # new today


async def test_the_final_pass_is_offered_in_the_last_days(
    app: InfracardsApp, engine: Engine, today: date
) -> None:
    set_interview_date(engine, (today + timedelta(days=2)).isoformat())
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Final pass open" in home_plan(app)
        await pilot.press("p")
        assert isinstance(app.screen, PracticeMenu)
        options = app.screen.query_one("#practice-options", OptionList)
        first = str(options.get_option_at_index(0).prompt)
        assert first.startswith("Final pass before the interview: 4 cards")
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.review.practice is not None
        assert "Final pass before the interview · outside the schedule" in str(
            screen.query_one("#card-meta", Static).render()
        )


async def test_study_ahead_and_cram_are_marked_outside_the_schedule_and_move_nothing(
    app: InfracardsApp, engine: Engine, home: Path, now: datetime, today: date
) -> None:
    grade_by_id(engine, "q01", 5, now=now, today=today)  # due tomorrow
    states = db_rows(home, "SELECT * FROM cardstate ORDER BY card")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p")
        await pilot.press("enter")  # "Study ahead: 1 card due in the next 7 days"
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert "Study ahead" in str(screen.query_one("#card-meta", Static).render())
        await pilot.press("space")
        buttons = [str(b.label) for b in screen.query("#grade-bar Button")]
        assert "done" in buttons[5] and "again" in buttons[3]  # no interval: nothing moves
        assert not any("day" in label.replace("today", "") for label in buttons)
        await pilot.press("5")
        assert isinstance(app.screen, SummaryScreen)
        assert str(app.screen.query_one("#summary-title", Static).render()).startswith(
            "Practice done (outside the schedule"
        )
        await pilot.press("enter", "p", "down", "down", "enter")  # Cram a topic…
        assert isinstance(app.screen, PracticeMenu)
        topics = app.screen.query_one("#practice-topics", OptionList)
        assert topics.display and str(topics.get_option_at_index(0).prompt) == (
            "communication (1 card)"
        )
        await pilot.press("enter")
        assert isinstance(app.screen, ReviewScreen) and app.screen.card is not None
        assert app.screen.card.card_id == "q01"
        await pilot.press("space", "2", "space", "4")
    assert db_rows(home, "SELECT * FROM cardstate ORDER BY card") == states
    assert db_rows(home, "SELECT practice, grade FROM review WHERE practice IS NOT NULL") == [
        ("ahead", 5),
        ("cram", 2),
        ("cram", 4),
    ]


async def test_suspend_from_the_review_and_unsuspend_from_browse(
    app: InfracardsApp, home: Path
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("at")  # @: suspend q01
        assert app.screen.card is not None and app.screen.card.card_id == "q02"
        assert db_rows(home, "SELECT suspended FROM cardstate WHERE card = 1") == [(1,)]
        await pilot.press("minus")  # -: bury q02
        assert app.screen.card is not None and app.screen.card.card_id == "q03"
        await pilot.press("u")  # undo the bury
        assert app.screen.card is not None and app.screen.card.card_id == "q02"
        await pilot.press("q", "enter", "b")
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        table = browse.query_one(DataTable)
        browse.query_one("#browse-state", Select).value = "suspended"
        await pilot.pause()
        assert column(table, "Id") == ["q01"] and column(table, "State") == ["new, suspended"]
        table.focus()
        await pilot.press("at")  # unsuspend it from Browse
        assert db_rows(home, "SELECT suspended FROM cardstate WHERE card = 1") == [(0,)]
        assert table.row_count == 0  # no card is suspended now
        browse.query_one("#browse-state", Select).value = "new"
        await pilot.pause()
        assert table.row_count == 4
        await pilot.press("enter")
        assert isinstance(app.screen, CardScreen)
        await pilot.pause()
        await pilot.press("at")  # and from the card screen
        assert "suspended" in str(app.screen.query_one("#card-meta", Static).render())
        assert db_rows(home, "SELECT suspended FROM cardstate WHERE card = 1") == [(1,)]


async def test_browse_sorts_by_any_column_and_shows_where_the_search_matched(
    app: InfracardsApp, engine: Engine, now: datetime, today: date
) -> None:
    grade_by_id(engine, "q02", 5, now=now, today=today)
    grade_by_id(engine, "q04", 3, now=now, today=today)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        table = screen.query_one(DataTable)
        assert column(table, "Id") == ["q01", "q02", "q03", "q04"]
        ef_header = (header_x(table, "EF"), 0)
        await pilot.click("#browse-table", offset=ef_header)  # the EF header
        assert column(table, "EF") == ["2.36", "2.50", "2.50", "2.60"]
        await pilot.click("#browse-table", offset=ef_header)  # again: descending
        assert column(table, "EF") == ["2.60", "2.50", "2.50", "2.36"]
        assert "by EF ↓" in screen.sub_title
        table.focus()
        await pilot.press("o")  # the next column: Interval
        assert (
            column(table, "Interval")[-2:] == ["1d", "1d"] and "by Interval ↑" in screen.sub_title
        )
        await pilot.press("O")
        assert "by Interval ↓" in screen.sub_title
        await pilot.press("slash", *"communication")
        # Still sorted by interval, longest first: q04 was reviewed, q01 is new.
        assert column(table, "Id") == ["q04", "q01"] and column(table, "Match") == ["tags", "tags"]
        screen.query_one(Input).value = "rank"
        await pilot.pause(0.5)  # the answers are searched once typing pauses
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert column(table, "Id") == ["q01"] and column(table, "Match") == ["answer"]


async def test_a_wrong_last_grade_is_undone_from_the_summary(
    app: InfracardsApp, home: Path
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", *["space", "4"] * 3, "space", "0")  # q04 got 0 by mistake
        await pilot.press("space", "4")  # its drill
        assert isinstance(app.screen, SummaryScreen)
        assert "u takes it back" in str(app.screen.query_one("#summary-body", Static).render())
        await pilot.press("u")  # undoes the drill's 4
        await pilot.press("q")
        assert isinstance(app.screen, SummaryScreen)
        await pilot.press("u")  # and the 0
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.card is not None
        assert screen.card.card_id == "q04" and not screen.revealed
        await pilot.press("space", "5")
        assert isinstance(app.screen, SummaryScreen) and app.screen.summary.grades == {4: 3, 5: 1}
    assert db_rows(home, "SELECT grade FROM review ORDER BY id") == [(4,), (4,), (4,), (5,)]
    assert db_rows(home, "SELECT count(*) FROM session") == [(1,)]  # the same session went on


async def test_statistics_show_missed_key_points_mock_scores_and_leeches(
    app: InfracardsApp,
    engine: Engine,
    context,
    now: datetime,
    today: date,  # type: ignore[no-untyped-def]
) -> None:
    import random

    from infracards.records import RecalledPoints
    from infracards.services.keypoints import fingerprint
    from infracards.services.mock import MockInterview
    from infracards.tui.screens.stats import StatsScreen

    points = ("等价于 Reduce-Scatter + All-Gather", "每卡发送 2(N-1)/N·S")
    said = RecalledPoints(2, frozenset({0}), fingerprint("sample", "q01", points))
    grade_by_id(engine, "q01", 4, now=now, today=today, recalled=said)
    grade_by_id(engine, "q02", 1, now=now, today=today, leech_threshold=1)  # a leech at once
    ticks = iter([0.0, 60.0, 60.0])
    mock = MockInterview(
        engine, deck_id="sample", clock=lambda: now, timer=lambda: next(ticks),
        questions=1, topic="communication", rng=random.Random(1),
    )  # fmt: skip
    mock.start()
    mock.reveal()
    mock.next()
    mock.finish()
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(StatsScreen(context))
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        points_list = str(screen.query_one("#stats-points-list", Static).render())
        assert "q01 point 2/2 missed 2 of 2: 每卡发送 2(N-1)/N·S" in points_list
        assert "score over time (1 session, average 0%)" in str(
            screen.query_one("#stats-mocks-title", Static).render()
        )
        assert "q02 1 lapse, suspended" in str(screen.query_one("#stats-leeches", Static).render())
