"""The commands that read start without SQLAlchemy, Alembic or `cryptography`, and keep every
guarantee of the store: migrated when behind, a newer or damaged file refused, closed at exit.

Each check runs the real entry point in a fresh interpreter, so the modules it finds were
imported by the command itself.
"""

from __future__ import annotations

import builtins
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory

from infracards.paths import database_path
from infracards.store.db import alembic_config, open_store
from infracards.store.file import SCHEMA_HEAD, current_revision
from tests.conftest import career_mock, migrate_file

DEMO_KEY = "GTA13-PAJRP-RFMBW-3P4BP-X5NF6-K0PVN"
HEAVY = ("sqlalchemy", "sqlmodel", "alembic", "yaml", "cryptography", "textual", "platformdirs")
"""What a command that only reads must not import (the ORM alone took ~0.3 s)."""

RUN = """
import json, sys
from infracards.__main__ import entry
code = entry(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""


def infracards(home: Path, *argv: str) -> tuple[int, set[str], str, str]:
    """(exit code, modules imported, stdout, stderr) of one command in a fresh process."""
    report = home.parent / "modules.json"
    result = subprocess.run(
        [sys.executable, "-c", RUN, str(report), *argv],
        env={**os.environ, "INFRACARDS_HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    ran = json.loads(report.read_text())
    return ran["code"], set(ran["modules"]), result.stdout, result.stderr


def heavy(modules: set[str]) -> set[str]:
    return {module for module in modules if module.split(".")[0] in HEAVY}


def revision(home: Path) -> str:
    with closing(sqlite3.connect(database_path(home))) as db:
        return str(db.execute("SELECT version_num FROM alembic_version").fetchone()[0])


def test_reading_commands_import_no_orm_migrations_or_crypto(home: Path) -> None:
    code, modules, _, _ = infracards(home, "status")  # the first run creates and loads the store
    assert code == 0 and {"sqlalchemy", "alembic", "yaml"} <= modules
    assert infracards(home, "unlock", DEMO_KEY)[0] == 0  # a stored key is checked too
    for argv in (
        ["status"],
        ["status", "--json"],
        ["show", "q01"],
        ["show", "Q1", "--json"],
        ["unlock", "--status"],
        ["unlock", "--status", "--json"],
        ["stats"],
        ["stats", "--json"],
        ["config"],
        ["config", "new-per-day", "12"],
        ["deck", "list"],
    ):
        code, modules, out, err = infracards(home, *argv)
        assert (code, err) == (0, ""), argv
        assert out, argv
        assert heavy(modules) == set(), argv
    assert "new-per-day = 12" in infracards(home, "config")[2]


def practised(home: Path) -> None:
    """A home with interview practice in it: a mock interview whose key points were checked
    (one said of each card's list), a leech, and an interview date."""
    engine = open_store(home)
    career_mock(engine, clock=lambda: datetime.now().astimezone())
    engine.dispose()
    with closing(sqlite3.connect(database_path(home))) as db, db:
        db.execute(
            "UPDATE cardstate SET leech = 1 WHERE card = (SELECT id FROM card WHERE card_id = 'q05')"
        )
    day = (datetime.now().astimezone() + timedelta(days=30)).date().isoformat()
    assert infracards(home, "config", "interview-date", day)[0] == 0


def test_reading_commands_show_interview_practice_without_the_orm(home: Path) -> None:
    """`stats` and `status` read main's practice data (checks, mock scores, leeches, the
    interview plan) with sqlite3 alone, as they read the reviews."""
    assert infracards(home, "status")[0] == 0
    practised(home)
    code, modules, out, err = infracards(home, "stats")
    assert (code, err, heavy(modules)) == (0, "", set())
    assert "Mock interviews: score over time (1 session" in out
    assert "Leeches: cards that lapsed too often (1)" in out and "q05" in out
    assert "No key-point check yet" not in out
    code, modules, out, _ = infracards(home, "stats", "--json")
    practice = json.loads(out)["practice"]
    assert heavy(modules) == set() and practice["key_points"]["cards_checked"] == 2
    assert len(practice["mock_scores"]) == 1
    assert [leech["card_id"] for leech in practice["leeches"]] == ["q05"]
    code, modules, out, _ = infracards(home, "status", "--json")
    [deck] = json.loads(out)["decks"]
    assert heavy(modules) == set() and (deck["days_left"], deck["leeches"]) == (30, 1)
    assert deck["readiness"] is not None and deck["plan_new_per_day"] is not None
    for argv in (["status"], ["plan"], ["plan", "--json"], ["mock", "--report", "--json"]):
        code, modules, out, err = infracards(home, *argv)
        assert (code, err, heavy(modules)) == (0, "", set()), argv
        assert out, argv


def test_the_schema_check_never_opens_a_live_store_by_itself(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing a descriptor of the database file drops every SQLite lock the process holds on
    it; a first-run `config` lost its write that way (its connection was open while the store
    was checked again). Only SQLite may open a store that is in use."""
    assert infracards(home, "status")[0] == 0
    path = database_path(home)
    opened: list[str] = []

    def watched(real: Any) -> Any:
        def opening(file: Any, *args: Any, **kwargs: Any) -> Any:
            opened.append(str(file))
            return real(file, *args, **kwargs)

        return opening

    for owner, name in ((Path, "open"), (builtins, "open"), (os, "open")):
        monkeypatch.setattr(owner, name, watched(getattr(owner, name)))
    with closing(sqlite3.connect(path)) as live:
        live.execute("SELECT count(*) FROM card").fetchone()
        assert current_revision(path) == SCHEMA_HEAD
    assert str(path) not in opened


def test_the_schema_head_the_fast_check_compares_with_is_alembics() -> None:
    assert ScriptDirectory.from_config(alembic_config()).get_current_head() == SCHEMA_HEAD


def test_a_reading_command_migrates_a_store_that_is_behind(home: Path) -> None:
    assert infracards(home, "status")[0] == 0
    older = ScriptDirectory.from_config(alembic_config()).get_revision(SCHEMA_HEAD).down_revision
    assert isinstance(older, str)
    migrate_file(database_path(home), older, up=False)
    assert revision(home) == older

    code, modules, out, _ = infracards(home, "status", "--json")
    assert code == 0 and json.loads(out)["decks"][0]["cards"] == 33
    assert "alembic" in modules  # imported because, and only because, a migration was due
    assert revision(home) == SCHEMA_HEAD
    assert list(home.glob(f"infracards.db.bak-schema-{older}-*"))  # backed up first
    assert heavy(infracards(home, "status")[1]) == set()  # at head again: the cheap check


@pytest.mark.parametrize("argv", [["status"], ["show", "q01"], ["stats"], ["unlock", "--status"]])
def test_a_newer_or_damaged_store_is_refused_with_the_same_message(
    home: Path, argv: list[str]
) -> None:
    assert infracards(home, "status")[0] == 0
    path = database_path(home)
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE alembic_version SET version_num = '9999'")
        db.commit()
    code, _, out, err = infracards(home, *argv)
    assert (code, out) == (1, "")
    assert err == (
        f"infracards: {path} was written by a newer infracards (schema 9999); "
        "upgrade infracards (pip install -U infracards) to open it\n"
    )
    path.write_bytes(b"not a database at all\n" * 50)
    code, _, out, err = infracards(home, *argv)
    assert (code, out) == (1, "") and "it is not an SQLite database" in err
    assert path.read_bytes() == b"not a database at all\n" * 50


def test_the_store_is_closed_at_exit_and_its_log_folded_back(home: Path) -> None:
    assert infracards(home, "config", "rollover-hour", "5")[0] == 0
    wal = database_path(home).with_name("infracards.db-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    with closing(sqlite3.connect(database_path(home))) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("SELECT value FROM setting WHERE key = 'rollover-hour'").fetchone() == (
            "5",
        )
