"""The real app driven by Pilot against a real store: review, drills, undo, browse."""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from rich.cells import cell_len
from sqlalchemy import Engine
from sqlmodel import select
from textual.widgets import DataTable, Input, Static

from infracards.store.db import transaction
from infracards.store.models import StudySession
from infracards.store.reads import card_history, find_card
from infracards.tui.app import InfracardsApp
from infracards.tui.context import AppContext
from infracards.tui.screens.browse import BrowseScreen
from infracards.tui.screens.card import CardScreen
from infracards.tui.screens.home import HomeScreen
from infracards.tui.screens.review import ReviewScreen
from infracards.tui.screens.summary import SummaryScreen
from infracards.tui.widgets.card_view import AnswerLines, RenderedLines, lines_text

SIZE = (100, 32)


def state_of(engine: Engine, card_id: str):  # type: ignore[no-untyped-def]
    with transaction(engine) as session:
        [card] = find_card(session, card_id=card_id, deck_id="sample")
        return card, card_history(session, pk=card.pk)


def answer_on_screen(app: InfracardsApp) -> str:
    """The revealed answer's text as laid out on screen ('' when hidden)."""
    answer = app.screen.query_one(AnswerLines)
    return "\n".join(lines_text(answer.rendered)) if answer.display else ""


def points_on_screen(app: InfracardsApp) -> list[str]:
    """The key-point lines shown above the answer, as text ([] when hidden)."""
    from infracards.tui.widgets.checklist import KeyPointList, PointLine

    points = app.screen.query_one(KeyPointList)
    if not points.display:
        return []
    return [line.plain.strip() for line in points.query(PointLine)]


def text_of(rendered: RenderedLines) -> Counter[str]:
    """The characters of laid-out lines, whatever the width: no spaces, table rules or the
    marks of wrapped code lines (↪)."""
    return Counter(
        char
        for line in lines_text(rendered)
        for char in line
        if not char.isspace() and not "\u2500" <= char <= "\u257f" and char != "↪"
    )


def shown_card_id(app: InfracardsApp) -> str:
    screen = app.screen
    assert isinstance(screen, ReviewScreen) and screen.card is not None
    return screen.card.card_id


async def test_home_lists_the_deck_with_its_counts(app: InfracardsApp) -> None:
    async with app.run_test(size=SIZE):
        assert isinstance(app.screen, HomeScreen)
        table = app.screen.query_one(DataTable)
        assert list(map(str, table.get_row("sample"))) == [
            "Sample deck",
            "4",
            "4",
            "0",
            "1 locked",
            "0",
        ]


async def test_a_full_session_with_a_drill_and_undo(
    app: InfracardsApp, engine: Engine, today: date
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        assert shown_card_id(app) == "q01"
        await pilot.press("4")  # not revealed yet: grading is not possible
        assert state_of(engine, "q01")[1] == []

        await pilot.press("space")
        shown = answer_on_screen(app)
        assert "All-Reduce 把每个 rank 的张量求和后分发给所有 rank" in shown
        assert "要点" not in shown  # the key points come first, as a checklist above it
        assert points_on_screen(app) == [
            "a ☐ 等价于 Reduce-Scatter + All-Gather",
            "b ☐ 每卡发送 2(N-1)/N·S",
        ]
        await pilot.press("5")
        card, history = state_of(engine, "q01")
        assert card.due == today + timedelta(days=1) and [e.grade for e in history] == [5]

        assert shown_card_id(app) == "q02"
        await pilot.press("space", "2")  # below 4: drilled again today
        assert shown_card_id(app) == "q03"
        await pilot.press("space")
        assert app.screen.query_one("#card-notice", Static).display  # sealed, deck locked
        await pilot.press("3")
        await pilot.press("u")  # undo the 3 on q03
        assert shown_card_id(app) == "q03"
        assert state_of(engine, "q03")[1] == []
        await pilot.press("space", "4", "space", "5")  # q03 then q04
        assert shown_card_id(app) == "q02"
        assert app.screen.queue.current_is_drill
        await pilot.press("space", "3", "space", "4")  # drill until graded 4
        assert isinstance(app.screen, SummaryScreen)
        assert app.screen.summary.answers == 6 and app.screen.summary.drills == 2

    q02, history = state_of(engine, "q02")
    assert [(e.grade, e.drill) for e in history] == [(2, False), (3, True), (4, True)]
    assert (q02.state.repetitions, q02.state.interval, str(q02.state.easiness)) == (0, 1, "2.18")


async def test_leaving_early_keeps_every_grade(app: InfracardsApp, engine: Engine) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space", "4", "q")
        assert isinstance(app.screen, SummaryScreen) and app.screen.summary.left == 3
        await pilot.press("enter")
        assert isinstance(app.screen, HomeScreen)
        assert app.screen.query_one(DataTable).get_row("sample")[-1] == "1"
    assert [e.grade for e in state_of(engine, "q01")[1]] == [4]


async def test_browse_search_tag_filter_and_open(app: InfracardsApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == 4
        await pilot.press("slash", *"zero")
        assert screen.query_one(Input).value == "zero"
        assert table.row_count == 1
        screen.query_one(Input).value = ""
        await pilot.pause()
        screen.query_one("#browse-tag").value = "communication"
        await pilot.pause()
        assert [table.get_row_at(i)[0] for i in range(table.row_count)] == ["q01", "q04"]
        table.focus()
        await pilot.press("enter")
        assert isinstance(app.screen, CardScreen)
        await pilot.pause()
        assert "All-Reduce" in answer_on_screen(app)
        await pilot.press("escape")
        assert isinstance(app.screen, BrowseScreen)


async def test_review_with_nothing_due_returns_home(app: InfracardsApp, engine: Engine) -> None:
    with transaction(engine) as session:
        from infracards.store.reads import save_setting

        save_setting(session, key="new-per-day", value="0")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        assert isinstance(app.screen, HomeScreen)


async def test_a_full_disk_keeps_the_card_and_loses_nothing(
    app: InfracardsApp, engine: Engine, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from sqlalchemy import event
    from sqlalchemy.exc import OperationalError

    notices: list[str] = []
    monkeypatch.setattr(app, "notify", lambda message, **_: notices.append(str(message)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space")
        with engine.connect() as connection:
            pages = connection.exec_driver_sql("PRAGMA page_count").scalar()
        # Simulate a full disk: SQLite may not grow the file, and what free space is left is used up.
        event.listen(
            engine, "connect", lambda db, _: db.execute(f"PRAGMA max_page_count = {pages}")
        )
        engine.dispose()
        with engine.connect() as connection:  # fill the review table's pages (card 4 is q04)
            for index in range(10_000):
                try:
                    connection.exec_driver_sql(
                        "INSERT INTO review (card, reviewed_at, study_day, grade, drill, duration_ms,"
                        " easiness_centi_before, repetitions_before, interval_before,"
                        " easiness_centi_after, repetitions_after, interval_after)"
                        f" VALUES (4, '2020-01-01 00:00:{index % 60:02d}', '2020-01-01', 5, 1, {index}, 250, 0, 0, 250, 0, 0)"
                    )
                    connection.commit()
                except OperationalError:
                    connection.rollback()
                    break
        before = snapshot_rows(engine)
        await pilot.press("4")
        assert notices and "disk is full" in notices[-1]
        assert shown_card_id(app) == "q01" and app.screen.revealed  # the grade can be given again
        assert snapshot_rows(engine) == before


def snapshot_rows(engine: Engine) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        return [
            *connection.exec_driver_sql("SELECT * FROM review").all(),
            *connection.exec_driver_sql("SELECT * FROM cardstate").all(),
        ]


async def test_markup_in_deck_text_is_shown_literally(engine: Engine, tmp_path, context) -> None:  # type: ignore[no-untyped-def]
    from infracards.services.library import add_deck
    from infracards.tui.screens.card import CardScreen

    deck = tmp_path / "markup.yaml"
    deck.write_text(
        "format: infracards-deck/v1\nid: markup\ntitle: '[b]T[/b]'\nversion: 1\nlanguage: en\ncards:\n"
        "  - id: m1\n    prompt: '[bold red]red?[/bold red] [link=https://x.invalid]link[/link]'\n"
        "    answer: '[blink]a[/blink] and **bold**'\n",
        encoding="utf-8",
    )
    add_deck(engine, deck)
    app = InfracardsApp(context)
    async with app.run_test(size=SIZE) as pilot:
        with transaction(engine) as session:
            [card] = find_card(session, card_id="m1")
        await app.push_screen(CardScreen(context, card_pk=card.pk))
        await pilot.pause()
        prompt = str(app.screen.query_one("#card-prompt", Static).render())
        assert "[bold red]red?[/bold red] [link=https://x.invalid]link[/link]" in prompt
        assert "[blink]a[/blink] and bold" in answer_on_screen(app)


async def test_a_long_answer_fits_beside_its_scrollbar(engine: Engine, context) -> None:  # type: ignore[no-untyped-def]
    """Answers are laid out while the question (no scrollbar yet) is on screen; no cell may
    end up under the scrollbar that the long answer brings."""
    from infracards.services.library import ensure_builtin_deck
    from infracards.tui.widgets.card_view import CardView

    ensure_builtin_deck(engine)
    app = InfracardsApp(context, start_review="module03")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        await app.workers.wait_for_complete()  # the answer was prepared ahead of the reveal
        assert shown_card_id(app) == "q01"
        await pilot.press("space")
        await pilot.pause()
        view = app.screen.query_one(CardView)
        strips = app.screen.query_one(AnswerLines).rendered.strips
        assert len(strips) > 40 and view.body.show_vertical_scrollbar
        assert (
            max(strip.cell_length for strip in strips) <= view.body.scrollable_content_region.width
        )


async def test_a_shown_answer_is_laid_out_again_when_the_terminal_is_resized(
    engine: Engine,
    context,  # type: ignore[no-untyped-def]
) -> None:
    """Narrowing the terminal must not cut the answer's lines off; widening it uses the room."""
    from infracards.services.library import ensure_builtin_deck
    from infracards.tui.widgets.card_view import CardView

    ensure_builtin_deck(engine)
    app = InfracardsApp(context, start_review="module03")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        view = app.screen.query_one(CardView)
        wide = app.screen.query_one(AnswerLines).rendered
        for width, height in ((70, 24), (120, 40)):
            await pilot.resize_terminal(width, height)
            await app.workers.wait_for_complete()
            await pilot.pause()
            rendered = app.screen.query_one(AnswerLines).rendered
            assert rendered.width == view.answer_width
            assert max(strip.cell_length for strip in rendered.strips) <= rendered.width
            assert text_of(rendered) == text_of(wide)  # wrapped differently, nothing lost
        assert rendered.width > wide.width


async def test_a_review_started_from_the_command_line_leaves_to_a_full_home_screen(
    context,  # type: ignore[no-untyped-def]
) -> None:
    """The home screen under it is built only when first shown, and then works as usual."""
    app = InfracardsApp(context, start_review="sample")
    async with app.run_test(size=SIZE) as pilot:
        assert shown_card_id(app) == "q01"
        [home] = [screen for screen in app.screen_stack if isinstance(screen, HomeScreen)]
        assert not home.built and not home.query(DataTable)
        assert home.selected_deck == "sample"  # the palette's Review and Unlock still find it
        await pilot.press("space", "4", "q", "enter")
        assert app.screen is home and home.built
        table = home.query_one(DataTable)
        assert list(map(str, table.get_row("sample"))) == [
            "Sample deck",
            "4",
            "3",
            "0",
            "1 locked",
            "1",
        ]
        assert table.has_focus and home.selected_deck == "sample"
        await pilot.press("r")
        assert shown_card_id(app) == "q02"


async def test_the_grade_buttons_are_labelled_and_grade_even_when_revealed_at_once(
    app: InfracardsApp, context: AppContext, engine: Engine, today: date
) -> None:
    """The grade bar adds its buttons after the first frame, or at once when revealed sooner."""
    from textual.widgets import Button

    from infracards.tui.widgets.grade_bar import GradeBar

    async with app.run_test(size=SIZE) as pilot:
        screen = ReviewScreen(context, deck_id="sample")
        await app.push_screen(screen)
        assert not screen.query_one(GradeBar).children  # not yet: the question is not drawn
        screen.action_reveal()
        buttons = screen.query_one(GradeBar).query(Button)
        # Nothing ticked yet: the key points suggest 0 (★).
        assert [str(b.label).split()[0] for b in buttons] == ["★0", "1", "2", "3", "4", "5"]
        await pilot.pause()
        assert str(buttons[4].label) == "4 hesitant\n1 day"  # labelled for the bar's width
        assert len(screen.query_one(GradeBar).query(Button)) == 6  # added once only
        await pilot.click("#grade-4")
        assert shown_card_id(app) == "q02"
    card, history = state_of(engine, "q01")
    assert [e.grade for e in history] == [4] and card.due == today + timedelta(days=1)


async def test_the_grade_bar_has_its_buttons_ready_before_the_first_reveal(
    app: InfracardsApp,
) -> None:
    from textual.widgets import Button

    from infracards.tui.widgets.grade_bar import GradeBar

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await pilot.pause()
        bar = app.screen.query_one(GradeBar)
        assert not bar.visible and len(bar.query(Button)) == 6
        body = app.screen.query_one("#card-body")
        question = body.region
        await pilot.press("space")
        await pilot.pause()
        assert bar.visible and body.region == question  # the answer does not move the card
        await pilot.press("4")
        await pilot.pause()
        assert not bar.visible and body.region == question


async def test_start_up_objects_stay_out_of_full_collections_while_the_app_runs(
    app: InfracardsApp,
) -> None:
    import gc

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert gc.get_freeze_count() > 50_000
    assert gc.get_freeze_count() == 0


async def test_the_log_is_checkpointed_between_grades_not_inside_them(
    app: InfracardsApp, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from infracards.services import review as review_module

    done: list[object] = []
    monkeypatch.setattr(review_module, "CHECKPOINT_EVERY", 2)
    monkeypatch.setattr(review_module, "checkpoint", done.append)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space", "5", "space", "5", "space", "5")
        await pilot.pause(0.1)
        await app.workers.wait_for_complete()
        assert done == [app.context.engine]


def test_the_progress_line_counts_and_fills_its_bar_in_proportion() -> None:
    from infracards.tui.screens.review import PROGRESS_CELLS, progress_line

    half = progress_line(done=2, remaining=2, drills=1)
    # "to go" counts the drill already: it must not read as a third card.
    assert half.plain == f"2 answered · 2 to go, 1 of them a drill   {'━' * PROGRESS_CELLS} 50%"
    assert progress_line(done=0, remaining=5, drills=2).plain.startswith(
        "0 answered · 5 to go, 2 of them drills   "
    )
    filled = [span for span in half.spans if span.style == "$primary"]
    assert [span.end - span.start for span in filled] == [PROGRESS_CELLS // 2]
    finished = progress_line(done=3, remaining=0, drills=0)
    assert finished.plain.endswith(" 100%")
    assert [span.style for span in finished.spans if span.end > span.start] == ["$success"]
    # At 60 columns (56 cells inside the padding) the bar shortens instead of wrapping.
    narrow = progress_line(done=1, remaining=8, drills=1, width=56)
    assert cell_len(narrow.plain) <= 56 and narrow.plain.endswith("━ 11%")
    assert (
        progress_line(done=1, remaining=8, drills=1, width=200).plain
        == progress_line(done=1, remaining=8, drills=1).plain
    )


def session_ends(engine: Engine) -> list[object]:
    with transaction(engine) as session:
        return list(session.exec(select(StudySession.ended_at)))


async def test_quitting_the_app_mid_review_ends_the_study_session(
    app: InfracardsApp, engine: Engine, now: datetime
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space", "4")
        assert session_ends(engine) == [None]  # open while the learner is reviewing
        await pilot.press("ctrl+q")
    assert session_ends(engine) == [now]
    assert [e.grade for e in state_of(engine, "q01")[1]] == [4]


async def test_a_store_that_cannot_take_the_session_end_still_lets_the_learner_quit(
    app: InfracardsApp, engine: Engine
) -> None:
    """The end time is a note, not progress: every grade is already committed."""
    from sqlalchemy import event

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space", "4")
        event.listen(engine, "connect", lambda db, _: db.execute("PRAGMA query_only = ON"))
        engine.dispose()
        await pilot.press("ctrl+q")
    assert app.return_code == 0
    assert session_ends(engine) == [None]
    assert [e.grade for e in state_of(engine, "q01")[1]] == [4]


def add_deck_sorted_first(engine: Engine, tmp_path: Path) -> None:
    """A second deck, "aaa", listed before the sample deck."""
    from infracards.services.library import add_deck

    first = tmp_path / "aaa.yaml"
    first.write_text(
        "format: infracards-deck/v1\nid: aaa\ntitle: A first deck\nversion: 1\nlanguage: en\n"
        "cards:\n  - id: a1\n    prompt: What is NCCL?\n    answer: A collective library.\n",
        encoding="utf-8",
    )
    add_deck(engine, first)


async def test_home_opens_on_the_deck_studied_last(
    engine: Engine, context: AppContext, tmp_path: Path
) -> None:
    add_deck_sorted_first(engine, tmp_path)

    def selected(app: InfracardsApp) -> str | None:
        assert isinstance(app.screen, HomeScreen)
        return app.screen.selected_deck

    app = InfracardsApp(context)
    async with app.run_test(size=SIZE) as pilot:
        assert selected(app) == "aaa"  # nothing studied yet: the first deck
        await pilot.press("down", "r", "space", "4", "q", "enter")
        assert selected(app) == "sample"
    app = InfracardsApp(context)
    async with app.run_test(size=SIZE):
        assert selected(app) == "sample"


async def test_enter_on_a_deck_starts_its_review(app: InfracardsApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        assert shown_card_id(app) == "q01"


async def test_the_summary_opens_the_statistics(app: InfracardsApp) -> None:
    from infracards.tui.screens.stats import StatsScreen

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space", "4", "q")
        assert isinstance(app.screen, SummaryScreen)
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


async def test_one_review_at_a_time_the_palette_returns_to_it(app: InfracardsApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        names = [command.title for command in app.get_system_commands(review)]
        assert "Review" not in names and "Browse" in names  # reviewing already
        app.action_browse()
        await pilot.pause()
        assert isinstance(app.screen, BrowseScreen)
        browse = app.screen
        assert "Browse" not in [command.title for command in app.get_system_commands(browse)]
        await pilot.press("enter")  # open a card over Browse
        assert isinstance(app.screen, CardScreen)
        app.action_browse()
        await pilot.pause()
        assert app.screen is browse  # back to it, not a second one
        app.action_review()  # from the palette, over Browse: back to the review in progress
        await pilot.pause()
        assert app.screen is review
        assert sum(isinstance(screen, ReviewScreen) for screen in app.screen_stack) == 1
        await pilot.press("q")
        assert isinstance(app.screen, HomeScreen)


async def test_browse_finds_cards_by_deck_too(
    engine: Engine, app: InfracardsApp, tmp_path: Path
) -> None:
    add_deck_sorted_first(engine, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b", "slash", *"aaa")
        table = app.screen.query_one(DataTable)
        assert [table.get_row_at(i)[0] for i in range(table.row_count)] == ["a1"]
        app.screen.query_one(Input).value = "sample 什么是"
        await pilot.pause()
        assert [table.get_row_at(i)[0] for i in range(table.row_count)] == ["q01"]


async def test_browse_lists_a_big_deck_a_page_at_a_time(
    engine: Engine, app: InfracardsApp, tmp_path: Path
) -> None:
    from infracards.services.library import add_deck
    from infracards.tui.screens.browse import PAGE_ROWS

    cards = "".join(
        f"  - id: b{n:04d}\n    prompt: Question {n}\n    answer: Answer {n}.\n"
        for n in range(2 * PAGE_ROWS + 50)
    )
    big = tmp_path / "big.yaml"
    big.write_text(
        "format: infracards-deck/v1\nid: big\ntitle: Big\nversion: 1\nlanguage: en\n"
        f"cards:\n{cards}",
        encoding="utf-8",
    )
    add_deck(engine, big)
    total = 2 * PAGE_ROWS + 50 + 4  # and the sample deck's four
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        table = app.screen.query_one(DataTable)
        assert table.row_count == PAGE_ROWS
        assert (
            app.screen.sub_title
            == f"{total} of {total} cards · {PAGE_ROWS} listed, more as you scroll"
        )
        await pilot.press("ctrl+end")  # the cursor on the last listed row brings the next page
        assert table.row_count == 2 * PAGE_ROWS
        table.scroll_end(animate=False)  # so does scrolling there (the wheel, PgDn)
        await pilot.pause()
        assert table.row_count == total
        assert app.screen.sub_title == f"{total} of {total} cards"
        await pilot.press("slash", *"question 44")  # a search lists its matches from the top
        assert [table.get_row_at(i)[0] for i in range(table.row_count)] == [
            f"b{n:04d}" for n in range(2 * PAGE_ROWS + 50) if "44" in str(n)
        ]


async def test_the_theme_chosen_is_kept_for_the_next_run(
    context: AppContext, engine: Engine
) -> None:
    from infracards.store.reads import save_setting

    app = InfracardsApp(context)
    default = app.theme
    async with app.run_test(size=SIZE):
        app.theme = "textual-light"  # as the palette's theme picker sets it
    app = InfracardsApp(context)
    async with app.run_test(size=SIZE):
        assert app.theme == "textual-light"
    with transaction(engine, write=True) as session:
        save_setting(session, key="theme", value="a-theme-this-textual-lacks")
    app = InfracardsApp(context)
    async with app.run_test(size=SIZE):
        assert app.theme == default


async def test_browse_search_finds_words_in_answers_once_typing_pauses(
    app: InfracardsApp,
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b", "slash", *"张量求和")
        table = app.screen.query_one(DataTable)
        assert table.row_count == 0  # not in any id, prompt or tag
        await pilot.pause(0.5)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [table.get_row_at(i)[0] for i in range(table.row_count)] == ["q01"]


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (100, 32), (120, 40)])
async def test_grade_buttons_are_compact_aligned_and_unambiguous(
    app: InfracardsApp, size: tuple[int, int]
) -> None:
    """Every label is two whole lines (meaning, then outcome) inside its button at any width:
    nothing wraps to a third line, nothing is cut, and an outcome never reads "again in 6
    days" for "6 days, and again today"."""
    from textual.widgets import Button

    from infracards.tui.widgets.grade_bar import GradeBar

    async with app.run_test(size=size) as pilot:
        await pilot.press("r", "space")
        await pilot.pause()
        bar = app.screen.query_one(GradeBar)
        buttons = list(bar.query(Button))
        labels = [str(button.label).split("\n") for button in buttons]
        assert all(len(lines) == 2 for lines in labels), labels
        for button, lines in zip(buttons, labels, strict=True):
            room = button.content_region.width - 2 * button.styles.line_pad
            assert all(cell_len(line) <= room for line in lines), lines
            assert button.content_region.height >= 2
        assert len({button.region.y for button in buttons}) == 1  # one row, same height
        meanings, outcomes = zip(*labels, strict=True)
        # Nothing ticked yet, so the key points suggest 0: its mark leads, or (where the
        # button has no cell for it) takes the space after the digit.
        assert meanings[0] == ("0★blackout" if size[0] < 80 else "★0 blackout")
        assert [meaning.split()[0] for meaning in meanings[1:]] == list("12345")
        if size[0] >= 100:
            assert meanings[1] == "1 wrong, knew" and outcomes[1] == "1 day +today"
            assert outcomes[5] == "1 day"
        else:
            assert meanings[1:] == ("1 ✗ knew", "2 ✗ easy", "3 hard", "4 hesitant", "5 perfect")
            assert outcomes == ("1d +today",) * 4 + ("1d", "1d")
        assert "again" not in " ".join(outcomes)  # a drill's "again" only ever means today
        await pilot.press("f1")  # the keys help beside it narrows the bar: still two lines
        await pilot.pause()
        for button in bar.query(Button):
            lines = str(button.label).split("\n")
            room = button.content_region.width - 2 * button.styles.line_pad
            assert len(lines) == 2 and all(cell_len(line) <= max(room, 8) for line in lines)


def offered_keys(app: InfracardsApp) -> set[str]:
    """The keys the footer on screen shows right now (what the learner sees)."""
    from infracards.tui.widgets.footer import KeysFooter

    return set(app.screen.query_one(KeysFooter).shown_keys)


async def test_the_footer_follows_the_card_on_screen_after_an_undo(app: InfracardsApp) -> None:
    """Undo from a sealed card back to a free one must take `k Unlock` away again."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space", "5", "space", "5")
        assert shown_card_id(app) == "q03" and "k" in offered_keys(app)
        await pilot.press("u")
        await pilot.pause()
        assert shown_card_id(app) == "q02" and "k" not in offered_keys(app)


async def test_the_card_header_shows_every_tag(app: InfracardsApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space", "5")
        assert shown_card_id(app) == "q02"
        meta = str(app.screen.query_one("#card-meta", Static).render())
        assert meta.split() == ["q02", "memory", "zero"]


async def test_key_points_are_headed_in_the_decks_language(
    engine: Engine, tmp_path, context
) -> None:  # type: ignore[no-untyped-def]
    from infracards.services.library import add_deck
    from tests.test_cli import ONE_CARD_EN

    deck = tmp_path / "one.yaml"
    deck.write_text(ONE_CARD_EN, encoding="utf-8")
    add_deck(engine, deck)
    app = InfracardsApp(context, start_review="one")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        title = str(app.screen.query_one("#points-title", Static).render())
        assert title.startswith("Key points · tick what you said") and "要点" not in title


async def test_card_history_shows_the_learners_local_time(
    app: InfracardsApp,
    engine: Engine,
    now: datetime,
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    import time

    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("r", "space", "4", "q", "enter", "b", "enter")
            await pilot.pause()
            table = app.screen.query_one("#history-table", DataTable)
            assert next(str(column.label) for column in table.columns.values()) == "Reviewed"
            assert table.get_row_at(0)[0] == now.astimezone().strftime("%Y-%m-%d %H:%M")
            assert table.get_row_at(0)[0].endswith("18:00")  # 10:00 UTC is 18:00 at UTC+8
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


async def test_the_card_history_fits_the_screen_its_labels_as_long_as_room_allows(
    app: InfracardsApp,
) -> None:
    """At 60 columns "Interval after" was cut to "Interval af"; it is now "Interval" there."""

    def fitted(table: DataTable) -> tuple[str, bool]:  # type: ignore[type-arg]
        columns = list(table.columns.values())
        needed = sum(column.get_render_width(table) for column in columns)
        return str(columns[-1].label), needed <= table.scrollable_content_region.width

    async with app.run_test(size=(120, 24)) as pilot:
        await pilot.press("r", "space", "4", "q", "enter", "b", "enter")
        await pilot.pause()
        table = app.screen.query_one("#history-table", DataTable)
        assert table.row_count == 1 and fitted(table) == ("Interval after", True)
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert table.row_count == 1 and fitted(table) == ("Interval", True)
        await pilot.resize_terminal(100, 24)
        await pilot.pause()
        assert fitted(table) == ("Interval after", True)


async def test_q_leaves_browse_as_it_leaves_every_other_screen(app: InfracardsApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, BrowseScreen)
        await pilot.press("slash")
        await pilot.pause()
        await pilot.press("q")  # typed into the search box, it is a letter
        assert app.screen.query_one(Input).value == "q"
        await pilot.press("enter", "q")
        assert isinstance(app.screen, HomeScreen)


async def test_the_keys_help_opens_with_question_mark_or_f1_and_esc_closes_it(
    app: InfracardsApp,
) -> None:
    """On every screen; Esc closes only the panel, not the screen under it."""
    from textual.widgets import HelpPanel

    from infracards.tui.screens.stats import StatsScreen

    async with app.run_test(size=SIZE) as pilot:
        for keys, kind in (
            ((), HomeScreen),
            (("r",), ReviewScreen),
            (("q", "b"), BrowseScreen),
            (("enter",), CardScreen),
            (("escape", "escape", "s"), StatsScreen),
            (("escape", "r", "space", "4", "q"), SummaryScreen),
        ):
            await pilot.press(*keys)
            await pilot.pause()
            assert isinstance(app.screen, kind)
            for opener in ("question_mark", "f1"):
                await pilot.press(opener)
                await pilot.pause()
                assert app.screen.query(HelpPanel), (kind, opener)
                await pilot.press("escape")
                await pilot.pause()
                assert isinstance(app.screen, kind) and not app.screen.query(HelpPanel)
            await pilot.press("f1", "f1")  # F1 again hides it too
            assert not app.screen.query(HelpPanel)


async def test_dragging_over_the_answer_copies_its_text(app: InfracardsApp) -> None:
    """Not the widget's name (``AnswerLines#card-answer``)."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space")
        await pilot.pause()
        answer = app.screen.query_one(AnswerLines)
        lines = list(lines_text(answer.rendered))
        row = next(y for y, line in enumerate(lines) if "All-Reduce 把每个" in line)
        end = len(lines[row + 2].rstrip())
        top = answer.content_region.y - answer.region.y  # the widget's padding
        await pilot.mouse_down(answer, offset=(0, top + row))
        await pilot.hover(answer, offset=(end + 20, top + row + 2))
        await pilot.mouse_up(answer, offset=(end + 20, top + row + 2))
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected is not None
        assert selected.splitlines()[0].strip() == lines[row].strip()
        await pilot.press("ctrl+c")
        assert app.clipboard == selected and "AnswerLines" not in app.clipboard


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_notifications_cover_neither_the_grades_nor_the_card(
    app: InfracardsApp, size: tuple[int, int]
) -> None:
    from textual.widgets._toast import Toast

    from infracards.tui.widgets.card_view import CardView
    from infracards.tui.widgets.grade_bar import GradeBar

    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.press("r", "space", "5", "space", "u")  # the undo says so in a toast
        await pilot.pause(0.2)
        [toast] = app.screen.query(Toast)
        view = app.screen.query_one(CardView)
        for needed in (app.screen.query_one(GradeBar), view.body, view.query_one("#card-prompt")):
            assert not toast.region.overlaps(needed.region), needed
        assert toast.region.y == 0 and toast.region.height == 1


LONG_PROMPT_DECK = """\
format: infracards-deck/v1
id: long
title: Long prompts
version: 1
language: zh-CN
cards:
  - id: l1
    prompt: "{prompt}"
    answer: |
{answer}
"""


async def test_the_prompt_stays_in_view_as_one_line_that_opens_whole(
    engine: Engine, tmp_path: Path, context: AppContext
) -> None:
    """At 80×24 the answer scrolls under the prompt, which keeps one line (p: all of it)."""
    from infracards.services.library import add_deck
    from infracards.tui.widgets.card_view import CardView

    prompt = "在 8 卡 H100 上训练 70B 模型，" * 8 + "显存怎么算？"
    answer = "\n".join(f"      第 {n} 行：估算参数、梯度、优化器状态和激活。" for n in range(80))
    deck = tmp_path / "long.yaml"
    deck.write_text(LONG_PROMPT_DECK.format(prompt=prompt, answer=answer), encoding="utf-8")
    add_deck(engine, deck)
    app = InfracardsApp(context, start_review="long")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(CardView)
        line = view.query_one("#card-prompt")
        assert line.region.height > 3  # the question: the whole prompt, wrapped
        await pilot.press("space")
        await pilot.pause()
        top = line.region
        assert top.height == 2 and view.prompt_collapsed  # one line and its rule
        assert view.body.region.height >= 14  # the answer gets the rest
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert view.body.scroll_y > 0 and line.region == top  # still there, unmoved
        await pilot.press("p")
        await pilot.pause()
        assert line.region.height > 3 and not view.prompt_collapsed
        await pilot.click("#card-prompt")
        await pilot.pause()
        assert view.prompt_collapsed


@pytest.mark.parametrize("width", [60, 80, 120])
async def test_home_shows_every_column_at_any_common_width(app: InfracardsApp, width: int) -> None:
    """At 80 columns "Reviewed today" was out of sight, with nothing to say it was there."""
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        labels = [str(column.label) for column in table.columns.values()]
        assert len(labels) == 6 and labels[0] == "Deck" and labels[-1].startswith("Reviewed")
        assert table.virtual_size.width <= table.size.width  # nothing scrolled out of sight
        assert table.get_row("sample")[1:] == ["4", "4", "0", "1 locked", "0"]


@pytest.mark.parametrize("width", [60, 80, 120])
async def test_browse_fits_its_columns_and_names_the_ones_it_leaves_out(
    app: InfracardsApp, engine: Engine, now: datetime, today: date, width: int
) -> None:
    """At 80 columns Due was cut to "2026-12-" and two columns sat out of sight unannounced;
    at 120 the prompt kept 30 cells; a cut CJK prompt left a gap before its "…"."""
    from tests.conftest import grade_by_id

    grade_by_id(engine, "q02", 4, now=now, today=today)  # a due date to show
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.press("b")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert table.virtual_size.width <= table.size.width
        labels = [str(column.label) for column in table.columns.values()]
        assert {"Id", "Prompt", "Due", "Answer"} <= set(labels)
        row = dict(zip(labels, table.get_row("2"), strict=True))
        assert row["Due"] == (today + timedelta(days=1)).isoformat()  # whole
        hidden = app.screen.query_one("#browse-hidden", Static)
        missing = [label for label in ("Tags", "EF", "Interval", "Reviews") if label not in labels]
        assert hidden.display == bool(missing)
        if missing:
            assert str(hidden.render()).startswith(f"Hidden at this width: {', '.join(missing)}")
        prompt = table.ordered_columns[1].width
        longest = max(cell_len(row.prompt) for row in app.screen.rows)
        assert prompt == longest if width >= 100 else prompt >= 20  # as wide as there is room
        for index in range(table.row_count):
            shown = str(table.get_row_at(index)[1])
            assert not shown.endswith(" …") and cell_len(shown) <= prompt
