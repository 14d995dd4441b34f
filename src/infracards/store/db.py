"""Opening the SQLite store: checks, backup, migration to head, engine settings."""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DatabaseError, SQLAlchemyError
from sqlmodel import Session

from infracards.errors import StoreError
from infracards.files import reason
from infracards.paths import database_path, migrations_dir

SCHEMA_HEAD = "0006"
"""The newest Alembic revision this app knows (a test keeps it equal to the scripts' head)."""
BUSY_TIMEOUT_MS = 5000
PAGE_SIZE = 8192
"""For new databases: a card row is ~2.5 KB, so 8 KB pages hold three where 4 KB held one."""
_SQLITE_MAGIC = b"SQLite format 3\x00"


def open_store(home: Path) -> Engine:
    """Open (creating and migrating if needed) the database in ``home``.

    Several processes may start at once on an empty home or an old store: the first takes
    ``infracards.lock`` and creates or migrates the store while the others wait for it, then
    find it at head. A store already at head (every start but the first) takes no lock.
    """
    _ensure_home(home)
    path = database_path(home)
    if not _at_head(path):
        with _schema_lock(home):
            revision = _current_revision(path)  # again: another process may have done it
            if revision != SCHEMA_HEAD:
                _upgrade(path, revision)
    return _engine(path)


def _at_head(path: Path) -> bool:
    """Whether the store is complete and at head; False for anything else (absent, being
    created by another process, damaged), which the check under the lock then names."""
    try:
        return _current_revision(path) == SCHEMA_HEAD
    except StoreError:
        return False


@contextmanager
def _schema_lock(home: Path) -> Iterator[None]:
    """Hold ``home/infracards.lock`` while the store is created or migrated (waiting for
    another process that holds it). The file is never deleted, so all lock one inode."""
    try:
        fd = os.open(home / "infracards.lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        cause = cannot_write(database_path(home))
        raise StoreError(
            f"cannot create or upgrade the store in {home}: "
            f"{cause or f'cannot create infracards.lock ({reason(error)})'}"
        ) from None
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


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
    except DatabaseError as error:  # SQLAlchemy's wrapper of sqlite3's error
        store_error = _store_error(error.orig, engine)
        if store_error is None:
            raise
        raise store_error from error


@contextmanager
def write_connection(engine: Engine) -> Iterator[sqlite3.Connection]:
    """``transaction(engine, write=True)`` on the pooled sqlite3 connection itself.

    Same write lock, same COMMIT and fsync; for the grade, whose few statements would
    otherwise spend more time in the Session and SQLAlchemy's statement layer than in SQLite.
    """
    try:
        pooled = engine.raw_connection()
        try:
            connection = pooled.driver_connection
            assert connection is not None
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                connection.rollback()
                raise
            connection.execute("COMMIT")
        finally:
            pooled.close()
    except (sqlite3.DatabaseError, DatabaseError) as error:  # SQLAlchemy's when connecting
        store_error = _store_error(
            error.orig if isinstance(error, DatabaseError) else error, engine
        )
        if store_error is None:
            raise
        raise store_error from error


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
    """What to tell the learner about an sqlite3 error; None for a bug (a broken constraint).

    SQLite reports a damaged file ("database disk image is malformed") as a plain
    DatabaseError, and gets the same advice as a file found damaged when it is opened.
    """
    path = Path(engine.url.database or "")
    if isinstance(error, sqlite3.OperationalError):
        return _operational(str(error), path)
    if type(error) is sqlite3.DatabaseError:
        return _damaged(path, str(error))
    return None


def _operational(text: str, path: Path) -> StoreError:
    if "locked" in text or "busy" in text:
        return StoreError(
            "the database is busy: another infracards process has been writing for more than "
            f"{BUSY_TIMEOUT_MS // 1000} s; nothing was changed, try again"
        )
    cause = cannot_write(path)
    if cause is not None:
        return StoreError(f"{cause}; nothing was changed")
    if "disk is full" in text:
        return StoreError(
            f"the disk is full; nothing was changed: free some space on the disk holding "
            f"{path.parent} and try again"
        )
    if "readonly" in text or "read-only" in text:
        return StoreError(
            f"{path} is read-only; nothing was changed: make it and its folder writable"
        )
    return StoreError(f"database error: {text}; nothing was changed")


FREE_SPACE_NEEDED = 1 << 20
"""Below this much free space the store cannot even start its write-ahead log."""


def cannot_write(path: Path) -> str | None:
    """Why the store at ``path`` cannot be written, named as the cause it is (a read-only file
    system or folder or file, a full disk), with what to do; None if nothing is in the way.

    SQLite itself only says "unable to open database file" or "attempt to write a readonly
    database", which read like a damaged file.
    """
    folder = path.parent
    try:
        fs = os.statvfs(folder)
    except (OSError, AttributeError):  # the folder is gone; Windows has no statvfs
        return None
    where = "set INFRACARDS_HOME to a writable folder"
    if fs.f_flag & os.ST_RDONLY:
        return f"{folder} is on a read-only file system: remount it read-write, or {where}"
    if not os.access(folder, os.W_OK):
        return (
            f"{folder} is read-only for this user: make it writable (chmod u+w {folder}), "
            f"or {where}"
        )
    if path.exists() and not os.access(path, os.W_OK):
        return f"{path} is read-only for this user: make it writable (chmod u+w {path})"
    if fs.f_bavail * fs.f_frsize < FREE_SPACE_NEEDED:
        free = fs.f_bavail * fs.f_frsize
        return (
            f"the disk is full ({free >> 10} KiB free where {folder} is): free some space, "
            f"or {where}"
        )
    return None


def _begin(connection: Connection) -> None:
    mode = "IMMEDIATE" if connection.get_execution_options().get("infracards_write") else "DEFERRED"
    connection.exec_driver_sql(f"BEGIN {mode}")


def _configure_connection(connection: sqlite3.Connection, _record: Any) -> None:
    # SQLAlchemy's "begin" event issues BEGIN itself, so it can ask for the write lock up front.
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # Takes effect on a new database only; an existing one keeps its page size. A 100k-card
    # store: 397 → 266 MiB, and the commit that loads it 1.8 → 1.1 s.
    cursor.execute(f"PRAGMA page_size={PAGE_SIZE}")
    cursor.execute("PRAGMA journal_mode=WAL")
    # FULL: a grade acknowledged on screen survives a power cut, not only a crash.
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


def _ensure_home(home: Path) -> None:
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(
            f"cannot create the data folder {home} ({reason(error)}); "
            "set INFRACARDS_HOME to a writable folder"
        ) from None
    if not home.is_dir():
        raise StoreError(f"{home} is not a folder; set INFRACARDS_HOME to a writable folder")


def _current_revision(path: Path) -> str | None:
    """The database's Alembic revision (None for a new or empty file), read without SQLAlchemy."""
    if not path.exists():
        return None
    try:
        with path.open("rb") as handle:
            header = handle.read(len(_SQLITE_MAGIC))
    except OSError as error:
        raise StoreError(f"cannot read {path} ({error.strerror})") from None
    if not header:
        return None
    if header != _SQLITE_MAGIC:
        raise _damaged(path, "it is not an SQLite database")
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
            connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
            if "alembic_version" not in tables:
                if tables:
                    raise _damaged(path, "it holds tables infracards did not create")
                return None
            row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.OperationalError as error:  # cannot be opened: not the same as damaged
        raise _operational(str(error), path) from None
    except sqlite3.DatabaseError as error:
        raise _damaged(path, str(error)) from None
    return row[0] if row else None


def _damaged(path: Path, reason: str) -> StoreError:
    backups = sorted(path.parent.glob(f"{path.name}.bak-*"))
    restore = f"restore the newest backup, {backups[-1]}, or " if backups else ""
    return StoreError(
        f"{path} cannot be used: {reason}. It was left untouched; {restore}move it aside "
        "and start again"
    )


def _upgrade(path: Path, revision: str | None) -> None:
    """Migrate to head; an existing database is copied aside first."""
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
