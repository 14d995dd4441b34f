"""The infracards side of the comparison: build a home from ``workload.py`` and time its hot paths.

``build_home`` migrates a fresh store with the app, then bulk-loads the shared synthetic
collection (one deck, ``workload.card_states`` and ``workload.reviews``) with raw sqlite3, which
takes seconds rather than the minutes the ORM would. The timing functions return seconds per
run, measured through the same calls the app and the CLI make, on ``workload.TODAY``:

- ``queue``: what starting a session and showing Home computes (``build_queue`` and
  ``deck_summaries`` in one read transaction); ``queue_only`` and ``counts`` time each alone.
- ``grade``: one committed grade (state + review log) through ``study.grade_card``.
- ``grade_floor``: the same writes in raw sqlite3 (what SQLite and the disk cost by themselves).
- ``stats``: ``compute_stats`` for all decks.

Run: python bench/infracards_side.py [--home DIR] [--cards 100000] [--reviews 1000000]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workload

DECK_ID = "bench"
NOW = datetime(workload.TODAY.year, workload.TODAY.month, workload.TODAY.day, 12, tzinfo=UTC)
"""Noon UTC on the benchmark's study day: a fixed clock, so every run sees the same queue."""
_DATETIME = "%Y-%m-%d %H:%M:%S.%f"
"""How SQLAlchemy stores a DateTime in SQLite."""


def build_home(home: Path, *, cards: int = 100_000, reviews: int = 1_000_000) -> Path:
    """A migrated store in ``home`` holding the workload's cards and history (kept if present)."""
    from infracards.paths import database_path
    from infracards.store.db import open_store

    path = database_path(home)
    if path.exists():
        return home
    open_store(home).dispose()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA synchronous=OFF")
        db.execute(
            "INSERT INTO deck (id, title, version, language, source, digest)"
            " VALUES (?, 'Bench deck', 1, 'zh-CN', 'bench', '')",
            (DECK_ID,),
        )
        db.executemany(
            "INSERT INTO card (id, deck_id, card_id, position, prompt, tags, key_points, answer,"
            " retired) VALUES (?, ?, ?, ?, ?, ?, '[]', ?, 0)",
            (
                (
                    index + 1,
                    DECK_ID,
                    workload.card_id(index),
                    index + 1,
                    workload.prompt(index),
                    " ".join(workload.tags(index)),
                    workload.answer(index),
                )
                for index in range(cards)
            ),
        )
        db.executemany(
            "INSERT INTO cardstate (card, easiness_centi, repetitions, interval, due)"
            " VALUES (?, ?, ?, ?, ?)",
            (
                (
                    state.index + 1,
                    round(state.easiness * 100),
                    state.repetitions,
                    state.interval,
                    state.due.isoformat() if state.due else None,
                )
                for state in workload.card_states(cards)
            ),
        )
        db.executemany(
            "INSERT INTO review (card, reviewed_at, study_day, grade, drill, duration_ms,"
            " easiness_centi_before, repetitions_before, interval_before, due_before,"
            " easiness_centi_after, repetitions_after, interval_after, due_after)"
            " VALUES (?, ?, ?, ?, 0, ?, 250, 1, 1, ?, 250, 2, 6, ?)",
            _review_rows(cards, reviews),
        )
    return home


def _review_rows(cards: int, count: int) -> Iterator[tuple[object, ...]]:
    for past in workload.reviews(cards, count):
        day = past.reviewed_at.date()
        yield (
            past.index + 1,
            past.reviewed_at.replace(tzinfo=None).strftime(_DATETIME),
            day.isoformat(),
            past.grade,
            past.duration_ms,
            day.isoformat(),
            (day + timedelta(days=6)).isoformat(),
        )


def _engine(home: Path):  # type: ignore[no-untyped-def]
    from infracards.store.db import open_store

    return open_store(home)


def queue(home: Path, runs: int) -> list[float]:
    """Start a session and show Home: today's queue and every deck's counts, one transaction."""
    from infracards.store.db import transaction
    from infracards.store.queries import StudyPrefs, build_queue, deck_summaries

    engine = _engine(home)
    prefs = StudyPrefs()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        with transaction(engine) as session:
            build_queue(session, deck_id=DECK_ID, today=workload.TODAY, prefs=prefs)
            deck_summaries(session, today=workload.TODAY)
        samples.append(time.perf_counter() - started)
    engine.dispose()
    return samples


def queue_only(home: Path, runs: int) -> list[float]:
    """Today's queue alone (``build_queue``)."""
    from infracards.store.db import transaction
    from infracards.store.queries import StudyPrefs, build_queue

    engine = _engine(home)
    prefs = StudyPrefs()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        with transaction(engine) as session:
            build_queue(session, deck_id=DECK_ID, today=workload.TODAY, prefs=prefs)
        samples.append(time.perf_counter() - started)
    engine.dispose()
    return samples


def counts(home: Path, runs: int) -> list[float]:
    """Home's counts alone (``deck_summaries``)."""
    from infracards.store.db import transaction
    from infracards.store.queries import deck_summaries

    engine = _engine(home)
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        with transaction(engine) as session:
            deck_summaries(session, today=workload.TODAY)
        samples.append(time.perf_counter() - started)
    engine.dispose()
    return samples


def grade(home: Path, grades: int = 1000) -> list[float]:
    """Seconds per committed grade through ``study.grade_card`` (the cards of today's queue).

    Each call grades cards still due, so repeated calls on one home keep grading new cards.
    """
    from infracards.store.db import checkpoint, transaction
    from infracards.store.queries import (
        StudyPrefs,
        build_queue,
        load_card,
        load_queue_page,
        start_session,
    )
    from infracards.study import CHECKPOINT_EVERY, grade_card

    engine = _engine(home)
    with transaction(engine, write=True) as session:
        queue = build_queue(session, deck_id=DECK_ID, today=workload.TODAY, prefs=StudyPrefs())
        while len(queue.pending) < grades and queue.unloaded:
            queue = load_queue_page(session, queue=queue)
        pending = queue.pending
        session_id = start_session(session, now=NOW, study_day=workload.TODAY, deck_id=DECK_ID)
    with transaction(engine) as session:
        shown = [load_card(session, pk=pk) for pk in pending[:grades]]
    samples = []
    for n, card in enumerate(shown):
        if n and n % CHECKPOINT_EVERY == 0:
            checkpoint(engine)  # between grades, as the review screen does while the learner reads
        quality = (5, 4, 4, 3, 5, 2)[n % 6]
        started = time.perf_counter()
        grade_card(
            engine,
            card=card,
            quality=quality,
            drill=False,
            now=NOW,
            today=workload.TODAY,
            duration_ms=4000,
            session_id=session_id,
        )
        samples.append(time.perf_counter() - started)
    engine.dispose()
    return samples


def grade_floor(home: Path, grades: int = 1000) -> list[float]:
    """The same committed writes as ``grade`` in raw sqlite3, with the store's PRAGMAs: the floor.

    BEGIN IMMEDIATE, read the state, insert the review, update the state, COMMIT (one fsync under
    ``synchronous=FULL``); what ``grade`` costs above this is Python and SQLAlchemy.
    """
    from infracards.paths import database_path

    db = sqlite3.connect(database_path(home), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    day = workload.TODAY.isoformat()
    pending = [
        pk
        for (pk,) in db.execute(
            "SELECT card FROM cardstate WHERE due <= ? ORDER BY due LIMIT ?", (day, grades)
        )
    ]
    at = NOW.replace(tzinfo=None).strftime(_DATETIME)
    samples = []
    for pk in pending:
        started = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        ef, reps, interval, due = db.execute(
            "SELECT easiness_centi, repetitions, interval, due FROM cardstate WHERE card = ?", (pk,)
        ).fetchone()
        after = (workload.TODAY + timedelta(days=interval + 1)).isoformat()
        db.execute(
            "INSERT INTO review (card, reviewed_at, study_day, grade, drill, duration_ms,"
            " easiness_centi_before, repetitions_before, interval_before, due_before,"
            " easiness_centi_after, repetitions_after, interval_after, due_after)"
            " VALUES (?, ?, ?, 4, 0, 4000, ?, ?, ?, ?, ?, ?, ?, ?)",
            (pk, at, day, ef, reps, interval, due, ef, reps + 1, interval + 1, after),
        )
        db.execute(
            "UPDATE cardstate SET repetitions = ?, interval = ?, due = ?, last_review_at = ?"
            " WHERE card = ?",
            (reps + 1, interval + 1, after, at, pk),
        )
        db.execute("COMMIT")
        samples.append(time.perf_counter() - started)
    db.close()
    return samples


def stats(home: Path, runs: int) -> list[float]:
    """``compute_stats`` for all decks, in its own read transaction."""
    from infracards.store.db import transaction
    from infracards.store.stats import compute_stats

    engine = _engine(home)
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        with transaction(engine) as session:
            compute_stats(session, today=workload.TODAY)
        samples.append(time.perf_counter() - started)
    engine.dispose()
    return samples


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, help="keep (and reuse) the generated store here")
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--reviews", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--grades", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = args.home or Path(folder)
        started = time.perf_counter()
        build_home(home, cards=args.cards, reviews=args.reviews)
        print(f"home ready in {time.perf_counter() - started:.1f} s: {home}")
        for name, samples in (
            ("queue + counts", queue(home, args.runs)),
            ("queue", queue_only(home, args.runs)),
            ("counts", counts(home, args.runs)),
            ("stats", stats(home, max(3, args.runs // 3))),
        ):
            print(f"{name:>15}: median {statistics.median(samples) * 1000:7.2f} ms")
        for name, samples in (
            ("grade", grade(home, args.grades)),
            ("grade floor", grade_floor(home, args.grades)),
        ):
            print(
                f"{name:>15}: median {statistics.median(samples) * 1000:7.2f} ms, "
                f"p99 {percentile(samples, 0.99) * 1000:.2f} ms over {len(samples)}"
            )


if __name__ == "__main__":
    main()
