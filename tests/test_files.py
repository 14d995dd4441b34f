"""Every read bounded, every write safe (issue 19, items 1 and 2).

`export -o` writes through an unpredictable temporary file created exclusively beside the
target and never writes through a planted link or into a device; `import` reads regular files
of bounded size only, so a FIFO, /dev/zero or a huge sparse file is refused at once.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infracards.cli import main
from infracards.services.export import MAX_PROGRESS_BYTES


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def exported(path: Path) -> dict[str, object]:
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == "infracards-progress/v1"
    return document


# --- item 1: export -o ---------------------------------------------------------------------


def test_a_planted_temporary_link_is_not_written_through(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Another user plants `.progress.json.tmp → a file of yours` in a shared folder."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    shared = tmp_path / "shared"
    shared.mkdir()
    for name in (".progress.json.tmp", ".progress.json.0.tmp", "progress.json.tmp"):
        (shared / name).symlink_to(victim)
    code, _, err = run(capsys, "export", "-o", str(shared / "progress.json"))
    assert code == 0, err
    assert victim.read_text(encoding="utf-8") == "precious"
    assert exported(shared / "progress.json")
    assert all((shared / name).is_symlink() for name in (".progress.json.tmp", "progress.json.tmp"))
    leftovers = {p.name for p in shared.iterdir()} - {"progress.json"}
    assert leftovers == {".progress.json.tmp", ".progress.json.0.tmp", "progress.json.tmp"}


names = st.text(
    st.characters(exclude_categories=("Cs",), exclude_characters="/\0"), min_size=1, max_size=60
).filter(lambda name: name not in (".", ".."))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(names, st.lists(names, max_size=4))
def test_export_writes_exactly_its_target_whatever_its_name(
    capsys: pytest.CaptureFixture[str],
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    planted: list[str],
) -> None:
    folder = tmp_path_factory.mktemp("out")
    victim = folder.parent / f"victim-{folder.name}"
    victim.write_text("precious", encoding="utf-8")
    for other in {*planted, f".{name}.tmp"} - {name}:
        try:
            (folder / other).symlink_to(victim)
        except OSError:  # a name too long for this file system
            continue
    before = {p.name: os.readlink(p) for p in folder.iterdir()}
    code, _, err = run(capsys, "export", "-o", str(folder / name))
    assert victim.read_text(encoding="utf-8") == "precious"
    if code == 0:
        assert exported(folder / name) and not (folder / name).is_symlink()
        assert {p.name: os.readlink(p) for p in folder.iterdir() if p.name != name} == before
    else:
        assert code == 1 and len(err.splitlines()) == 1 and "cannot write" in err


def test_a_fifo_target_is_refused_not_replaced(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out, err = run(capsys, "export", "-o", str(fifo))
    assert code == 1 and out == ""
    assert "is a FIFO (named pipe), not a regular file" in err and "-o -" in err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_target_is_refused_not_replaced(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """As root, `export -o /dev/full` replaced the device node with a regular file."""
    device = tmp_path / "full"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))  # what /dev/full is
    code, _, err = run(capsys, "export", "-o", str(device))
    assert code == 1 and "is a character device, not a regular file" in err
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_a_link_as_target_is_refused_and_left_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    (tmp_path / "out.json").symlink_to(victim)
    code, _, err = run(capsys, "export", "-o", str(tmp_path / "out.json"))
    assert code == 1 and "is a symbolic link" in err
    assert victim.read_text(encoding="utf-8") == "precious"
    assert (tmp_path / "out.json").is_symlink()


def test_dash_writes_to_standard_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "export", "-o", "-")
    assert code == 0 and err == "" and json.loads(out)["format"] == "infracards-progress/v1"
    assert not (Path.cwd() / "-").exists()


def test_an_existing_export_keeps_its_mode_and_is_replaced_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "out.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o640)
    assert run(capsys, "export", "-o", str(target))[0] == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and exported(target)
    assert [p.name for p in target.parent.iterdir()] == ["out.json"]


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda tmp: tmp / "missing" / "out.json", "the folder does not exist"),
        (lambda tmp: (tmp / "file").write_text("x") and tmp / "file" / "out.json", "not a folder"),
        (lambda tmp: tmp / "d", "it is a folder"),
    ],
)
def test_a_failure_names_its_real_cause(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    make,
    reason: str,  # type: ignore[no-untyped-def]
) -> None:
    (tmp_path / "d").mkdir()
    code, _, err = run(capsys, "export", "-o", str(make(tmp_path)))
    assert code == 1 and reason in err and len(err.splitlines()) == 1


def test_a_full_disk_names_it_and_leaves_the_old_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "out.json"
    target.write_text("old", encoding="utf-8")

    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("infracards.files.os.fsync", full)
    code, _, err = run(capsys, "export", "-o", str(target))
    assert code == 1 and "no space is left on the device" in err and "unchanged" in err
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in target.parent.iterdir()] == ["out.json"]


# --- item 2: import reads bounded ------------------------------------------------------------

IMPORT_UNDER_A_MEMORY_CAP = textwrap.dedent(
    """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    from infracards.cli import main
    sys.exit(main(["import", sys.argv[1]]))
    """
)


def import_in_child(path: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """`infracards import PATH` in a process limited to 3 GiB, as the attack run had it."""
    return subprocess.run(
        [sys.executable, "-c", IMPORT_UNDER_A_MEMORY_CAP, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "INFRACARDS_HOME": str(home)},
        check=False,
    )


def test_importing_a_fifo_is_refused_without_waiting(home: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "progress.json"
    os.mkfifo(fifo)
    result = import_in_child(fifo, home)  # before: blocked forever (here: the 60 s timeout)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "is a FIFO (named pipe), not a regular file" in result.stderr


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_importing_a_device_is_refused(home: Path, device: str) -> None:
    result = import_in_child(Path(device), home)  # before: MemoryError under the cap
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "is a character device, not a regular file" in result.stderr


def test_importing_a_huge_sparse_file_is_refused_before_reading(home: Path, tmp_path: Path) -> None:
    sparse = tmp_path / "progress.json"
    with sparse.open("wb") as handle:
        handle.truncate(5 << 30)  # 5 GB that take no disk
    result = import_in_child(sparse, home)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"larger than the {MAX_PROGRESS_BYTES >> 20} MiB limit" in result.stderr


def test_a_progress_file_at_the_limit_is_read_and_one_past_it_is_not(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = json.dumps({"format": "infracards-progress/v1", "decks": []}).encode()
    monkeypatch.setattr("infracards.services.export.MAX_PROGRESS_BYTES", len(document))
    path = tmp_path / "progress.json"
    path.write_bytes(document)
    assert run(capsys, "import", str(path))[0] == 0
    path.write_bytes(document + b" ")
    code, _, err = run(capsys, "import", str(path))
    assert code == 1 and f"larger than the {len(document)}-byte limit for a progress file" in err
