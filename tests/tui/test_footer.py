"""The key footer: what it draws at each width, and what a click on it does."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from infracards.tui.app import InfracardsApp
from infracards.tui.screens.browse import BrowseScreen
from infracards.tui.screens.review import ReviewScreen
from infracards.tui.widgets.footer import KeysFooter
from tests.conftest import db_rows


def footer_line(app: InfracardsApp) -> str:
    return app.screen.query_one(KeysFooter).render().plain


async def click_on(app: InfracardsApp, pilot, label: str) -> None:  # type: ignore[no-untyped-def]
    line = footer_line(app)
    assert label in line, line
    x = cell_len(line[: line.index(label)])
    await pilot.click(KeysFooter, offset=(x + 1, 0))
    await pilot.pause()


async def test_a_click_on_a_key_presses_it(app: InfracardsApp) -> None:
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await click_on(app, pilot, "b Browse")
        assert isinstance(app.screen, BrowseScreen)


async def test_a_click_on_a_range_of_keys_grades_nothing(app: InfracardsApp, home: Path) -> None:
    """``0-5 Grade`` stands for six keys: a click must not guess grade 0."""
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("r", "space")
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.card is not None
        card = screen.card.card_id
        await click_on(app, pilot, "0-5 Grade")
        assert screen.card is not None and screen.card.card_id == card
        assert db_rows(home, "SELECT count(*) FROM review") == [(0,)]


@pytest.mark.parametrize("width", [60, 80, 120])
async def test_the_keys_fit_and_the_keys_help_is_never_left_out(
    app: InfracardsApp, width: int
) -> None:
    async with app.run_test(size=(width, 24)) as pilot:
        for keys in ((), ("r",), ("space",)):  # Home, a question, an answer with its grades
            await pilot.press(*keys)
            await pilot.pause()
            footer = app.screen.query_one(KeysFooter)
            line = footer.render()
            assert line.cell_len <= width
            assert "? Keys" in line.plain and line.plain.rstrip().endswith("^p palette")
            assert "question_mark" in footer.shown_keys
            # What is left out goes from the right: the keys drawn lead the keys offered.
            offered = [entry.key for entry in footer.entries or () if not entry.at_right]
            drawn = [key for key in footer.shown_keys if key in offered]
            kept = [key for key in offered if key in drawn or key == "question_mark"]
            assert drawn == kept and offered[: len(drawn) - 1] == drawn[:-1]


async def test_a_disabled_key_is_not_drawn_and_comes_back_when_enabled(
    app: InfracardsApp,
) -> None:
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert "0-5 Grade" not in footer_line(app)  # nothing to grade before the answer
        await pilot.press("space")
        await pilot.pause()
        assert "0-5 Grade" in footer_line(app)
