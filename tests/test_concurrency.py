"""Several processes at once, from the very first run (issue 19, item 16): an empty home or an
old store is created or migrated by one process while the others wait, and no write is lost
(two unlocks of two decks at once keep both keys)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from infracards.seal import load_license

pytestmark = pytest.mark.slow

DEMO_KEY = "GTA13-PAJRP-RFMBW-3P4BP-X5NF6-K0PVN"
AT_ONCE = textwrap.dedent(
    """
    import os, sys, time
    go = sys.argv[1]
    from infracards.cli import main  # imported before the start line: all start together
    while not os.path.exists(go):
        time.sleep(0.002)
    if os.environ.get("SLOW_LICENSE_WRITE"):  # widen the window between reading and writing
        import infracards.seal.license as license
        real = license.os.replace
        license.os.replace = lambda *a: (time.sleep(0.5), real(*a))[1]
    sys.exit(main(sys.argv[2:]))
    """
)


def at_once(
    home: Path, commands: list[list[str]], *, env: dict[str, str] | None = None
) -> list[subprocess.CompletedProcess[str]]:
    """Start every command, wait until all are ready, let them go at the same instant."""
    go = home.parent / f"go-{time.monotonic_ns()}"
    environment = {**os.environ, "INFRACARDS_HOME": str(home), **(env or {})}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", AT_ONCE, str(go), *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        for argv in commands
    ]
    time.sleep(2.0)  # every interpreter has started and imported the CLI
    go.touch()
    results = []
    for argv, child in zip(commands, children, strict=True):
        out, err = child.communicate(timeout=120)
        results.append(subprocess.CompletedProcess(argv, child.returncode, out, err))
    return results


def progress(path: Path) -> Path:
    reviews = [
        {
            "card_id": f"q{n:02d}",
            "reviewed_at": f"2025-01-0{n}T09:00:00Z",
            "study_day": f"2025-01-0{n}",
            "grade": 4,
            "drill": False,
            "duration_ms": 1000,
        }
        for n in range(1, 6)
    ]
    document = {
        "format": "infracards-progress/v1",
        "decks": [{"id": "module03", "cards": [], "reviews": reviews}],
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("round_", range(3))
def test_every_command_at_once_on_an_empty_home(
    tmp_path: Path, sample_deck: Path, round_: int
) -> None:
    home = tmp_path / "home"
    commands = [
        ["status", "--json"],
        ["deck", "list"],
        ["config", "new-per-day", "7"],
        ["stats", "--json"],
        ["show", "q01", "--deck", "module03"],  # the sample deck, added meanwhile, has a q01 too
        ["unlock", "--status"],
        ["export", "-o", str(tmp_path / "out.json")],
        ["import", str(progress(tmp_path / "in.json"))],
        ["unlock", DEMO_KEY],
        ["deck", "add", str(sample_deck)],
    ]
    for result in at_once(home, commands):
        assert (result.returncode, result.stderr.replace(f"Wrote {tmp_path}/out.json\n", "")) == (
            0,
            "",
        ), result.args
    status = at_once(home, [["status", "--json"], ["config", "new-per-day"]])
    decks = {deck["id"]: deck for deck in json.loads(status[0].stdout)["decks"]}
    assert set(decks) == {"module03", "sample"} and decks["module03"]["unlocked"]
    assert status[1].stdout == "new-per-day = 7\n"
    assert load_license(home) == {"module03": DEMO_KEY.replace("-", "")}
    exported = json.loads(at_once(home, [["export", "--deck", "module03"]])[0].stdout)
    assert len(exported["decks"][0]["reviews"]) == 5


def test_two_unlocks_at_once_keep_both_keys(
    tmp_path: Path, sealed_deck: Path, keys: list[str], home: Path
) -> None:
    """Each unlock reads the license, adds its key and writes it back; before, the second
    write dropped the first's key when both had read the license before either wrote."""
    results = at_once(
        home,
        [["unlock", DEMO_KEY], ["unlock", "--deck", "demo", keys[0]]],
        env={"SLOW_LICENSE_WRITE": "1"},
    )
    assert [result.returncode for result in results] == [0, 0], [r.stderr for r in results]
    assert set(load_license(home)) == {"module03", "demo"}


def test_every_command_at_once_on_a_store_being_migrated(tmp_path: Path) -> None:
    """An older store: one process backs it up and migrates it, the others wait and use it."""
    from alembic import command
    from sqlalchemy import create_engine

    from infracards.paths import database_path
    from infracards.store.db import alembic_config

    home = tmp_path / "home"
    home.mkdir()
    old = create_engine(f"sqlite:///{database_path(home)}")
    config = alembic_config()
    with old.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0002")
    old.dispose()
    commands = [
        ["status", "--json"],
        ["deck", "list"],
        ["config", "new-per-day", "7"],
        ["stats"],
        ["show", "q01"],
        ["unlock", "--status"],
    ]
    for result in at_once(home, commands):
        assert (result.returncode, result.stderr) == (0, ""), result.args
    assert len(list(home.glob("infracards.db.bak-schema-0002-*"))) == 1
