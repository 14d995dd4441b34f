"""Kill -9 in the middle of a session: the database stays intact and no shown grade is lost."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from decimal import Decimal
from pathlib import Path

import pytest

from infracards.cli import main
from infracards.paths import database_path
from infracards.scheduler import replay

pytestmark = pytest.mark.slow

KILLS = 12
CARDS = 400


def write_deck(path: Path) -> None:
    lines = [
        "format: infracards-deck/v1",
        "id: drill",
        "title: Drill deck",
        "version: 1",
        "language: zh-CN",
        "cards:",
    ]
    lines += [
        f"  - id: c{i:04d}\n    prompt: 第 {i} 题\n    answer: 答案 {i}" for i in range(CARDS)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def check_database(path: Path, confirmed: set[int]) -> int:
    """Integrity, every confirmed grade present, and each card's state equal to its replayed log."""
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        logged = {row[0] for row in db.execute("SELECT id FROM review")}
        assert confirmed <= logged, f"lost grades: {sorted(confirmed - logged)[:10]}"
        states = db.execute(
            "SELECT card, easiness_centi, repetitions, interval, due FROM cardstate"
        ).fetchall()
        for card, easiness, repetitions, interval, due in states:
            log = db.execute(
                "SELECT grade, drill, study_day FROM review WHERE card = ? ORDER BY reviewed_at, id",
                (card,),
            ).fetchall()
            steps = list(replay((grade, bool(drill), _day(day)) for grade, drill, day in log))
            if not steps:
                assert (easiness, repetitions, interval, due) == (250, 0, 0, None)
                continue
            last = steps[-1]
            assert (Decimal(easiness) / 100, repetitions, interval) == (
                last.after.easiness,
                last.after.repetitions,
                last.after.interval,
            ), card
            assert due == last.due_after.isoformat()
        return len(logged)


def _day(text: str):  # type: ignore[no-untyped-def]
    from datetime import date

    return date.fromisoformat(text)


def test_sigkill_at_random_moments_never_loses_a_shown_grade(home: Path, tmp_path: Path) -> None:
    deck = tmp_path / "drill.yaml"
    write_deck(deck)
    assert main(["deck", "add", str(deck)]) == 0
    assert main(["config", "new-per-day", str(CARDS)]) == 0
    rng = random.Random(20261129)
    driver = Path(__file__).with_name("grading_process.py")
    confirmed: set[int] = set()
    survived = 0
    for attempt in range(KILLS):
        process = subprocess.Popen(
            [sys.executable, str(driver), str(attempt), "drill"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "INFRACARDS_HOME": str(home)},
        )
        assert process.stdout is not None
        first = process.stdout.readline()  # the app is up and has committed one grade
        assert first.strip().isdigit(), process.stderr.read() if process.stderr else first
        confirmed.add(int(first))
        time.sleep(rng.uniform(0.2, 2.0))
        process.send_signal(signal.SIGKILL)
        out, _ = process.communicate(timeout=30)
        assert process.returncode == -signal.SIGKILL
        confirmed |= {int(line) for line in out.split() if line.isdigit()}
        print(f"kill {attempt}: {len(confirmed)} grades confirmed so far")
        check_database(database_path(home), confirmed)
        survived += 1
    assert survived == KILLS and len(confirmed) >= 3 * KILLS, len(confirmed)


def test_two_apps_grading_the_same_deck_at_once_lose_nothing(home: Path, tmp_path: Path) -> None:
    """Writers wait for each other (busy timeout) and SM-2 continues from the latest state."""
    deck = tmp_path / "drill.yaml"
    write_deck(deck)
    assert main(["deck", "add", str(deck)]) == 0
    assert main(["config", "new-per-day", str(CARDS)]) == 0
    driver = Path(__file__).with_name("grading_process.py")
    processes = [
        subprocess.Popen(
            [sys.executable, str(driver), str(seed), "drill"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "INFRACARDS_HOME": str(home)},
        )
        for seed in (1, 2)
    ]
    # Meanwhile the CLI reads and writes the same database: export streams in a read
    # transaction, deck add writes; none may fail on a lock.
    others = []
    for argv in (
        ["export", "-o", str(tmp_path / "p.json")],
        ["deck", "add", str(deck)],
        ["stats", "--json"],
    ):
        time.sleep(0.8)
        others.append(
            subprocess.run(
                [sys.executable, "-m", "infracards", *argv],
                capture_output=True,
                text=True,
                env={**os.environ, "INFRACARDS_HOME": str(home)},
                timeout=60,
            )
        )
    time.sleep(1.5)
    for result in others:
        assert result.returncode == 0, result.stderr
    confirmed: set[int] = set()
    for process in processes:
        process.send_signal(signal.SIGKILL)
        out, err = process.communicate(timeout=30)
        assert "Traceback" not in err and "locked" not in err, err[-2000:]
        confirmed |= {int(line) for line in out.split() if line.isdigit()}
    assert len(confirmed) >= 10
    check_database(database_path(home), confirmed)
