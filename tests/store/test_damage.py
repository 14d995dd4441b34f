"""A store damaged after it was opened: one clear message and exit code 1, never a traceback.

The damage is real: pages of one table are overwritten in the SQLite file, as a failing disk
or a bad copy would leave them; the file's header and schema stay intact, so it still opens.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import date, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

from infracards.cli import main
from infracards.cli.common import open_home
from infracards.errors import StoreError
from infracards.paths import database_path
from infracards.services.answers import AnswerBook
from infracards.store.db import transaction
from infracards.store.reads import find_card
from infracards.tui.app import InfracardsApp
from infracards.tui.context import AppContext
from tests import terminal
from tests.conftest import grade_by_id

DAMAGED = r"infracards\.db cannot be used: database disk image is malformed"


def damage(database: Path, table: str) -> None:
    """Overwrite the start of every leaf page of ``table`` (its rows' cell pointers)."""
    with closing(sqlite3.connect(database)) as db:
        size = db.execute("PRAGMA page_size").fetchone()[0]
        pages = [
            page
            for (page,) in db.execute(
                "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'", (table,)
            )
        ]
    assert pages and 1 not in pages
    with database.open("r+b") as file:
        for page in pages:
            file.seek((page - 1) * size)
            file.write(b"\xff" * 64)


@pytest.fixture
def damaged_cards(engine: Engine, home: Path) -> Engine:
    engine.dispose()  # no page of the table stays cached in a pooled connection
    damage(database_path(home), "card")
    return engine


def test_a_read_from_a_damaged_table_names_the_file_and_what_to_do(damaged_cards: Engine) -> None:
    expected = rf"{DAMAGED}.*left untouched.*move it aside"
    with pytest.raises(StoreError, match=expected), transaction(damaged_cards) as session:
        find_card(session, card_id="q01")


def test_a_grade_into_a_damaged_table_says_so_and_writes_nothing(
    engine: Engine, home: Path, today: date, now: datetime
) -> None:
    with transaction(engine) as session:
        [shown] = find_card(session, card_id="q01", deck_id="sample")
    engine.dispose()
    damage(database_path(home), "review")
    with pytest.raises(StoreError, match=DAMAGED):
        grade_by_id(engine, "q01", 4, now=now, today=today)
    with transaction(engine) as session:
        [after] = find_card(session, card_id="q01", deck_id="sample")
    assert after == shown


def test_the_command_line_prints_one_line_and_exits_1(
    damaged_cards: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", "q01"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith("infracards: ") and "Traceback" not in err


async def test_the_app_ends_with_the_same_line_and_exit_code_1(
    damaged_cards: Engine, home: Path, now: datetime
) -> None:
    context = AppContext(engine=damaged_cards, answers=AnswerBook(), home=home, clock=lambda: now)
    app = InfracardsApp(context)
    with pytest.raises(StoreError, match=DAMAGED) as raised:
        async with app.run_test() as pilot:
            await pilot.press("r")  # the review reads the first card: a damaged page
            await pilot.pause()
    assert app.return_code == 1
    assert str(raised.value.__rich__()) == f"infracards: {raised.value}"


def test_a_broken_constraint_is_a_bug_and_is_not_called_damage(engine: Engine) -> None:
    with pytest.raises(IntegrityError), transaction(engine, write=True) as session:
        session.execute(text("INSERT INTO deck (id) VALUES ('sample')"))


@pytest.mark.slow
def test_the_real_command_exits_1_with_the_line_in_a_terminal(home: Path) -> None:
    """``infracards review`` in a pseudo-terminal, as a learner runs it. The start reads only
    decks and states, so the app opens; the first card's damaged page ends it with the one
    line (no traceback) and exit code 1."""
    open_home().dispose()  # the built-in deck, as a first run leaves it
    damage(database_path(home), "card")
    pid, terminal_fd = terminal.spawn("review", "--deck", "module03")
    output = terminal.read(terminal_fd)
    code = terminal.exit_code(pid)
    text = " ".join(output.decode("utf-8", "replace").split())
    assert "\x1b[?1049h" in output.decode("utf-8", "replace")  # the app did start
    assert "cannot be used: database disk image is malformed" in text
    assert "Traceback" not in text
    assert code == 1
