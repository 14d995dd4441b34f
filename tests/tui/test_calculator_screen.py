"""The calculator panel and the notation page, driven by Pilot on a deck that has both."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from sqlalchemy import Engine
from textual.widgets import Input, Static, TabbedContent

from infracards.services.answers import AnswerBook
from infracards.tui.app import InfracardsApp
from infracards.tui.context import AppContext
from infracards.tui.screens.browse import BrowseScreen
from infracards.tui.screens.calculator import CalculatorScreen, ParamRow, input_id
from infracards.tui.screens.card import CardScreen
from infracards.tui.screens.notation import NotationScreen
from infracards.tui.screens.review import ReviewScreen
from infracards.tui.widgets.card_view import AnswerLines, lines_text
from tests.calc_deck import calc_store

SIZE = (100, 32)


@pytest.fixture
def calc_engine(home: Path, tmp_path: Path) -> Iterator[Engine]:
    engine = calc_store(home, tmp_path / "calc-decks")
    yield engine
    engine.dispose()


@pytest.fixture
def calc_app(calc_engine: Engine, home: Path, now: datetime) -> InfracardsApp:
    context = AppContext(engine=calc_engine, answers=AnswerBook(), home=home, clock=lambda: now)
    return InfracardsApp(context)


def plain(static: Static) -> str:
    """What a Static shows, as text."""
    console = Console(width=60, record=True, color_system=None)
    console.print(static.content)
    return console.export_text()


def footer_keys(app: InfracardsApp) -> set[str]:
    return {
        binding.key for _, binding, enabled, _ in app.screen.active_bindings.values() if enabled
    }


async def test_equals_opens_the_calculator_and_an_edit_updates_the_outputs(
    calc_app: InfracardsApp,
) -> None:
    async with calc_app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space")
        assert isinstance(calc_app.screen, ReviewScreen)
        assert "equals_sign" in footer_keys(calc_app) and "n" in footer_keys(calc_app)
        await pilot.press("equals_sign")
        await pilot.pause()
        screen = calc_app.screen
        assert isinstance(screen, CalculatorScreen)
        dp = screen.query_one(f"#{input_id('memory', 'dp')}", Input)
        assert dp.value == "64"  # the answer's worked example
        assert "31.41 GB" in plain(screen.query_one("#calc-memory .calc-outputs", Static))

        dp.focus()
        dp.value = ""
        await pilot.press("8")
        await pilot.pause()
        assert dp.value == "8"
        # 7.5e9 × (2 + 2 + 12/8) bytes = 41.25 GB
        assert "41.25 GB" in plain(screen.query_one("#calc-memory .calc-outputs", Static))

        await pilot.press("backspace", "0")
        await pilot.pause()
        row = next(row for row in screen.query(ParamRow) if row.spec.flag == "dp")
        message = row.query_one(".calc-error", Static)
        assert message.display and "--dp: must be a whole number from 1" in plain(message)
        assert "31.41" not in plain(screen.query_one("#calc-memory .calc-outputs", Static))

        await pilot.press("escape")
        assert isinstance(calc_app.screen, ReviewScreen)


async def test_the_calculator_switches_between_the_cards_models(calc_app: InfracardsApp) -> None:
    async with calc_app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space", "equals_sign")
        await pilot.pause()
        tabs = calc_app.screen.query_one(TabbedContent)
        assert tabs.active == "calc-memory"
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert tabs.active == "calc-bubble"
        assert calc_app.screen.focused is not None
        assert calc_app.screen.focused.id == input_id("bubble", "schedule")


async def test_a_locked_card_offers_its_calculator_with_the_defaults(
    calc_app: InfracardsApp,
) -> None:
    async with calc_app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space", "5", "space", "5")  # q01, q02 graded: q03 is sealed
        screen = calc_app.screen
        assert isinstance(screen, ReviewScreen) and screen.card is not None
        assert screen.card.card_id == "q03" and screen.card.locked
        await pilot.press("equals_sign")
        await pilot.pause()
        calc = calc_app.screen
        assert isinstance(calc, CalculatorScreen)
        params = calc.query_one(f"#{input_id('train-time', 'params')}", Input)
        assert params.value == "" and params.placeholder == "required"
        shown = plain(calc.query_one("#calc-train-time .calc-outputs", Static))
        assert "Fill in --params, --tokens, --gpus" in shown
        for flag, text in [("params", "175e9"), ("tokens", "300e9"), ("gpus", "1024")]:
            calc.query_one(f"#{input_id('train-time', flag)}", Input).value = text
        calc.query_one(f"#{input_id('train-time', 'tflops')}", Input).value = "140"
        calc.query_one(f"#{input_id('train-time', 'recompute')}", Input).value = "full"
        await pilot.pause()
        assert "33.91 days" in plain(calc.query_one("#calc-train-time .calc-outputs", Static))


async def test_before_the_answer_is_revealed_the_example_stays_hidden(
    calc_app: InfracardsApp,
) -> None:
    async with calc_app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "equals_sign")
        await pilot.pause()
        calc = calc_app.screen
        assert isinstance(calc, CalculatorScreen)
        assert calc.query_one(f"#{input_id('memory', 'dp')}", Input).value == ""


async def test_n_and_c_work_from_review_and_from_a_sealed_card_in_browse(
    calc_app: InfracardsApp,
) -> None:
    async with calc_app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "n")
        await pilot.pause()
        assert isinstance(calc_app.screen, NotationScreen)
        page = "\n".join(lines_text(calc_app.screen.query_one(AnswerLines).rendered))
        assert "记号与常数" in page and "模型参数量" in page
        await pilot.press("escape", "escape")  # back to the card, then leave the review
        await pilot.press("b")
        assert isinstance(calc_app.screen, BrowseScreen)
        await pilot.press("down", "down", "enter")  # q03, the sealed one
        await pilot.pause()
        assert isinstance(calc_app.screen, CardScreen)
        assert {"equals_sign", "n"} <= footer_keys(calc_app)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(calc_app.screen, NotationScreen)
        await pilot.press("escape", "equals_sign")  # the sealed card's calculator, from Browse
        await pilot.pause()
        assert isinstance(calc_app.screen, CalculatorScreen)
        assert [sheet.model for sheet in calc_app.screen.sheets] == ["train-time"]


async def test_keys_are_offered_only_where_they_work(app: InfracardsApp) -> None:
    """The sample deck has no notation page and no calculators."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "space")
        keys = footer_keys(app)
        assert "equals_sign" not in keys and "n" not in keys
        await pilot.press("equals_sign", "n")
        assert isinstance(app.screen, ReviewScreen)


def test_the_calculator_panel_at_80_columns(calc_app: InfracardsApp, snap_compare: Any) -> None:
    assert snap_compare(calc_app, press=["r", "space", "equals_sign"], terminal_size=(80, 24))


def test_the_notation_page_at_80_columns(calc_app: InfracardsApp, snap_compare: Any) -> None:
    assert snap_compare(calc_app, press=["r", "n"], terminal_size=(80, 24))
