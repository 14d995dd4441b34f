"""The license file (§1.7): card keys the learner unlocked, 0600, replaced atomically.

It stores card keys, never K_R or answers: a card key opens later releases while it keeps a
slot, and leaving its slot out is how revocation works. Only a fully verified unlock writes it.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

from infracards.errors import KeyFormatError, LicenseError
from infracards.seal.encoding import parse_json, show_value
from infracards.seal.license_key import parse_license_key

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

LICENSE_FORMAT = "infracards-license/v1"
MAX_LICENSE_BYTES = 64 * 1024
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_TEMP_GLOB = ".license.json.*.tmp"


def license_path(home: Path) -> Path:
    """Where the license lives inside ``$INFRACARDS_HOME``."""
    return home / "license.json"


def load_license(home: Path) -> dict[str, str]:
    """Deck id → card key (30 symbols); {} before the first unlock. Never modifies the file."""
    path = license_path(home)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise LicenseError(f"cannot read {path}: {error.strerror}") from None
    _check_file_safety(path, info)
    try:
        fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW)
        with os.fdopen(fd, "rb") as file:
            data = file.read(MAX_LICENSE_BYTES + 1)
    except OSError as error:
        raise LicenseError(f"cannot read {path}: {error.strerror}") from None
    if len(data) > MAX_LICENSE_BYTES:
        raise LicenseError(
            f"{path} grew past 64 KiB while being read; run `infracards unlock` again"
        )
    return _parse_license(path, data)


def _check_file_safety(path: Path, info: os.stat_result) -> None:
    again = "remove it and run `infracards unlock` again"
    if stat.S_ISLNK(info.st_mode):
        raise LicenseError(f"{path} is a symbolic link, which infracards never follows; {again}")
    if not stat.S_ISREG(info.st_mode):
        raise LicenseError(f"{path} is not a regular file; {again}")
    if info.st_size > MAX_LICENSE_BYTES:
        raise LicenseError(f"{path} is {info.st_size} bytes, too large for a license; {again}")
    if os.name != "posix":  # Windows: profile ACLs protect the file, mode bits mean little
        return
    if info.st_uid != os.getuid():
        raise LicenseError(
            f"{path} belongs to another user (uid {info.st_uid}); "
            f"run: chown {os.getuid()} {path} && chmod 600 {path}"
        )
    if info.st_mode & 0o077:
        mode = stat.S_IMODE(info.st_mode)
        raise LicenseError(
            f"{path} can be read by other users (mode {mode:o}); run: chmod 600 {path}"
        )


def _parse_license(path: Path, data: bytes) -> dict[str, str]:
    def damaged(reason: str) -> LicenseError:
        return LicenseError(f"{path} is damaged ({reason}); run `infracards unlock` again")

    try:
        document = parse_json(data)
    except ValueError as error:
        raise damaged(str(error)) from None
    if not isinstance(document, dict) or set(document) != {"format", "keys"}:
        raise damaged("expected an object with format and keys")
    if document["format"] != LICENSE_FORMAT:
        raise damaged(f"format is {show_value(document['format'])}, expected {LICENSE_FORMAT!r}")
    stored = document["keys"]
    if not isinstance(stored, dict):
        raise damaged("keys is not an object")
    keys = {}
    for deck_id, text in stored.items():
        if not isinstance(text, str):
            raise damaged(f"the key for {show_value(deck_id)} is not a string")
        try:
            keys[deck_id] = parse_license_key(text).compact
        except KeyFormatError:
            raise damaged(f"the stored key for {show_value(deck_id)} fails its checksum") from None
    return keys


def save_license(home: Path, keys: dict[str, str]) -> None:
    """Replace the license with ``keys`` (deck id → card key in any accepted spelling).

    Temp file, fsync, rename, fsync the directory: a crash or a full disk leaves the
    previous file whole.
    """
    data = _encode_license(keys)
    with _writing_license(home):
        _write_atomically(license_path(home), data)


def forget_license(home: Path, deck_id: str) -> None:
    """Drop the stored card key for ``deck_id``; a no-op when there is none."""
    if not os.path.lexists(license_path(home)):
        return
    with _writing_license(home):
        keys = load_license(home)
        if deck_id in keys:
            del keys[deck_id]
            _write_atomically(license_path(home), _encode_license(keys))


def _encode_license(keys: dict[str, str]) -> bytes:
    canonical = {deck_id: parse_license_key(key).compact for deck_id, key in sorted(keys.items())}
    document = {"format": LICENSE_FORMAT, "keys": canonical}
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


@contextlib.contextmanager
def _writing_license(home: Path) -> Iterator[None]:
    """Create home (0700) and hold ``license.lock``; any OSError becomes one LicenseError line."""
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        # license.lock is never deleted, so every writer locks the same inode.
        fd = os.open(home / "license.lock", os.O_RDWR | os.O_CREAT | _O_NOFOLLOW, 0o600)
        try:
            if sys.platform == "win32":
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
            else:
                fcntl.flock(fd, fcntl.LOCK_EX)
            # Under the lock no writer is mid-write: any temp file is left by a killed one.
            for stale in home.glob(_TEMP_GLOB):
                stale.unlink(missing_ok=True)
            yield
        finally:
            os.close(fd)
    except OSError as error:
        raise LicenseError(
            f"cannot write {license_path(home)}: {error.strerror or error}; "
            "the previous license is unchanged"
        ) from None


def _write_atomically(path: Path, data: bytes) -> None:
    import secrets  # ~7 ms to import: only when a license is written, not read

    temp = path.with_name(f".license.json.{secrets.token_hex(8)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
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
