"""The database file through the standard library's ``sqlite3`` alone.

Every open makes the same checks, here: the data folder, the file's header, its schema
revision. A store behind the app's schema is migrated first (``store.db``, with Alembic, the
only time either is imported); a newer or damaged one is refused. Commands that only read
(``status``, ``show``, ``stats``, ``unlock --status``, ``config``) then work on a
``StoreFile``: one ``sqlite3`` connection with the app's settings (WAL, ``synchronous=FULL``,
the busy timeout), so they start without SQLAlchemy (~0.3 s of imports). The app and the
commands that load decks or import progress use ``store.db``'s engine; both run the same
SQL (``store.reads``) through ``reading`` and ``writing``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from infracards.errors import StoreError
from infracards.files import locked_file, reason
from infracards.paths import database_path

if TYPE_CHECKING:
    from sqlalchemy import Engine

SCHEMA_HEAD = "0007"
"""The newest Alembic revision this app knows (a test keeps it equal to the scripts' head)."""
BUSY_TIMEOUT_MS = 5000
PAGE_SIZE = 8192
"""For new databases: a card row is ~2.5 KB, so 8 KB pages hold three where 4 KB held one."""
_SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreFile:
    """The database of a home, opened with ``sqlite3`` only; ``open`` checks and migrates."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = None

    @classmethod
    def open(cls, home: Path) -> StoreFile:
        """The store in ``home``: created and migrated first if it is new or behind."""
        return cls(prepare(home))

    def connection(self) -> sqlite3.Connection:
        """The one connection, made on first use with the settings every connection gets."""
        if self._connection is None:
            try:
                connection = sqlite3.connect(self.path, isolation_level=None)
                configure_connection(connection)
                connection.execute("PRAGMA foreign_keys=ON")
            except sqlite3.Error as error:
                raise store_error(error, self.path) or StoreError(str(error)) from None
            self._connection = connection
        return self._connection

    def close(self) -> None:
        """Close the connection (the last one to close folds the write-ahead log back)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None


Store: TypeAlias = "StoreFile | Engine"
"""Either way into the same database: what the read services take."""


@contextmanager
def reading(store: Store) -> Iterator[sqlite3.Connection]:
    """One consistent read (a deferred transaction) on the store's sqlite3 connection."""
    with _transaction(store, "BEGIN DEFERRED") as connection:
        yield connection


@contextmanager
def writing(store: Store) -> Iterator[sqlite3.Connection]:
    """One write, all or nothing: SQLite's write lock is taken at BEGIN (waiting up to 5 s
    for another infracards process), so what it reads is still true when it writes."""
    with _transaction(store, "BEGIN IMMEDIATE") as connection:
        yield connection


@contextmanager
def in_transaction(connection: sqlite3.Connection, begin: str) -> Iterator[sqlite3.Connection]:
    """``begin``, then COMMIT if the block ends normally, or roll back if it raises: the one
    transaction shape of a ``StoreFile``'s connection and of the app engine's pooled one."""
    connection.execute(begin)
    try:
        yield connection
    except BaseException:
        connection.rollback()
        raise
    connection.execute("COMMIT")


@contextmanager
def _transaction(store: Store, begin: str) -> Iterator[sqlite3.Connection]:
    if not isinstance(store, StoreFile):
        from infracards.store.db import driver_transaction  # an engine: SQLAlchemy is loaded

        with driver_transaction(store, begin) as connection:
            yield connection
        return
    try:
        with in_transaction(store.connection(), begin) as connection:
            yield connection
    except sqlite3.DatabaseError as error:
        translated = store_error(error, store.path)
        if translated is None:
            raise
        raise translated from error


def configure_connection(connection: sqlite3.Connection) -> None:
    """The settings of every connection, the engine's and a ``StoreFile``'s."""
    cursor = connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # Takes effect on a new database only; an existing one keeps its page size. A 100k-card
    # store: 397 → 266 MiB, and the commit that loads it 1.8 → 1.1 s.
    cursor.execute(f"PRAGMA page_size={PAGE_SIZE}")
    cursor.execute("PRAGMA journal_mode=WAL")
    # FULL: a grade acknowledged on screen survives a power cut, not only a crash.
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


def prepare(home: Path) -> Path:
    """The database path in ``home``, ready to open: the folder exists, the file is an
    infracards store at the app's schema (migrated when behind; refused when newer or damaged).

    Several processes may start at once on an empty home or an old store: the first takes
    ``infracards.lock`` and creates or migrates the store while the others wait for it, then
    find it at head. A store already at head (every start but the first) takes no lock.
    """
    ensure_home(home)
    path = database_path(home)
    if not _at_head(path):
        with _schema_lock(home):
            revision = current_revision(path)  # again: another process may have done it
            if revision != SCHEMA_HEAD:
                from infracards.store.db import upgrade  # Alembic and SQLAlchemy: only now

                upgrade(path, revision)
    return path


def _at_head(path: Path) -> bool:
    """Whether the store is complete and at head; False for anything else (absent, being
    created by another process, damaged), which the check under the lock then names."""
    try:
        return current_revision(path) == SCHEMA_HEAD
    except StoreError:
        return False


@contextmanager
def _schema_lock(home: Path) -> Iterator[None]:
    """Hold ``home/infracards.lock`` while the store is created or migrated (waiting for
    another process that holds it)."""
    lock = home / "infracards.lock"
    with ExitStack() as held:
        try:
            held.enter_context(locked_file(lock))
        except OSError as error:
            cause = cannot_write(database_path(home))
            planted = (
                f"; remove {lock}, which nothing but infracards should create"
                if error.errno == errno.ELOOP
                else ""
            )
            raise StoreError(
                f"cannot create or upgrade the store in {home}: "
                f"{cause or f'cannot create infracards.lock ({reason(error)}){planted}'}"
            ) from None
        yield


def ensure_home(home: Path) -> None:
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(
            f"cannot create the data folder {home} ({reason(error)}); "
            "set INFRACARDS_HOME to a writable folder"
        ) from None
    if not home.is_dir():
        raise StoreError(f"{home} is not a folder; set INFRACARDS_HOME to a writable folder")


def current_revision(path: Path) -> str | None:
    """The database's Alembic revision (None for a new or empty file), read with sqlite3.

    Only SQLite touches the file while it may be a live database: a descriptor of our own,
    once closed, would drop every SQLite lock this process holds on it (SQLite's "How To
    Corrupt" §2.2), and another process could then delete the write-ahead log under a
    connection of ours. Its header is read only when SQLite cannot read it.
    """
    if not path.exists():
        return None
    if path.is_dir() or not os.access(path, os.R_OK):
        code = errno.EISDIR if path.is_dir() else errno.EACCES
        raise StoreError(f"cannot read {path} ({os.strerror(code)})")
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
            connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
            if "alembic_version" not in tables:
                if tables:
                    raise damaged(path, "it holds tables infracards did not create")
                return None
            row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.OperationalError as error:  # cannot be opened: not the same as damaged
        raise _operational(str(error), path) from None
    except sqlite3.DatabaseError as error:
        raise damaged(path, _not_sqlite(path) or str(error)) from None
    return row[0] if row else None


def _not_sqlite(path: Path) -> str | None:
    """Why a file SQLite cannot read is no database at all, if it is not one."""
    try:
        with path.open("rb") as handle:
            header = handle.read(len(_SQLITE_MAGIC))
    except OSError as error:
        return f"it cannot be read ({error.strerror})"
    return "it is not an SQLite database" if header != _SQLITE_MAGIC else None


def damaged(path: Path, reason: str) -> StoreError:
    backups = sorted(path.parent.glob(f"{path.name}.bak-*"))
    restore = f"restore the newest backup, {backups[-1]}, or " if backups else ""
    return StoreError(
        f"{path} cannot be used: {reason}. It was left untouched; {restore}move it aside "
        "and start again"
    )


def store_error(error: BaseException | None, path: Path) -> StoreError | None:
    """What to tell the learner about an sqlite3 error; None for a bug (a broken constraint).

    SQLite reports a damaged file ("database disk image is malformed") as a plain
    DatabaseError, and gets the same advice as a file found damaged when it is opened.
    """
    if isinstance(error, sqlite3.OperationalError):
        return _operational(str(error), path)
    if type(error) is sqlite3.DatabaseError:
        return damaged(path, str(error))
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
