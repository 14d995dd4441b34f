"""Cold start to the first card, each sample a fresh interpreter, against the import floor.

Run: python bench/cold_start.py [--runs 9] [--home DIR] [--deck module03]
Prints medians and ratios measured in one run (this machine is shared and noisy, so only
ratios within a run mean much); asserts nothing.

Other benchmarks import the three measurements, each returning seconds per fresh process:

- ``floor(runs)``: ``import textual.app, sqlmodel`` and nothing else, the issue's floor;
- ``first_card(home, runs)``: open the store in ``home`` and have the first due card loaded,
  without the TUI (what ``infracards review`` does before Textual starts);
- ``first_card_in_app(home, runs)``: ``infracards review --deck D`` through the real entry
  point, with the app headless, until the frame showing the first card has been drawn.

A sample is the time from spawning the process to the moment it prints, so interpreter start-up
and imports count, as they do for a learner. ``home`` may hold any store; a home without a
database is created on a first, uncounted run. The queue is the built-in deck's unless
``deck_id`` names another (``"bench"`` for the store run.py builds).

pip byte-compiles a package when it installs it, but a source checkout run with
PYTHONDONTWRITEBYTECODE=1 compiles every infracards module again in every process (about 35 ms
here), which no learner pays. So the package is byte-compiled first, as pip would, unless
``bytecode=False`` (``--source``) leaves the checkout as it is (.pyc files already written by
an earlier run are still used; delete ``__pycache__`` to measure without any).
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

DEFAULT_DECK = "module03"

FLOOR = "import time, textual.app, sqlmodel; print(time.time())"

FIRST_CARD = textwrap.dedent(
    """
    import sys, time
    from infracards.cli.common import open_home
    from infracards.scheduler import study_day
    from infracards.store.db import transaction
    from infracards.store.queries import build_queue
    from infracards.store.reads import load_card, load_prefs
    from infracards.services.settings import local_now

    engine = open_home()
    with transaction(engine) as session:
        prefs = load_prefs(session)
        today = study_day(local_now(), rollover_hour=prefs.rollover_hour)
        queue = build_queue(session, deck_id=sys.argv[1], today=today, prefs=prefs)
        card = None if queue.current is None else load_card(session, pk=queue.current)
    print(time.time(), card.card_id if card else "-", flush=True)
    """
)

FIRST_CARD_IN_APP = textwrap.dedent(
    """
    import asyncio, gc, sys, time
    gc.disable()  # what the `infracards` entry point does first (infracards.__main__.entry)
    import infracards.cli as cli
    import infracards.cli.common as common
    import infracards.cli.study as study

    launch_app = common.launch_app

    def headless(engine, *, start_review):
        # Patched in here, so Textual is imported where `infracards review` imports it.
        import infracards.tui.app as app_module
        from infracards.tui.screens.review import ReviewScreen

        class FirstCard(ReviewScreen):
            def show_current(self) -> None:
                super().show_current()
                # The moment the frame holding the first card has been drawn.
                self.call_after_refresh(self.drawn)

            def drawn(self) -> None:
                print(time.time(), self.card.card_id if self.card else "-", flush=True)
                self.app.exit()

        async def run(app) -> None:
            async with app.run_test(headless=True, size=(100, 32)):
                while app.is_running:
                    await asyncio.sleep(0.005)

        app_module.ReviewScreen = FirstCard
        app_module.InfracardsApp.run = lambda app: asyncio.run(run(app))
        return launch_app(engine, start_review=start_review)

    study.launch_app = headless
    common.require_terminal = lambda: None  # headless, as under Pilot: no terminal to check
    sys.exit(cli.main(["review", "--deck", sys.argv[1]]))
    """
)


def spawn_until_printed(code: str, env: dict[str, str], *args: str) -> float:
    """Seconds from spawning a fresh interpreter to the time it prints."""
    start = time.time()
    out = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True
    )
    return float(out.stdout.split()[0]) - start


def byte_compile(env: dict[str, str]) -> None:
    """Write the package's .pyc files, as ``pip install`` does (a no-op when they are current)."""
    where = subprocess.run(
        [sys.executable, "-c", "import infracards; print(infracards.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    compileall.compile_dir(Path(where.stdout.strip()).parent, quiet=1)


def _env(home: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if home is not None:
        env["INFRACARDS_HOME"] = str(home)
    return env


def floor(runs: int) -> list[float]:
    """The issue's floor: a fresh process importing ``textual.app`` and ``sqlmodel``."""
    return [spawn_until_printed(FLOOR, _env(None)) for _ in range(runs)]


def first_card(
    home: Path, runs: int, *, deck_id: str = DEFAULT_DECK, bytecode: bool = True
) -> list[float]:
    """Open the store in ``home`` and load the first due card of ``deck_id``, without the TUI."""
    return _samples(FIRST_CARD, home, runs, deck_id, bytecode=bytecode)


def first_card_in_app(
    home: Path, runs: int, *, deck_id: str = DEFAULT_DECK, bytecode: bool = True
) -> list[float]:
    """The app, headless, until the review screen's first card has been drawn."""
    return _samples(FIRST_CARD_IN_APP, home, runs, deck_id, bytecode=bytecode)


def _samples(
    code: str, home: Path, runs: int, deck_id: str, *, bytecode: bool, warm_up: bool = True
) -> list[float]:
    env = _env(home)
    if bytecode:
        byte_compile(env)
    if warm_up:  # creates the store if needed and reads the files once; not counted
        spawn_until_printed(code, env, deck_id)
    return [spawn_until_printed(code, env, deck_id) for _ in range(runs)]


def interleaved(
    home: Path, runs: int, *, deck_id: str = DEFAULT_DECK, bytecode: bool = True
) -> dict[str, list[float]]:
    """All three, one of each per round, so a noisy neighbour slows every side alike."""
    floor(1)  # uncounted warm-up of each (and byte-compiling, and creating the store)
    first_card(home, 0, deck_id=deck_id, bytecode=bytecode)
    first_card_in_app(home, 0, deck_id=deck_id, bytecode=False)
    samples: dict[str, list[float]] = {"floor": [], "first card": [], "first card in app": []}
    for _ in range(runs):
        samples["floor"] += floor(1)
        for name, code in (("first card", FIRST_CARD), ("first card in app", FIRST_CARD_IN_APP)):
            samples[name] += _samples(code, home, 1, deck_id, bytecode=False, warm_up=False)
    return samples


def report(samples: dict[str, list[float]]) -> None:
    base = statistics.median(samples["floor"])
    for name, values in samples.items():
        median = statistics.median(values)
        print(
            f"cold start: {name:<18} median {median * 1000:4.0f} ms "
            f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f}, n={len(values)})"
            f"  {median / base:.2f}× floor"
        )
    print("cold start: target ≤ 1.20× the floor (textual.app + sqlmodel imported)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--home", type=Path, help="a data folder (default: a new one, 33 cards)")
    parser.add_argument("--deck", default=DEFAULT_DECK, help="whose queue (default: module03)")
    parser.add_argument(
        "--source", action="store_true", help="do not byte-compile the package first"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = args.home if args.home is not None else Path(folder)
        report(interleaved(home, args.runs, deck_id=args.deck, bytecode=not args.source))


if __name__ == "__main__":
    main()
