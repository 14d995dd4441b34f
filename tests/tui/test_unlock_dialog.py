"""Unlocking from the app: dialog feedback while typing, KDF in a worker, answer shown at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static

from infracards.seal import license_path, save_license
from infracards.tui.app import InfracardsApp
from infracards.tui.dialogs.unlock import UnlockDialog, key_feedback
from infracards.tui.screens.card import CardScreen
from infracards.tui.screens.home import HomeScreen
from tests.tui.test_app import answer_on_screen

SIZE = (100, 32)


def test_key_feedback_while_typing(keys: list[str]) -> None:
    assert key_feedback("GTA13-PA") == ("7 of 30 symbols", False)
    message, valid = key_feedback("GTA1U")
    assert not valid and "character 5" in message
    message, valid = key_feedback(keys[0][:-1] + ("1" if keys[0][-1] != "1" else "2"))
    assert not valid and "typo" in message
    message, valid = key_feedback(keys[0].lower())
    assert valid and keys[0][:4] in message


def footer_actions(app: InfracardsApp) -> set[str]:
    """The screen's own keys the footer offers now."""
    bindings = app.screen.active_bindings.values()
    return {
        b.binding.action.removeprefix("app.")
        for b in bindings
        if b.node is app.screen and b.enabled and b.binding.show
    }


async def open_sealed_card(app: InfracardsApp, pilot) -> CardScreen:  # type: ignore[no-untyped-def]
    await pilot.press("b")
    table = app.screen.query_one(DataTable)
    row = next(
        i
        for i in range(table.row_count)
        if table.get_row_at(i)[0] == "q02" and "免费" not in str(table.get_row_at(i)[1])
    )
    table.move_cursor(row=row)
    table.focus()
    await pilot.press("enter")
    assert isinstance(app.screen, CardScreen) and app.screen.deck_id == "demo"
    return app.screen


async def test_unlock_dialog_opens_the_answer_on_screen(
    app: InfracardsApp, sealed_deck: Path, keys: list[str], home: Path
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_sealed_card(app, pilot)
        assert screen.query_one("#card-notice", Static).display
        assert footer_actions(app) == {"unlock", "suspend", "bury", "back"}
        await pilot.press("k")
        assert isinstance(app.screen, UnlockDialog)
        app.screen.query_one(Input).value = "not-a-key!"
        await pilot.pause()
        assert app.screen.query_one("#unlock-status").has_class("error")
        app.screen.query_one(Input).value = keys[0]
        await pilot.pause()
        assert app.screen.query_one("#unlock-status").has_class("ok")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is screen
        assert "SECRET-1F1B" in answer_on_screen(app)
        assert not screen.query_one("#card-notice", Static).display
        assert footer_actions(app) == {"suspend", "bury", "back"}  # nothing left to unlock
    assert license_path(home).exists()


async def test_a_wrong_key_keeps_the_dialog_open_with_the_reason(
    app: InfracardsApp, sealed_deck: Path, home: Path
) -> None:
    from infracards.seal import format_license_key

    async with app.run_test(size=SIZE) as pilot:
        await open_sealed_card(app, pilot)
        await pilot.press("k")
        app.screen.query_one(Input).value = format_license_key(4242, bytes(15))
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, UnlockDialog)
        assert "not valid for demo v1" in str(
            app.screen.query_one("#unlock-status", Static).render()
        )
        await pilot.press("escape")
        assert isinstance(app.screen, CardScreen)
    assert not license_path(home).exists()


async def test_a_stored_key_opens_answers_at_start(
    app: InfracardsApp, sealed_deck: Path, keys: list[str], home: Path
) -> None:
    save_license(home, {"demo": keys[0]})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the key is opened once the first frame is drawn
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.context.answers.is_unlocked("demo")
        assert isinstance(app.screen, HomeScreen)
        assert app.screen.query_one(DataTable).get_row("demo")[4] == "unlocked"


async def test_a_revoked_stored_key_starts_locked_with_a_notice(
    app: InfracardsApp,
    publisher: Path,
    sealed_deck: Path,
    keys: list[str],
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from infracards.cli import main
    from infracards.services.publish import revoke_key
    from tests.conftest import SOURCE_DECK, seal

    save_license(home, {"demo": keys[0]})
    license_bytes = license_path(home).read_bytes()
    revoke_key(publisher, kid=keys[0][:4])
    (publisher / "deck.yaml").write_text(
        SOURCE_DECK.replace("version: 1", "version: 2"), encoding="utf-8"
    )
    assert main(["deck", "add", str(seal(publisher, tmp_path / "v2"))]) == 0
    notices: list[str] = []
    monkeypatch.setattr(app, "notify", lambda message, **_: notices.append(str(message)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.context.answers.is_unlocked("demo")
    assert any("demo stays locked" in n and "revoked" in n for n in notices), notices
    assert license_path(home).read_bytes() == license_bytes


async def test_the_palette_unlocks_the_deck_of_the_card_on_screen(
    app: InfracardsApp, sealed_deck: Path
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, HomeScreen) and app.screen.selected_deck == "demo"
        await pilot.press("b", "slash", *"sample q03", "enter", "enter")
        assert isinstance(app.screen, CardScreen) and app.screen.deck_id == "sample"
        app.action_unlock()  # the palette's "Unlock answers"
        await pilot.pause()
        assert isinstance(app.screen, UnlockDialog) and app.screen.deck_id == "sample"


async def test_browse_searches_sealed_answers_only_once_they_are_unlocked(
    app: InfracardsApp, sealed_deck: Path, keys: list[str]
) -> None:
    async def search(pilot, words: str) -> list[str]:  # type: ignore[no-untyped-def]
        app.screen.query_one(Input).value = words
        await pilot.pause(0.5)
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        return [table.get_row_at(i)[0] for i in range(table.row_count)]

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        assert await search(pilot, "secret-1f1b") == []  # sealed: its text is not known
        app.action_unlock()  # from the palette, with Browse open
        await pilot.pause()
        app.screen.query_one(Input).value = keys[0]
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause(0.5)
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert [table.get_row_at(i)[0] for i in range(table.row_count)] == ["q02"]
