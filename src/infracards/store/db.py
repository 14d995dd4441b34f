"""The SQLAlchemy engine over the store: migrations to head (with a backup first), the ORM's
transactions, and the pooled sqlite3 connection for plain SQL. The checks made before any open
and the connection settings are ``store.file``'s, shared with the commands that need no ORM."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DatabaseError, SQLAlchemyError
from sqlmodel import Session

from infracards.errors import StoreError
from infracards.paths import migrations_dir
from infracards.store.file import (
    cannot_write,
    configure_connection,
    in_transaction,
    prepare,
    store_error,
)


def open_store(home: Path) -> Engine:
    """Open (creating and migrating if needed) the database in ``home``."""
    return _engine(prepare(home))


def _engine(path: Path, *, foreign_keys: bool = True) -> Engine:
    engine = create_engine(f"sqlite:///{path}")
    event.listen(engine, "connect", _configure_connection)
    if foreign_keys:
        event.listen(engine, "connect", _enable_foreign_keys)
    event.listen(engine, "begin", _begin)
    return engine


def _enable_foreign_keys(connection: sqlite3.Connection, _record: Any) -> None:
    connection.execute("PRAGMA foreign_keys=ON")


@contextmanager
def transaction(engine: Engine, *, write: bool = False) -> Iterator[Session]:
    """One user action, written completely or not at all.

    ``write=True`` takes SQLite's write lock at BEGIN (waiting up to 5 s for another
    infracards process), so what the action reads is still true when it writes: two app
    instances grading the same card cannot overwrite each other's state. Reads never wait.
    """
    bind = engine.execution_options(infracards_write=write)
    try:
        with Session(bind, expire_on_commit=False) as session, session.begin():
            yield session
    # SQLAlchemy's wrapper of sqlite3's error, or sqlite3's own from plain SQL (store.reads)
    except (DatabaseError, sqlite3.DatabaseError) as error:
        translated = _store_error(error.orig if isinstance(error, DatabaseError) else error, engine)
        if translated is None:
            raise
        raise translated from error


@contextmanager
def driver_transaction(engine: Engine, begin: str) -> Iterator[sqlite3.Connection]:
    """A transaction (``BEGIN DEFERRED`` or ``IMMEDIATE``) on the pooled sqlite3 connection
    itself, for ``store.file.reading`` and ``writing``: the plain SQL of ``store.reads``, and
    the grade, whose few statements would otherwise spend more time in the Session and
    SQLAlchemy's statement layer than in SQLite. Same locks, same COMMIT and fsync."""
    try:
        pooled = engine.raw_connection()
        try:
            connection = pooled.driver_connection
            assert connection is not None
            with in_transaction(connection, begin):
                yield connection
        finally:
            pooled.close()
    except (sqlite3.DatabaseError, DatabaseError) as error:  # SQLAlchemy's when connecting
        translated = _store_error(error.orig if isinstance(error, DatabaseError) else error, engine)
        if translated is None:
            raise
        raise translated from error


def session_connection(session: Session) -> sqlite3.Connection:
    """The sqlite3 connection under a Session, inside its transaction."""
    driver = session.connection().connection.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    return driver


def checkpoint(engine: Engine) -> bool:
    """Copy committed pages from the write-ahead log into the database file, now.

    SQLite otherwise does this inside the COMMIT that takes the log past 1,000 pages: with one
    grade writing ~13 pages, that grade waited ~6 ms more every ~80 grades. The review screen
    calls this from a worker while the learner reads. PASSIVE never waits for other readers or
    writers, and durability does not depend on it: a commit is durable once the log is synced.
    False if SQLite could not (the next COMMIT past 1,000 pages will then do it).
    """
    try:
        with engine.connect() as connection:
            driver = connection.connection.driver_connection
            assert driver is not None
            driver.execute("PRAGMA wal_checkpoint(PASSIVE)").close()
    except (sqlite3.Error, SQLAlchemyError):
        return False
    return True


def _store_error(error: BaseException | None, engine: Engine) -> StoreError | None:
    return store_error(error, Path(engine.url.database or ""))


def _begin(connection: Connection) -> None:
    mode = "IMMEDIATE" if connection.get_execution_options().get("infracards_write") else "DEFERRED"
    connection.exec_driver_sql(f"BEGIN {mode}")


def _configure_connection(connection: sqlite3.Connection, _record: Any) -> None:
    # SQLAlchemy's "begin" event issues BEGIN itself, so it can ask for the write lock up front.
    connection.isolation_level = None
    configure_connection(connection)


def upgrade(path: Path, revision: str | None) -> None:
    """Migrate to head (``store.file.prepare`` calls this, holding ``infracards.lock``, for a
    store that is not at head); an existing database is copied aside first, and one from a
    newer app is refused."""
    from alembic.script import ScriptDirectory  # 60 ms import, needed only when upgrading

    config = alembic_config()
    known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
    if revision is not None and revision not in known:
        raise StoreError(
            f"{path} was written by a newer infracards (schema {revision}); "
            "upgrade infracards (pip install -U infracards) to open it"
        )
    backup = backup_database(path, label=f"schema-{revision}") if revision is not None else None
    # Foreign keys off while migrating: batch mode rebuilds tables, and dropping a table
    # with them on would fire ON DELETE actions on the rows that point at it.
    engine = _engine(path, foreign_keys=False)
    try:
        migrate(engine, config)
        with engine.connect() as connection:
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise StoreError(f"the upgraded schema has {len(broken)} dangling references")
    except Exception as error:
        where = f"; your data before the upgrade is in {backup}" if backup else ""
        cause = cannot_write(path)
        if cause is None and isinstance(error, DatabaseError):
            cause = str(error.orig)  # SQLite's words, without SQLAlchemy's statement and link
        raise StoreError(f"upgrading {path} failed ({cause or error}){where}") from error
    finally:
        engine.dispose()


def alembic_config() -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    return config


def migrate(engine: Engine, config: Any | None = None) -> None:
    """Upgrade the database behind ``engine`` to the newest schema."""
    from alembic import command

    config = config or alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def backup_database(path: Path, *, label: str) -> Path:
    """A consistent copy (SQLite's online backup, WAL included) next to the database."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.bak-{label}-{stamp}")
    try:
        with closing(sqlite3.connect(path)) as source, closing(sqlite3.connect(target)) as copy:
            source.backup(copy)
    except (OSError, sqlite3.Error) as error:
        cause = cannot_write(target) or error
        raise StoreError(
            f"cannot back up {path} before upgrading ({cause}); nothing was changed"
        ) from None
    return target
