"""The benchmark still runs end to end (bench/run.py --quick). It times nothing here: speed is
judged by reading its numbers, never by a timed test on this shared machine."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = {
    "load",
    "cold_start",
    "queue",
    "grade",
    "stats",
    "export",
    "unlock",
    "mock",
    "import",
    "replay_one_card",
    "cli",
}
ANKI_HAS = {"load", "cold_start", "queue", "grade", "stats"}


@pytest.mark.slow
def test_quick_benchmark_reports_every_workload_for_every_side(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "run.py"),
            "--quick",
            "--json",
            "--runs=1",
            "--grades=30",
            "--app-grades=3",
            f"--keep={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout)
    assert (report["cards"], report["reviews"]) == (1_000, 10_000)
    assert {"cpu", "cores", "python", "sqlite"} <= report["machine"].keys()
    assert set(report["workloads"]) == WORKLOADS
    anki = importlib.util.find_spec("anki") is not None
    for name, workload in report["workloads"].items():
        assert workload["infracards_s"] > 0 and workload["floor_s"] > 0, name
        if name in ANKI_HAS and anki:
            assert workload["anki_s"] > 0, name
        else:
            assert workload["anki_s"] is None, name
    assert report["workloads"]["unlock"]["answers"] == 31
    assert report["workloads"]["grade"]["runs"] == 30
    mock = report["workloads"]["mock"]
    assert mock["infracards_tick_s"] > 0
    # The first frame comes before the refresh that finds nothing left to draw.
    assert mock["infracards_settled_s"] > mock["infracards_s"]
    assert mock["floor_settled_s"] > mock["floor_s"]
    assert mock["infracards_unprepared_settled_s"] > mock["infracards_unprepared_s"] > 0
    assert report["workloads"]["import"]["reviews"] == 10_000
    assert report["workloads"]["replay_one_card"]["reviews"] == 2_000
    commands = report["workloads"]["cli"]["commands"]
    assert set(commands) == {"--version", "--help", "status", "show", "unlock --status", "stats"}
    assert all(row["runs"] >= 7 and row["floor_s"] > 0 for row in commands.values())
