"""The license file (§1.7): card keys the learner unlocked, 0600, replaced atomically.

It stores card keys, never K_R or answers: a card key opens later releases while it keeps a
slot, and leaving its slot out is how revocation works. Only a fully verified unlock writes it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from infracards.card_text import is_unicode
from infracards.errors import KeyFormatError, LicenseError
from infracards.files import O_NOFOLLOW, READ_FLAGS, locked_file, reason, write_atomically
from infracards.seal.encoding import parse_json, show_value
from infracards.seal.license_key import parse_license_key

LICENSE_FORMAT = "infracards-license/v1"
MAX_LICENSE_BYTES = 64 * 1024
_TEMP_GLOB = ".license.json.*.tmp"


def license_path(home: Path) -> Path:
    """Where the license lives inside ``$INFRACARDS_HOME``."""
    return home / "license.json"


def load_license(home: Path) -> dict[str, str]:
    """Deck id → card key (30 symbols); {} before the first unlock. Never modifies the file.

    An unsafe file, a damaged one, or one stored key that is damaged is refused as a whole.
    """
    data = _read_license_bytes(license_path(home))
    return {} if data is None else _parse_license(license_path(home), data)[0]


def _read_license_bytes(path: Path) -> bytes | None:
    """The license's bytes (None if there is none), read from the descriptor whose safety was
    checked: opened without following a link and without blocking, so nothing swapped in
    after a check (a FIFO, a link to another file) is what gets read."""
    try:
        fd = os.open(path, READ_FLAGS | O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise LicenseError(
                f"{path} is a symbolic link, which infracards never follows; put the license "
                "file itself there (or remove the link) and run the command again"
            ) from None
        raise LicenseError(f"cannot read {path}: {error.strerror}") from None
    try:
        _check_file_safety(path, os.fstat(fd))
        chunks, left = [], MAX_LICENSE_BYTES + 1
        while left > 0 and (chunk := os.read(fd, left)):
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as error:
        raise LicenseError(f"cannot read {path}: {error.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_LICENSE_BYTES:
        raise LicenseError(
            f"{path} grew past 64 KiB while being read; run `infracards unlock` again"
        )
    return data


def _check_file_safety(path: Path, info: os.stat_result) -> None:
    again = "remove it and run `infracards unlock` again"
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


def _parse_license(
    path: Path, data: bytes, *, keep_readable: bool = False
) -> tuple[dict[str, str], list[str]]:
    """(deck id → card key, deck ids whose stored key is unreadable). A damaged entry is an
    error unless ``keep_readable``; a damaged file always is."""

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
    keys: dict[str, str] = {}
    unreadable: list[str] = []
    for deck_id, text in stored.items():
        try:
            if not is_unicode(deck_id):
                raise damaged(f"the entry for {show_value(deck_id)} is not valid text")
            if not isinstance(text, str):
                raise damaged(f"the key for {show_value(deck_id)} is not a string")
            try:
                keys[deck_id] = parse_license_key(text).compact
            except KeyFormatError:
                raise damaged(
                    f"the stored key for {show_value(deck_id)} fails its checksum"
                ) from None
        except LicenseError:
            if not keep_readable:
                raise
            unreadable.append(deck_id)
    return keys, unreadable


def save_license(home: Path, keys: dict[str, str]) -> None:
    """Replace the license with ``keys`` (deck id → card key in any accepted spelling).

    Temp file, fsync, rename, fsync the directory: a crash or a full disk leaves the
    previous file whole.
    """
    data = _encode_license(keys)
    with _writing_license(home):
        _write_license(license_path(home), data)


def store_key(home: Path, deck_id: str, key: str) -> list[str]:
    """Add or replace one deck's card key, keeping every other stored key.

    Read and rewritten under the license lock, so two unlocks at once both land. A license
    that is unsafe or damaged as a whole is refused with its fix (nothing is written: it may
    hold other decks' keys); a single unreadable entry is dropped, and its deck is returned.
    """
    with _writing_license(home):
        path = license_path(home)
        data = _read_license_bytes(path)
        keys, unreadable = (
            ({}, []) if data is None else _parse_license(path, data, keep_readable=True)
        )
        keys[deck_id] = key
        _write_license(path, _encode_license(keys))
    return [dropped for dropped in unreadable if dropped != deck_id]


def forget_license(home: Path, deck_id: str) -> None:
    """Drop the stored card key for ``deck_id``; a no-op when there is none."""
    if not os.path.lexists(license_path(home)):
        return
    with _writing_license(home):
        keys = load_license(home)
        if deck_id in keys:
            del keys[deck_id]
            _write_license(license_path(home), _encode_license(keys))


def _write_license(path: Path, data: bytes) -> None:
    write_atomically(path, data, private=True, error=LicenseError)


def _encode_license(keys: dict[str, str]) -> bytes:
    canonical = {deck_id: parse_license_key(key).compact for deck_id, key in sorted(keys.items())}
    document = {"format": LICENSE_FORMAT, "keys": canonical}
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


@contextlib.contextmanager
def _writing_license(home: Path) -> Iterator[None]:
    """Create home (0700) and hold ``license.lock``; any OSError becomes one LicenseError line.

    A LicenseError raised inside (an unsafe or damaged license) passes through unchanged.
    """
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        with locked_file(home / "license.lock"):
            # Under the lock no writer is mid-write: any temp file is left by a killed one.
            for stale in home.glob(_TEMP_GLOB):
                stale.unlink(missing_ok=True)
            yield
    except OSError as error:
        raise LicenseError(
            f"cannot write {license_path(home)}: {reason(error)}; it is unchanged"
        ) from None
