"""Start-up imports only what the first card needs; the rest waits until it is used.

Each check runs a fresh interpreter, so the modules it finds were imported by the code path
itself and not by another test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import Engine

from infracards.cli.common import open_home
from infracards.paths import builtin_deck_path
from infracards.records import StudyPrefs
from infracards.services.library import ensure_builtin_deck
from infracards.store.db import transaction
from infracards.store.reads import deck_summaries

NOT_AT_START = ("alembic", "yaml", "cryptography", "argon2", "pygments", "rich.markdown")
"""Migrations, deck parsing, unlocking and answer rendering: none is needed to show a question."""

FIRST_CARD = """
    import sys
    from infracards.cli.common import open_home
    from infracards.scheduler import study_day
    from infracards.store.db import transaction
    from infracards.store.queries import build_queue
    from infracards.store.reads import load_card, load_prefs
    from infracards.services.settings import local_now

    engine = open_home()
    with transaction(engine) as session:
        prefs = load_prefs(session)
        today = study_day(local_now(), rollover_hour=prefs.rollover_hour)
        queue = build_queue(session, deck_id="module03", today=today, prefs=prefs)
        card = load_card(session, pk=queue.current)
    shown, modules = card.card_id, set(sys.modules)
"""

ORM_CONFIGURED = "<ORM mappers configured>"
"""Listed with the modules when an ORM statement ran before the first frame (it costs ~5 ms)."""

FIRST_CARD_IN_APP = f"""
    import asyncio, sys
    from infracards.services.answers import AnswerBook
    from infracards.cli.common import open_home
    from infracards.paths import home
    from infracards.services.settings import local_now
    import infracards.tui.app as app_module
    from infracards.tui.context import AppContext

    class FirstCard(app_module.ReviewScreen):
        def show_current(self) -> None:
            super().show_current()
            self.call_after_refresh(self.drawn)

        def drawn(self) -> None:
            # The answer is laid out in the background from here on; until now, nothing else.
            from infracards.store.models import Deck

            global shown, at_first_card
            orm = {{{ORM_CONFIGURED!r}}} if Deck.__mapper__.configured else set()
            shown, at_first_card = self.card.card_id, set(sys.modules) | orm
            self.app.exit()

    app_module.ReviewScreen = FirstCard

    async def main() -> None:
        context = AppContext(engine=open_home(), answers=AnswerBook(), home=home(), clock=local_now)
        app = app_module.InfracardsApp(context, start_review="module03")
        async with app.run_test(headless=True, size=(100, 32)):
            while app.is_running:
                await asyncio.sleep(0.005)

    asyncio.run(main())
    modules = at_first_card
"""


def imported_by(code: str, home: Path) -> tuple[str, set[str]]:
    """What a fresh interpreter showed, and every module it had imported by then."""
    script = textwrap.dedent(code) + "\nimport json\nprint(json.dumps([shown, sorted(modules)]))\n"
    env = {**os.environ, "INFRACARDS_HOME": str(home)}
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    shown, modules = json.loads(result.stdout.splitlines()[-1])
    return shown, set(modules)


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(name for name in names if name in modules)


@pytest.fixture
def started(home: Path) -> Path:
    """A home whose store was created, migrated and given the built-in deck by a first run."""
    open_home().dispose()
    return home


def test_an_up_to_date_store_shows_its_first_card_without_migrations_yaml_or_crypto(
    started: Path,
) -> None:
    shown, modules = imported_by(FIRST_CARD, started)
    assert shown == "q01"
    assert loaded(modules, NOT_AT_START) == []
    assert "infracards.deck" not in modules


def test_the_app_draws_its_first_card_without_migrations_yaml_crypto_or_other_screens(
    started: Path,
) -> None:
    shown, modules = imported_by(FIRST_CARD_IN_APP, started)
    assert shown == "q01"
    assert loaded(modules, NOT_AT_START) == []
    screens = {m.rsplit(".", 1)[-1] for m in modules if m.startswith("infracards.tui.screens.")}
    assert screens == {"home", "review"}
    assert "infracards.tui.dialogs.unlock" not in modules
    assert ORM_CONFIGURED not in modules  # the start's few reads are Core statements


def test_a_new_home_is_still_migrated_and_given_the_builtin_deck(home: Path) -> None:
    shown, modules = imported_by(FIRST_CARD, home)
    assert shown == "q01"
    assert {"alembic", "yaml"} <= modules


def test_a_changed_builtin_deck_is_still_noticed_and_synced(
    engine: Engine, today: date, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert ensure_builtin_deck(engine) is not None
    shipped = builtin_deck_path()
    newer = tmp_path / "shipped" / "module03.yaml"
    newer.parent.mkdir()
    newer.write_text(
        shipped.read_text(encoding="utf-8").replace("version: 1", "version: 2", 1),
        encoding="utf-8",
    )
    newer.with_name("module03.keyslots.json").write_bytes(  # the release its slots are for
        shipped.with_name("module03.keyslots.json")
        .read_bytes()
        .replace(b'"version": 1', b'"version": 2')
    )
    monkeypatch.setattr("infracards.services.library.builtin_deck_path", lambda: newer)

    report = ensure_builtin_deck(engine)

    assert report is not None and report.version == 2
    assert ensure_builtin_deck(engine) is None
    with transaction(engine) as session:
        versions = {
            s.deck_id: s.version for s in deck_summaries(session, today=today, prefs=StudyPrefs())
        }
    assert versions["module03"] == 2


def test_one_shot_commands_collect_garbage_as_usual(home: Path) -> None:
    """The entry point pauses collection for start-up; a command that is not the app resumes it."""
    code = (
        "import gc; from infracards.__main__ import entry; "
        "code = entry(['status']); print(code, gc.isenabled())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "INFRACARDS_HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split()[-2:] == ["0", "True"]


def test_a_command_closes_the_store_before_the_process_ends(started: Path) -> None:
    """The heap is frozen at exit, so an exit handler, not the last collection, closes the
    store: SQLite then folds its write-ahead log back into the database and removes it."""
    for argv in (["status"], ["config", "new-per-day", "12"]):
        subprocess.run(
            [sys.executable, "-m", "infracards", *argv],
            env={**os.environ, "INFRACARDS_HOME": str(started)},
            capture_output=True,
            check=True,
        )
        # No -wal or -shm is left (infracards.lock is the lock the first run created it under).
        assert sorted(path.name for path in started.iterdir()) == [
            "infracards.db",
            "infracards.lock",
        ]


async def test_the_app_resumes_collection_after_its_first_frame(home: Path) -> None:
    import gc

    from infracards.services.answers import AnswerBook
    from infracards.services.settings import local_now
    from infracards.tui.app import InfracardsApp
    from infracards.tui.context import AppContext

    context = AppContext(engine=open_home(), answers=AnswerBook(), home=home, clock=local_now)
    gc.disable()  # as infracards.__main__.entry leaves it
    try:
        async with InfracardsApp(context).run_test() as pilot:
            await pilot.pause()
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.enable()
