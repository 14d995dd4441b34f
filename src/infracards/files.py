"""Files a learner or publisher hands us, read with bounds and written safely; their digests.

Apart from ``deck`` (and its YAML parser): a start checks that the shipped deck is unchanged
by its digest alone, without importing PyYAML.

Reads take regular files only, opened without blocking (a FIFO or a device swapped in for the
file cannot hang us) and checked on the opened descriptor, at most a stated size (read limit+1,
so a file that grows is caught too). Every write (export, the published deck and key slots,
issued card keys, the key registry, the license) goes through ``write_atomically``: an
unpredictable temporary file created exclusively in the target's folder, then one rename (or a
link where nothing may be overwritten): a planted symbolic link or a device node is never
written through, and a failure leaves the target as it was.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from infracards.errors import DeckError, InfracardsError
from infracards.terminal_text import echo

MAX_DECK_BYTES = 512 << 20
"""100,000 cards with 1.5k-character Chinese answers take about 240 MB; twice that leaves room."""
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""Refuse a symbolic link when opening (0 where the platform has no such flag)."""
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
"""Opening a file only to read it: a FIFO does not hold the open, and a terminal does not
become the process's controlling one."""
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)
_REASONS = {
    errno.ENOSPC: "no space is left on the device",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENAMETOOLONG: "the file name is too long",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.ENOENT: "the folder does not exist",
    errno.ELOOP: "it is a symbolic link, which infracards does not follow here",
    errno.EISDIR: "it is a folder",
    errno.EEXIST: "it already exists",
}


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def keyslots_path(deck_path: Path) -> Path:
    """Where a sealed deck's key slots are shipped: ``module03.keyslots.json`` beside it."""
    return deck_path.with_name(f"{deck_path.name.removesuffix('.yaml')}.keyslots.json")


def release_digest(deck_bytes: bytes, keyslots: bytes | None) -> str:
    """What a release ships, as one digest: the deck file and, if there is one, its key slots.

    A card key issued for an existing release changes only the key slots; they must be taken
    in although the deck file is byte for byte the same. A deck without key slots keeps the
    file's own digest.
    """
    if keyslots is None:
        return file_digest(deck_bytes)
    both = hashlib.sha256(b"infracards-release\0")
    both.update(hashlib.sha256(deck_bytes).digest())
    both.update(hashlib.sha256(keyslots).digest())
    return both.hexdigest()


def absent(path: Path) -> bool:
    """Nothing is at ``path``, not even a link. A path that cannot be looked at (too long, no
    permission) is not called absent: reading it then names the real cause."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except (OSError, ValueError):
        return False
    return False


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def reason(error: OSError) -> str:
    """An OSError's cause as the learner should read it."""
    return _REASONS.get(error.errno or 0, error.strerror or str(error))


@contextlib.contextmanager
def locked_file(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path``, waiting for a process that holds it. The file is
    created (0600) and never deleted, so every process locks one inode; a symbolic link
    planted in its place is refused (``ELOOP``), never followed. OSError is the caller's to
    explain."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | O_NOFOLLOW | _O_CLOEXEC, 0o600)
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


def read_regular_file(
    path: Path,
    *,
    max_bytes: int,
    what: str = "deck file",
    error: type[InfracardsError] = DeckError,
    follow_symlinks: bool = True,
) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``, or ``error`` saying why not.

    A FIFO, a device (``/dev/zero``) or a huge sparse file is refused before it is read.
    """
    where = echo(path)
    flags = READ_FLAGS | (0 if follow_symlinks else O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise error(f"{where}: no such file") from None
    except OSError as problem:
        if problem.errno == errno.ELOOP and not follow_symlinks:
            raise error(
                f"{where} is a symbolic link, which infracards does not follow for a {what}; "
                "put the file itself there"
            ) from None
        raise error(f"{where}: cannot open ({reason(problem)})") from None
    except ValueError:  # a NUL character in the path
        raise error(f"{where}: no such file (the path holds a NUL character)") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise error(f"{where} is {kind_of(status.st_mode)}, not a regular file")
        if status.st_size > max_bytes:
            raise _too_large(where, what, max_bytes, error)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as problem:
        raise error(f"{where}: cannot read ({reason(problem)})") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # it grew while we read it
        raise _too_large(where, what, max_bytes, error)
    return data


def read_deck_bytes(path: Path, *, max_bytes: int = MAX_DECK_BYTES) -> bytes:
    """A deck file's bytes (see ``read_regular_file``)."""
    return read_regular_file(path, max_bytes=max_bytes)


def _too_large(
    where: str, what: str, max_bytes: int, error: type[InfracardsError]
) -> InfracardsError:
    size = f"{max_bytes >> 20} MiB" if max_bytes >= 1 << 20 else f"{max_bytes}-byte"
    return error(f"{where}: larger than the {size} limit for a {what}")


def write_atomically(
    path: Path,
    content: str | bytes | Callable[[IO[str]], object],
    *,
    private: bool = False,
    replace: bool = True,
    stream_hint: str = "",
    error: type[InfracardsError] = InfracardsError,
) -> None:
    """Write a UTF-8 text file whole or not at all, never through a link; the one safe write.

    A random temporary file is created exclusively (``O_EXCL | O_NOFOLLOW``) beside the
    target, written (``content`` itself, or what the callback writes as text), fsynced, renamed
    over the target, or, with ``replace=False``, hard-linked to it, which fails if the target
    exists even when it appeared meanwhile. The target must be absent or a regular file: a
    symbolic link, a FIFO or a device is refused (``stream_hint`` says how to write to a stream
    instead). A ``private`` file (card keys, KEKs, the license) gets mode 0600; any other keeps
    the mode of the file it replaces, else what the umask gives. Every failure is one ``error``
    naming the real cause; the target is then as it was.
    """
    where = echo(path)
    try:
        existing: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        existing = None
    except ValueError:
        raise error(f"cannot write {where}: the path holds a NUL character") from None
    except OSError as problem:
        raise error(f"cannot write {where}: {reason(problem)}") from None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        kind = kind_of(existing.st_mode)
        raise error(
            f"cannot write {where}: it is {kind}, not a regular file, and infracards replaces "
            f"only regular files{'; ' + stream_hint if stream_hint else ''}"
        )
    if existing is not None and not replace:
        raise error(f"cannot write {where}: it already exists, and it is never overwritten")
    if private:
        mode = 0o600  # card keys, KEKs, the license: whatever the replaced file had
    elif existing is not None:
        mode = stat.S_IMODE(existing.st_mode)
    else:
        mode = _umask_mode()
    folder = path.parent
    # os.urandom is what secrets.token_hex reads; importing secrets (and random) cost every
    # command ~1.5 ms.
    temporary = folder / f".{path.name[:64]}.{os.urandom(8).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | _O_CLOEXEC
    try:
        fd = os.open(temporary, flags, 0o600)
    except OSError as problem:
        raise error(
            f"cannot write {where}: cannot create a file in the folder {echo(folder)} "
            f"({reason(problem)})"
        ) from None
    try:
        try:
            os.fchmod(fd, mode)
        except OSError:
            os.close(fd)
            raise
        if callable(content):
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
                content(out)
                out.flush()
                os.fsync(out.fileno())
        else:
            _write_all(fd, content.encode("utf-8") if isinstance(content, str) else content)
        if replace:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)  # fails if path exists: no window to overwrite it
            _remove(temporary)
    except OSError as problem:
        _remove(temporary)
        raise error(f"cannot write {where}: {reason(problem)}; it is unchanged") from None
    except BaseException:
        _remove(temporary)
        raise
    _fsync_folder(folder)


def _write_all(fd: int, data: bytes) -> None:
    """Write and fsync ``data``, then close ``fd`` whatever happens."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask_mode() -> int:
    """The mode ``open()`` would give a new file."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _remove(temporary: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(temporary)


def _fsync_folder(folder: Path) -> None:
    # The rename already happened; some file systems (and Windows) refuse to fsync a folder.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
