"""Statistics at scale: 100,000 cards and 1,000,000 reviews over two years.

Run: python bench/bench_stats.py [--runs 5] [--home DIR] [--answer-bytes 600]
Builds the store with raw sqlite3 (seconds, not minutes), then prints the median time of
``compute_stats`` (all decks and one deck) and of the stats screen from push to its first
drawn frame. The target is 200 ms for the screen; this prints numbers and asserts nothing.
``--home DIR`` keeps the generated store in DIR and reuses it on the next run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

CARDS = 100_000
SIDE_CARDS = 1_000
"""The last 1,000 cards form a second deck, so the one-deck filter is measured as well."""
REVIEWS = 1_000_000
DAYS = 730
TAGS = [
    "communication", "memory", "zero", "pipeline", "tensor-parallel", "data-parallel",
    "checkpoint", "scheduler", "nccl", "kernels", "attention", "moe", "fp8", "storage",
    "network", "profiling", "inference", "serving", "evaluation", "career",
]  # fmt: skip
TODAY = date(2025, 1, 6)
TARGET_MS = 200


def build_store(home: Path, *, answer_bytes: int) -> None:
    """Migrate a fresh store, then bulk-load one synthetic deck and its review log."""
    from infracards.paths import database_path
    from infracards.store.db import open_store

    open_store(home).dispose()
    rng = random.Random(7)
    started = time.perf_counter()
    with sqlite3.connect(database_path(home)) as db:
        db.execute("PRAGMA synchronous=OFF")
        db.executemany(
            "INSERT INTO deck (id, title, version, language, source, digest)"
            " VALUES (?, ?, 1, 'en', 'bench', '')",
            [("bench", "Bench deck"), ("side", "Side deck")],
        )
        sentence = "All-Reduce moves 2(N-1)/N·S bytes per rank. "
        answer = (sentence * (answer_bytes // len(sentence) + 1))[:answer_bytes]
        db.executemany(
            "INSERT INTO card (id, deck_id, card_id, position, prompt, tags, key_points,"
            " answer, retired) VALUES (?, ?, ?, ?, ?, ?, '[]', ?, ?)",
            (
                (
                    pk,
                    "bench" if pk <= CARDS - SIDE_CARDS else "side",
                    f"c{pk:06d}",
                    pk,
                    f"Question {pk}: how many bytes does ring all-reduce send?",
                    " ".join(dict.fromkeys([TAGS[pk % 20], TAGS[pk * 7 % 20]][: 1 + pk % 2])),
                    answer,
                    int(pk % 100 == 0),  # 1% retired
                )
                for pk in range(1, CARDS + 1)
            ),
        )
        db.executemany(
            "INSERT INTO cardstate (card, easiness_centi, repetitions, interval, due)"
            " VALUES (?, ?, ?, ?, ?)",
            (_state(pk, rng) for pk in range(1, CARDS + 1)),
        )
        db.executemany(
            "INSERT INTO review (card, reviewed_at, study_day, grade, drill, duration_ms,"
            " easiness_centi_before, repetitions_before, interval_before,"
            " easiness_centi_after, repetitions_after, interval_after)"
            " VALUES (?, ?, ?, ?, ?, ?, 250, 1, 1, 250, 2, 6)",
            _reviews(rng),
        )
    print(f"built {CARDS:,} cards and {REVIEWS:,} reviews in {time.perf_counter() - started:.1f} s")


def _state(pk: int, rng: random.Random) -> tuple[int, int, int, int, str | None]:
    if rng.random() < 0.2:  # never reviewed
        return (pk, 250, 0, 0, None)
    interval = rng.choice([1, 1, 2, 6, 6, 15, 38, 90, 200])
    due = TODAY + timedelta(days=rng.randint(-interval // 4 - 2, interval))  # ~15% overdue
    return (pk, rng.randint(130, 300), rng.randint(1, 8), interval, due.isoformat())


def _reviews(rng: random.Random) -> Iterator[tuple[object, ...]]:
    """Chronological, like a real log: one day in ten is skipped, recent days are busier."""
    days = [TODAY - timedelta(days=n) for n in range(DAYS - 1, -1, -1)]
    studied = [day for day in days if rng.random() > 0.1 or day == TODAY]
    weights = [1 + i / len(studied) for i in range(len(studied))]
    per_day = [0] * len(studied)
    for i in rng.choices(range(len(studied)), weights=weights, k=REVIEWS):
        per_day[i] += 1
    for day, count in zip(studied, per_day, strict=True):
        start = datetime(day.year, day.month, day.day, 8, tzinfo=UTC)
        for n in range(count):
            yield (
                rng.randint(1, CARDS),
                (start + timedelta(seconds=n * 20)).isoformat(sep=" "),
                day.isoformat(),
                rng.choices(range(6), weights=[3, 3, 6, 18, 40, 30])[0],
                int(rng.random() < 0.08),
                rng.randint(2000, 30000),
            )


def median_ms(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1000:.1f} ms (min {min(samples) * 1000:.1f})"


def time_compute(runs: int, home: Path) -> None:
    from infracards.store.db import open_store, transaction
    from infracards.store.stats import compute_stats

    engine = open_store(home)
    for deck_id in (None, "bench", "side"):
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            with transaction(engine) as session:
                stats = compute_stats(session, today=TODAY, deck_id=deck_id)
            samples.append(time.perf_counter() - started)
        label = f"deck {deck_id}" if deck_id else "all decks"
        print(f"compute_stats, {label}: {median_ms(samples)} over {runs} runs")
    print(
        f"  check: {stats.totals.reviews:,} reviews, {stats.totals.cards:,} active cards, "
        f"{len(stats.by_tag)} tags, streak {stats.current_streak}/{stats.longest_streak}"
    )
    engine.dispose()


async def time_screen(runs: int, home: Path) -> None:
    """Push → first frame drawn, measured inside the app (as bench_app.py does).

    A screen holding only a header, a line of text and a footer is timed the same way, as the
    floor that any screen pays.
    """
    from textual.app import ComposeResult
    from textual.screen import Screen
    from textual.widgets import Footer, Header, Static

    from infracards.answers import AnswerBook
    from infracards.store.db import open_store
    from infracards.tui.app import InfracardsApp
    from infracards.tui.context import AppContext
    from infracards.tui.screens.stats import StatsScreen

    class Floor(Screen[None]):
        def compose(self) -> ComposeResult:
            yield Header()
            yield Static("nothing to compute")
            yield Footer()

    engine = open_store(home)
    now = datetime(TODAY.year, TODAY.month, TODAY.day, 12, tzinfo=UTC)
    context = AppContext(engine=engine, answers=AnswerBook(), home=home, clock=lambda: now)

    async def timed(make: Callable[[], Screen[None]]) -> tuple[float, float]:
        """(push → first frame, push → frame showing the numbers)."""
        app = InfracardsApp(context)
        async with app.run_test(headless=True, size=(100, 32)) as pilot:
            await pilot.pause()
            drawn = asyncio.Event()
            screen = make()
            screen.call_after_refresh(drawn.set)
            started = time.perf_counter()
            await app.push_screen(screen)
            await drawn.wait()
            first = time.perf_counter() - started
            while getattr(screen, "stats", True) is None:  # StatsScreen fills in from a worker
                await asyncio.sleep(0.001)
            filled = asyncio.Event()
            screen.call_after_refresh(filled.set)
            await filled.wait()
            complete = time.perf_counter() - started
            await pilot.pause()
        return first, complete

    floor = [await timed(Floor) for _ in range(runs)]
    stats = [await timed(lambda: StatsScreen(context)) for _ in range(runs)]
    print(f"floor screen push → first frame (100×32): {median_ms([f for f, _ in floor])}")
    print(f"stats screen push → first frame (100×32): {median_ms([f for f, _ in stats])}")
    print(
        f"stats screen push → numbers drawn (100×32): {median_ms([c for _, c in stats])} "
        f"(target ≤ {TARGET_MS} ms)"
    )
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--home", type=Path, help="keep (and reuse) the generated store here")
    parser.add_argument("--answer-bytes", type=int, default=600)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = args.home or Path(folder)
        os.environ["INFRACARDS_HOME"] = str(home)
        if not (home / "infracards.db").exists():
            build_store(home, answer_bytes=args.answer_bytes)
        time_compute(args.runs, home)
        asyncio.run(time_screen(args.runs, home))


if __name__ == "__main__":
    main()
