"""The command line in fresh processes, each against a floor doing the same reads.

Run: python bench/cli_commands.py [--runs 9] [--home DIR]
Prints medians and ratios measured in one run; asserts nothing. ``run.py`` imports
``interleaved`` for its ``cli`` workload, on the store of its other workloads.

A sample is one ``infracards ARGS`` through the installed entry point (the console script
beside this interpreter, as a learner runs it; ``python -m infracards`` without one), from
spawning it to its exit: interpreter start-up, imports, the store's checks, the reads,
printing and exit all count. Each floor is a fresh interpreter doing the same work with
nothing of ours: for ``--version`` and ``--help``, ``import argparse``; for the others, plain
``sqlite3`` (and ``json`` for the license) reading what the command reads and printing it.

The home gets the demo card key first (so ``status`` and ``unlock --status`` check a stored
key, as for a learner who bought one) and is migrated and loaded by an uncounted first run.
Commands and floors run interleaved, one of each per round, so a noisy neighbour slows every
side alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DEMO_KEY = "GTA13-PAJRP-RFMBW-3P4BP-X5NF6-K0PVN"

_CONNECT = """
import json, os, sqlite3, sys
home = os.environ["INFRACARDS_HOME"]
db = sqlite3.connect(os.path.join(home, "infracards.db"), isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
"""

_LICENSE = """
import hashlib
try:
    with open(os.path.join(home, "license.json"), encoding="utf-8") as handle:
        keys = json.load(handle)["keys"]
except FileNotFoundError:
    keys = {}


def key_state(deck_id, version, lock, slots):
    # What the last opening of this key with this release showed, as the store notes it: the
    # note is trusted only for the same key and the same release (its labels hashed too).
    if deck_id not in keys:
        return "locked"
    labels = db.execute(
        "SELECT card_id, sealed IS NOT NULL, answer IS NOT NULL FROM card"
        " WHERE deck_id = ? AND NOT retired", (deck_id,)
    ).fetchall()
    sealed = sorted(card for card, is_sealed, _ in labels if is_sealed)
    free = sorted(card for card, _, is_free in labels if is_free)
    release = "\\n".join((deck_id, str(version), lock, slots, json.dumps([sealed, free])))
    fingerprint = hashlib.sha256(release.encode()).hexdigest()
    check = hashlib.sha256(
        f"infracards/v1/key-check\\n{keys[deck_id]}\\n{fingerprint}".encode()
    ).hexdigest()
    row = db.execute("SELECT value FROM setting WHERE key = ?", ("key-check:" + deck_id,))
    noted = json.loads((row.fetchone() or ["{}"])[0])
    return noted.get("state") if noted.get("check") == check else "not checked"
"""

FLOORS = {
    "argparse": "import argparse",
    # Settings, the running counts (suspended, buried and leeches apart), today's reviews, each
    # deck and what its stored key was last found to do (the store's note of that check).
    "status": _CONNECT
    + _LICENSE
    + """
today = sys.argv[1]
settings = dict(db.execute("SELECT key, value FROM setting"))
counts = {
    row[0]: row[1:]
    for row in db.execute(
        "SELECT deck_id, sum(cards),"
        " sum(cards) FILTER (WHERE due IS NULL AND NOT suspended AND buried_on IS NOT :t),"
        " sum(cards) FILTER (WHERE due <= :t AND NOT suspended AND buried_on IS NOT :t),"
        " sum(cards) FILTER (WHERE locked), sum(cards) FILTER (WHERE suspended),"
        " sum(cards) FILTER (WHERE leech) FROM duecount GROUP BY deck_id",
        {"t": today},
    )
}
reviewed = dict(db.execute("SELECT deck_id, reviews FROM daycount WHERE study_day = ?", (today,)))
for deck_id, title, version, lock, slots in db.execute(
    "SELECT id, title, version, lock_header, keyslots FROM deck ORDER BY id"
):
    state = key_state(deck_id, version, lock, slots) if lock else "free"
    print(deck_id, title, version, counts.get(deck_id), reviewed.get(deck_id, 0), state)
""",
    # One card with its state, printed as Markdown.
    "show": _CONNECT
    + """
row = db.execute(
    "SELECT c.card_id, c.tags, c.prompt, c.answer, c.key_points, s.due, d.language FROM card c"
    " JOIN cardstate s ON s.card = c.id JOIN deck d ON d.id = c.deck_id WHERE c.card_id = ?",
    (sys.argv[1],),
).fetchone()
print(f"# {row[0]} · {row[1]}\\n\\n{row[2]}\\n\\n{row[3]}")
print("\\n".join(f"- {point}" for point in json.loads(row[4])))
""",
    # The stored keys of each sealed deck, and the store's note of what each one does.
    "unlock --status": _CONNECT
    + _LICENSE
    + """
for deck_id, version, lock, slots in db.execute(
    "SELECT id, version, lock_header, keyslots FROM deck WHERE lock_header IS NOT NULL ORDER BY id"
):
    print(deck_id, key_state(deck_id, version, lock, slots), sep="\\t")
""",
    # The raw floor of the stats workload (floor_side.stats: reviews per day, cards due per day,
    # retention per day), plus cards per tag string and the practice tables, in a fresh
    # process, printed.
    "stats": _CONNECT
    + """
today, year_ago, horizon = sys.argv[1:4]
print(db.execute(
    "SELECT study_day, count(*), sum(grade >= 3) FROM review WHERE study_day > ?"
    " GROUP BY study_day", (year_ago,)
).fetchall()[-3:])
print(db.execute(
    "SELECT s.due, count(*) FROM cardstate s JOIN card c ON c.id = s.card"
    " WHERE c.retired = 0 AND s.due <= ? GROUP BY s.due", (horizon,)
).fetchall()[:3])
print(db.execute(
    "SELECT study_day, sum(grade >= 3), count(*) FROM review"
    " WHERE study_day >= ? AND drill = 0 GROUP BY study_day", (year_ago,)
).fetchall()[-3:])
print(db.execute(
    "SELECT c.tags, count(*), avg(s.easiness_centi) FROM card c JOIN cardstate s"
    " ON s.card = c.id WHERE c.retired = 0 GROUP BY c.tags"
).fetchall()[:3])
# Interview practice: key-point checks per card and list, past mock interviews, leeches.
print(db.execute(
    "SELECT card, points_fp, points, recalled, count(*) FROM review WHERE points IS NOT NULL"
    " GROUP BY card, points_fp, points, recalled"
).fetchall()[:3])
print(db.execute(
    "SELECT m.id, m.started_at, q.card, q.points, q.recalled FROM mocksession m"
    " LEFT JOIN mockquestion q ON q.mock = m.id ORDER BY m.started_at, q.position"
).fetchall()[:3])
print(db.execute(
    "SELECT c.card_id, c.prompt, (SELECT count(*) FROM review r WHERE r.card = s.card"
    " AND r.drill = 0 AND r.grade < 3) FROM cardstate s JOIN card c ON c.id = s.card"
    " WHERE s.leech AND s.retired = 0"
).fetchall()[:3])
""",
}

COMMANDS: dict[str, tuple[tuple[str, ...], str, float]] = {
    "--version": (("--version",), "argparse", 2),
    "--help": (("--help",), "argparse", 2),
    "status": (("status",), "status", 3),
    "show": (("show", "q01"), "show", 3),
    "unlock --status": (("unlock", "--status"), "unlock --status", 3),
    "stats": (("stats",), "stats", 4),
}
"""Name → (arguments, floor, the most times the floor it may take: the issue's targets)."""


def entry_point() -> list[str]:
    """The console script pip installed beside this interpreter, else ``python -m``."""
    script = Path(sys.executable).with_name("infracards")
    return [str(script)] if script.exists() else [sys.executable, "-m", "infracards"]


def _spawn(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from spawning a process to its exit (it must succeed)."""
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    return time.perf_counter() - started


def _floor_args(floor: str, today: str) -> list[str]:
    if floor == "show":
        return ["q01"]
    if floor in ("status", "stats"):
        from datetime import date, timedelta

        day = date.fromisoformat(today)
        return [today, str(day - timedelta(days=365)), str(day + timedelta(days=30))]
    return []


def prepare(home: Path) -> str:
    """Migrate and load the home (uncounted), store the demo card key; the study day."""
    env = {**os.environ, "INFRACARDS_HOME": str(home)}
    subprocess.run([*entry_point(), "unlock", DEMO_KEY], env=env, capture_output=True, check=True)
    out = subprocess.run(
        [*entry_point(), "status", "--json"], env=env, capture_output=True, text=True, check=True
    )
    import json

    return str(json.loads(out.stdout)["today"])


def interleaved(home: Path, runs: int) -> dict[str, dict[str, list[float]]]:
    """Per command: its samples and its floor's, one of each per round."""
    today = prepare(home)
    env = {**os.environ, "INFRACARDS_HOME": str(home)}
    command = entry_point()
    floors = {floor: [sys.executable, "-c", code] for floor, code in FLOORS.items()}
    samples: dict[str, dict[str, list[float]]] = {
        name: {"infracards": [], "floor": []} for name in COMMANDS
    }
    for args, floor, _ in COMMANDS.values():  # uncounted: the OS caches the files
        _spawn([*command, *args], env)
        _spawn([*floors[floor], *_floor_args(floor, today)], env)
    for _ in range(runs):
        for name, (args, floor, _) in COMMANDS.items():
            samples[name]["infracards"].append(_spawn([*command, *args], env))
            samples[name]["floor"].append(_spawn([*floors[floor], *_floor_args(floor, today)], env))
    return samples


def summary(samples: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, Any]]:
    """Medians, ratios and whether each command met its target."""
    result: dict[str, dict[str, Any]] = {}
    for name, (_, floor, limit) in COMMANDS.items():
        ours = statistics.median(samples[name]["infracards"])
        base = statistics.median(samples[name]["floor"])
        result[name] = {
            "infracards_s": ours,
            "floor_s": base,
            "floor": FLOORS[floor].strip().splitlines()[0] if floor == "argparse" else floor,
            "runs": len(samples[name]["infracards"]),
            "vs_floor": ours / base,
            "target": f"≤ {limit:g}× floor",
            "met": ours <= limit * base,
        }
    return result


def report(result: dict[str, dict[str, Any]]) -> None:
    for name, row in result.items():
        print(
            f"cli: {name:<16} {row['infracards_s'] * 1000:6.1f} ms"
            f"  floor {row['floor_s'] * 1000:5.1f} ms  {row['vs_floor']:.2f}×  {row['target']}"
            f"  {'met' if row['met'] else 'MISSED'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--home", type=Path, help="a data folder (default: a new one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = args.home if args.home is not None else Path(folder)
        report(summary(interleaved(home, args.runs)))


if __name__ == "__main__":
    main()
