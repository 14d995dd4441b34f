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
from infracards.store.db import alembic_config, backup_database, migrate, open_store
from infracards.store.file import SCHEMA_HEAD
from tests.conftest import migrate_file
from tests.store.test_counts import assert_counts_match


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


def columns(connection: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]


def older_revisions() -> list[str]:
    scripts = ScriptDirectory.from_config(alembic_config())
    return [
        script.revision for script in scripts.walk_revisions() if script.revision != SCHEMA_HEAD
    ]


@pytest.mark.parametrize("revision", older_revisions())
def test_a_database_from_each_older_revision_upgrades_with_every_review_intact(
    revision: str,
    home: Path,
    engine,
    today,
    now,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    from datetime import timedelta

    from infracards.records import RecalledPoints
    from infracards.store.db import transaction
    from infracards.store.practice import MockAnswer, save_mock_answer, start_mock
    from infracards.store.queries import set_suspended, start_session
    from infracards.store.reads import find_card
    from tests.conftest import grade_by_id

    # Realistic data written by today's app: sessions, grades, drills, several days.
    with transaction(engine, write=True) as session:
        session_id = start_session(session, now=now, study_day=today, deck_id="sample")
    checked = RecalledPoints(2, frozenset({1}), "0123456789abcdef")
    for offset, (card_id, quality) in enumerate(
        [("q01", 4), ("q02", 1), ("q02", 4), ("q03", 5), ("q01", 5)]
    ):
        grade_by_id(
            engine,
            card_id,
            quality,
            drill=offset == 2,
            now=now + timedelta(minutes=offset),
            today=today + timedelta(days=offset // 3),
            duration_ms=900,
            session_id=session_id,
            recalled=checked if card_id == "q01" else None,
        )
    # Schema 0005 and 0006 data: a mock interview with a checked question, a suspended card.
    with transaction(engine, write=True) as session:
        [q04] = find_card(session, card_id="q04", deck_id="sample")
        mock = start_mock(
            session,
            deck_id="sample",
            now=now,
            study_day=today,
            questions=1,
            seconds_per_question=180,
            topic=None,
        )
        answer = MockAnswer(q04.pk, 1, 95, False, checked, "my notes")
        save_mock_answer(session, mock_id=mock, answer=answer)
        set_suspended(session, card_pks=[q04.pk], suspended=True)
    engine.dispose()
    current = database_path(home)

    # The same rows in a database created at the older revision (columns it did not have yet are dropped).
    old_home = tmp_path / "old-home"
    old_home.mkdir()
    old = database_path(old_home)
    migrate_file(old, revision, up=True)
    with sqlite3.connect(old) as target, sqlite3.connect(current) as source:
        tables = ["deck", "card", "cardstate", "session", "review", "setting"]
        tables += [t for t in ("mocksession", "mockquestion") if columns(target, t)]
        for table in tables:
            names = [c for c in columns(target, table) if c in columns(source, table)]
            rows = source.execute(f"SELECT {', '.join(names)} FROM {table}").fetchall()
            target.executemany(
                f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                rows,
            )
        old_columns = ", ".join(columns(target, "review"))
        reviews_before = target.execute(f"SELECT {old_columns} FROM review ORDER BY id").fetchall()
        assert len(reviews_before) == 5 and all(row[2] == session_id for row in reviews_before)
        mock_before = (
            target.execute("SELECT * FROM mockquestion").fetchall()
            if "mockquestion" in tables
            else []
        )

    upgraded = open_store(old_home)  # backs up, then migrates to head
    [backup] = old_home.glob(f"infracards.db.bak-schema-{revision}-*")
    with sqlite3.connect(backup) as copy:
        assert copy.execute("SELECT * FROM review ORDER BY id").fetchall() == reviews_before
    with sqlite3.connect(old) as db:
        assert (
            db.execute(f"SELECT {old_columns} FROM review ORDER BY id").fetchall() == reviews_before
        )  # session refs kept
        assert db.execute("SELECT version_num FROM alembic_version").fetchone() == (SCHEMA_HEAD,)
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        if mock_before:  # schema 0005: mock interviews and key-point checks kept
            assert db.execute("SELECT * FROM mockquestion").fetchall() == mock_before
            assert db.execute("SELECT count(*) FROM review WHERE points = 2").fetchone() == (2,)
    assert_counts_match(old)  # schema 0003: copies and running counts filled in from the rows
    config = alembic_config()
    with upgraded.begin() as connection:
        config.attributes["connection"] = connection
        command.check(config)
    # And the app works on it: one more grade lands.
    grade_by_id(upgraded, "q04", 3, now=now, today=today)
    assert_counts_match(old)


def test_schema_0003_downgrades_and_upgrades_again_with_its_counts(
    home: Path,
    engine,
    today,
    now,  # type: ignore[no-untyped-def]
) -> None:
    from tests.conftest import grade_by_id

    grade_by_id(engine, "q01", 4, now=now, today=today)
    grade_by_id(engine, "q01", 2, now=now, today=today, drill=True)
    engine.dispose()
    path = database_path(home)
    for revision in ("0002", "head"):
        migrate_file(path, revision, up=revision == "head")
        with sqlite3.connect(path) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
            assert ("duecount" in tables) == (revision == "head")
            assert db.execute("SELECT count(*) FROM review").fetchone() == (2,)
    assert_counts_match(path)


def test_schema_0006_downgrades_and_upgrades_again_with_its_counts(
    home: Path,
    engine,
    today,
    now,  # type: ignore[no-untyped-def]
) -> None:
    """Suspended and buried cards' count buckets merge on the way down and split again."""
    from infracards.store.db import transaction
    from infracards.store.queries import bury, set_suspended
    from infracards.store.reads import find_card
    from tests.conftest import grade_by_id

    grade_by_id(engine, "q01", 4, now=now, today=today)
    with transaction(engine, write=True) as session:
        [q02] = find_card(session, card_id="q02", deck_id="sample")
        [q04] = find_card(session, card_id="q04", deck_id="sample")
        set_suspended(session, card_pks=[q02.pk], suspended=True)
        bury(session, card_pks=[q04.pk], day=today)
    engine.dispose()
    path = database_path(home)
    for revision in ("0005", "head"):
        migrate_file(path, revision, up=revision == "head")
        with sqlite3.connect(path) as db:
            if revision == "0005":
                assert db.execute(
                    "SELECT due IS NULL, locked, cards FROM duecount ORDER BY 1, 2"
                ).fetchall() == [(0, 0, 1), (1, 0, 2), (1, 1, 1)]  # q01 · q02 and q04 · q03
                assert "suspended" not in columns(db, "cardstate")
    assert_counts_match(path)  # back at head, every card is plain again (the flags went)


def test_a_damaged_database_names_the_backup_to_restore(home: Path) -> None:
    open_store(home).dispose()
    path = database_path(home)
    backup = backup_database(path, label="schema-0001")
    path.write_bytes(b"\x00" * 4096)
    with pytest.raises(StoreError, match=f"restore the newest backup, {backup}"):
        open_store(home)
