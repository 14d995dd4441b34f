"""Migrations: empty → head, models agree with migrations, backups, and refusals."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine

from infracards.errors import StoreError
from infracards.paths import database_path
from infracards.store.db import SCHEMA_HEAD, alembic_config, backup_database, migrate, open_store


def test_schema_head_constant_matches_the_migration_scripts() -> None:
    assert ScriptDirectory.from_config(alembic_config()).get_current_head() == SCHEMA_HEAD


def test_empty_database_upgrades_to_head_and_models_agree(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
    migrate(engine)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.check(config)  # raises if autogenerate would find any difference
        assert (
            connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
            == SCHEMA_HEAD
        )


def test_open_store_creates_home_and_database(home: Path) -> None:
    open_store(home).dispose()
    assert database_path(home).exists()
    assert (home.stat().st_mode & 0o777) == 0o700


def test_database_from_a_newer_app_is_refused_and_kept(home: Path) -> None:
    open_store(home).dispose()
    path = database_path(home)
    with sqlite3.connect(path) as connection:
        connection.execute("INSERT INTO setting (key, value) VALUES ('new-per-day', '7')")
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(StoreError, match="newer infracards"):
        open_store(home)
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT value FROM setting").fetchall() == [("7",)]


def test_a_file_that_is_not_a_database_is_left_untouched(home: Path) -> None:
    home.mkdir(parents=True)
    path = database_path(home)
    path.write_bytes(b"this is my shopping list\n" * 100)
    with pytest.raises(StoreError, match=r"not an SQLite database.*left untouched"):
        open_store(home)
    assert path.read_bytes() == b"this is my shopping list\n" * 100


def test_a_truncated_database_is_reported_and_kept(home: Path) -> None:
    open_store(home).dispose()
    path = database_path(home)
    data = path.read_bytes()
    path.write_bytes(data[:200])
    with pytest.raises(StoreError, match="cannot be used"):
        open_store(home)
    assert path.read_bytes() == data[:200]


def test_an_unwritable_home_is_explained(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="set INFRACARDS_HOME to a writable folder"):
        open_store(blocker / "home")


def test_backup_is_a_consistent_copy_next_to_the_database(home: Path) -> None:
    open_store(home).dispose()
    path = database_path(home)
    with sqlite3.connect(path) as connection:
        connection.execute("INSERT INTO setting (key, value) VALUES ('rollover-hour', '5')")
    backup = backup_database(path, label="schema-0001")
    assert backup.parent == home and backup.name.startswith("infracards.db.bak-schema-0001-")
    with sqlite3.connect(backup) as connection:
        assert connection.execute("SELECT value FROM setting").fetchall() == [("5",)]
