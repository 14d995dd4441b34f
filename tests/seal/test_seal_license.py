"""The license file: test rows 1 (stored form), 36, 37, 38."""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import infracards.seal
from infracards.errors import KeyFormatError, LicenseError
from infracards.seal import (
    IssuedKey,
    forget_license,
    license_path,
    load_license,
    save_license,
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "infracards-home"


@pytest.fixture
def key(issued: list[IssuedKey]) -> str:
    return issued[0].license_key


@pytest.fixture
def saved(home: Path, key: str) -> bytes:
    """A valid license holding ``key`` for module03; returns its bytes."""
    save_license(home, {"module03": key})
    return license_path(home).read_bytes()


def leftovers(home: Path) -> set[str]:
    return {p.name for p in home.iterdir()} - {"license.json", "license.lock"}


def test_save_creates_a_private_home_and_file(home: Path, key: str) -> None:
    save_license(home, {"module03": key})
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE(license_path(home).stat().st_mode) == 0o600
    assert json.loads(license_path(home).read_text()) == {
        "format": "infracards-license/v1",
        "keys": {"module03": key.replace("-", "")},
    }
    assert load_license(home) == {"module03": key.replace("-", "")}
    assert leftovers(home) == set()


def test_no_license_yet_is_empty(home: Path) -> None:
    assert load_license(home) == {}
    assert not home.exists()


def test_every_accepted_spelling_stores_identical_bytes(home: Path, key: str, saved: bytes) -> None:
    """Row 1: the stored key is canonical whatever was typed."""
    messy = f" {key.lower().replace('-', ' – ')} ".replace("0", "o").replace("1", "l")
    save_license(home, {"module03": messy})
    assert license_path(home).read_bytes() == saved


def test_save_refuses_an_invalid_key(home: Path) -> None:
    with pytest.raises(KeyFormatError):
        save_license(home, {"module03": "7K3QZ-00000-00000-00000-00000-00000"})
    assert not license_path(home).exists()


def test_forget_removes_one_deck(home: Path, key: str, issued: list[IssuedKey]) -> None:
    save_license(home, {"module03": key, "module04": issued[1].license_key})
    forget_license(home, "module03")
    assert load_license(home) == {"module04": issued[1].license_key.replace("-", "")}
    forget_license(home, "module03")
    forget_license(home / "nowhere", "module03")
    assert not (home / "nowhere").exists()


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o601])
def test_a_readable_license_is_refused_with_a_chmod_hint(
    home: Path, saved: bytes, mode: int
) -> None:
    """Row 36: mode."""
    path = license_path(home)
    path.chmod(mode)
    with pytest.raises(LicenseError, match=rf"mode {mode:o}\); run: chmod 600 {path}"):
        load_license(home)
    assert path.read_bytes() == saved
    assert stat.S_IMODE(path.stat().st_mode) == mode


def test_another_owners_license_is_refused(
    home: Path, saved: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Row 36: owner (we run as root in CI, so the process uid is what changes)."""
    path = license_path(home)
    monkeypatch.setattr(os, "getuid", lambda: path.stat().st_uid + 1)
    with pytest.raises(LicenseError, match=rf"belongs to another user .*chmod 600 {path}"):
        load_license(home)
    assert path.read_bytes() == saved


def test_a_symlinked_license_is_refused(home: Path, saved: bytes, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_bytes(saved)
    target.chmod(0o600)
    license_path(home).unlink()
    license_path(home).symlink_to(target)
    with pytest.raises(LicenseError, match="symbolic link"):
        load_license(home)


def test_a_non_regular_or_huge_license_is_refused(home: Path, saved: bytes) -> None:
    path = license_path(home)
    path.unlink()
    os.mkfifo(path, 0o600)  # a FIFO would block a naive open()
    with pytest.raises(LicenseError, match="not a regular file"):
        load_license(home)
    path.unlink()
    path.write_bytes(b" " * (64 * 1024 + 1))
    path.chmod(0o600)
    with pytest.raises(LicenseError, match="65537 bytes, too large"):
        load_license(home)


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda b: b[: len(b) // 2], "not valid JSON|Unterminated|Expecting"),
        (lambda b: b"", "Expecting value"),
        (lambda b: b"\xff" + b, "utf-8"),
        (lambda b: b.replace(b'"keys"', b'"kays"'), "expected an object with format and keys"),
        (lambda b: b.replace(b"license/v1", b"license/v9"), "format is 'infracards-license/v9'"),
        (lambda b: b.replace(b"{\n", b'{\n  "keys": {},\n', 1), "duplicate JSON key 'keys'"),
        (lambda b: b.replace(b'"module03": "', b'"module03": 1, "x": "'), "is not a string"),
    ],
)
def test_a_damaged_license_says_run_unlock_again(
    home: Path, saved: bytes, key: str, damage: Any, reason: str
) -> None:
    """Row 37: corrupt or truncated; a later valid save rewrites it atomically."""
    path = license_path(home)
    path.write_bytes(damage(saved))
    with pytest.raises(
        LicenseError, match=rf"{path} is damaged \((.*)?({reason}).*run `infracards unlock` again"
    ):
        load_license(home)
    save_license(home, {"module03": key})
    assert path.read_bytes() == saved
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert leftovers(home) == set()


def test_a_stored_key_failing_its_checksum_says_run_unlock_again(
    home: Path, saved: bytes, key: str
) -> None:
    """Row 37: a stored key with one symbol changed."""
    stored = key.replace("-", "")
    typo = stored[:10] + ("0" if stored[10] != "0" else "1") + stored[11:]
    path = license_path(home)
    path.write_bytes(saved.replace(stored.encode(), typo.encode()))
    with pytest.raises(
        LicenseError, match=r"stored key for 'module03' fails its checksum.*infracards unlock"
    ):
        load_license(home)


@pytest.mark.parametrize("failing", ["write", "fsync"])
def test_a_full_disk_leaves_the_old_license_and_no_temp_file(
    home: Path, saved: bytes, issued: list[IssuedKey], monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    """Row 38: ENOSPC during the write or the fsync."""

    def no_space(*_args: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, failing, no_space)
    path = license_path(home)
    with pytest.raises(
        LicenseError, match=rf"cannot write {path}: no space is left on the device; it is unchanged"
    ):
        save_license(home, {"module03": issued[1].license_key})
    monkeypatch.undo()
    assert path.read_bytes() == saved
    assert leftovers(home) == set()


@pytest.mark.parametrize("refused", ["license.lock", ".license.json."])
def test_an_unwritable_home_leaves_the_old_license(
    home: Path, saved: bytes, issued: list[IssuedKey], monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    """Row 38: read-only home, simulated (root ignores mode bits): no lock, or no temp file."""
    real_open = os.open

    def read_only(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).name.startswith(refused):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    with pytest.raises(
        LicenseError, match=rf"cannot write {license_path(home)}: .*permission denied"
    ):
        save_license(home, {"module03": issued[1].license_key})
    monkeypatch.undo()
    assert license_path(home).read_bytes() == saved
    assert leftovers(home) == set()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_a_read_only_home_leaves_the_old_license(
    home: Path, saved: bytes, issued: list[IssuedKey]
) -> None:
    """Row 38: read-only home, for real."""
    home.chmod(0o500)
    try:
        with pytest.raises(LicenseError, match="permission denied"):
            save_license(home, {"module03": issued[1].license_key})
    finally:
        home.chmod(0o700)
    assert license_path(home).read_bytes() == saved
    assert leftovers(home) == set()


KILLED_BEFORE_RENAME = """
import os, signal, sys
from pathlib import Path
from infracards.seal import save_license
os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)
save_license(Path(sys.argv[1]), {"module03": sys.argv[2]})
"""


def test_sigkill_before_rename_keeps_the_old_license(
    home: Path, saved: bytes, key: str, issued: list[IssuedKey]
) -> None:
    """Row 38: the killed writer's temp file is the only trace, and the next save removes it."""
    src = Path(infracards.seal.__file__).parents[2]
    env = {**os.environ, "PYTHONPATH": str(src)}
    args = [sys.executable, "-c", KILLED_BEFORE_RENAME, str(home), issued[1].license_key]
    result = subprocess.run(args, env=env, capture_output=True, check=False)
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert license_path(home).read_bytes() == saved
    assert load_license(home) == {"module03": key.replace("-", "")}
    assert len(leftovers(home)) == 1
    save_license(home, {"module03": issued[1].license_key})
    assert leftovers(home) == set()
    assert load_license(home) == {"module03": issued[1].license_key.replace("-", "")}
