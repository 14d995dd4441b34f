"""Bounded reads of the files a learner hands us, and their digests.

Apart from ``deck`` (and its YAML parser): a start checks that the shipped deck is unchanged
by its digest alone, without importing PyYAML.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import stat
from pathlib import Path

from infracards.errors import DeckError

MAX_DECK_BYTES = 512 << 20
"""100,000 cards with 1.5k-character Chinese answers take about 240 MB; twice that leaves room."""


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_deck_bytes(path: Path, *, max_bytes: int = MAX_DECK_BYTES) -> bytes:
    """Read a regular file of bounded size (a FIFO or /dev/zero must not hang or exhaust us)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise DeckError(f"{path}: no such file") from None
    except OSError as error:
        raise DeckError(f"{path}: cannot open ({error.strerror})") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise DeckError(f"{path}: not a regular file")
        if status.st_size > max_bytes:
            raise _too_large(path, max_bytes)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise DeckError(f"{path}: cannot read ({error.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # it grew while we read it
        raise _too_large(path, max_bytes)
    return data


def _too_large(path: Path, max_bytes: int) -> DeckError:
    return DeckError(f"{path}: larger than the {max_bytes >> 20} MiB limit for a deck file")


_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def write_private_file(path: Path, data: bytes, *, replace: bool = True) -> None:
    """Write ``data`` to ``path`` with mode 0600, atomically: a new, unpredictable temp file
    beside it (O_EXCL, no symlink followed), fsync, then a rename, then fsync the folder. A
    crash or a full disk leaves the previous file whole. With ``replace=False`` an existing
    ``path`` is never touched (FileExistsError), even when it appears meanwhile."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(temp, path)
        else:
            os.link(temp, path)  # fails if path exists: no window to overwrite it
            temp.unlink()
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    # The rename already happened; some filesystems (and Windows) refuse to fsync a directory.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
