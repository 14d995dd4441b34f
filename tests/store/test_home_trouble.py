"""A home that is read-only or full gets its real cause and what to do (issue 19, item 8), not
"move it aside and start again", which is advice for a damaged file."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest


class Mount(Protocol):
    def __call__(self, size: str) -> Path: ...


@pytest.fixture
def small_filesystem(tmp_path: Path) -> Iterator[Mount]:
    """A real file system of a chosen size (tmpfs), to fill or to remount read-only."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        point = tmp_path / f"mnt{len(mounted)}"
        point.mkdir()
        result = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)],
            capture_output=True,
            check=False,
        )
        if result.returncode != 0:
            pytest.skip("mounting a small file system needs root")
        mounted.append(point)
        return point

    yield mount
    for point in mounted:
        subprocess.run(["umount", "-l", str(point)], check=False)


def cli(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "infracards", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "INFRACARDS_HOME": str(home)},
        timeout=120,
        check=False,
    )


def assert_one_line_naming(result: subprocess.CompletedProcess[str], *words: str) -> None:
    err = result.stderr
    assert result.returncode == 1 and len(err.splitlines()) == 1, err
    assert "Traceback" not in err and "move it aside" not in err and "sqlalche.me" not in err
    for word in words:
        assert word in err, err


def test_a_first_run_on_a_full_disk_says_the_disk_is_full(small_filesystem: Mount) -> None:
    home = small_filesystem("64k") / "home"
    assert_one_line_naming(cli(home, "status"), "is full", "free some space")


def test_a_full_disk_after_the_store_exists_is_named(small_filesystem: Mount) -> None:
    mount = small_filesystem("8m")
    home = mount / "home"
    assert cli(home, "status").returncode == 0
    _fill(mount)
    assert_one_line_naming(cli(home, "config", "new-per-day", "5"), "is full", "free some space")


def _fill(mount: Path) -> None:
    """Take every free block of the file system."""
    with (mount / "filler").open("wb") as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        except OSError:
            pass


@pytest.mark.parametrize(
    "argv",
    [["status"], ["show", "q01"], ["config", "new-per-day", "5"], ["unlock", "--status"]],
)
def test_a_read_only_file_system_is_named(small_filesystem: Mount, argv: list[str]) -> None:
    mount = small_filesystem("8m")
    home = mount / "home"
    assert cli(home, "status").returncode == 0
    subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
    assert_one_line_naming(cli(home, *argv), "read-only file system", "INFRACARDS_HOME")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_a_folder_without_write_permission_is_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert cli(home, "status").returncode == 0
    for path in home.iterdir():
        path.chmod(0o400)
    home.chmod(0o500)
    try:
        assert_one_line_naming(cli(home, "config", "new-per-day", "5"), "read-only", "chmod u+w")
    finally:
        home.chmod(0o700)


def test_a_symbolic_link_planted_as_the_store_lock_is_refused_not_followed(
    tmp_path: Path,
) -> None:
    """The lock is opened for writing and created if absent: through a planted link that
    would create (or lock, or hang on a FIFO) a file anywhere the learner can write."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    victim = tmp_path / "elsewhere"
    (home / "infracards.lock").symlink_to(victim)
    assert_one_line_naming(
        cli(home, "status"), "symbolic link", f"remove {home / 'infracards.lock'}"
    )
    assert not victim.exists() and not (home / "infracards.db").exists()
