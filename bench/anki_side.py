"""Anki's side of the comparison: the workload's cards and history in Anki's own engine.

The same cards (``workload.prompt``/``answer``/``tags``, the infracards card id as the note's
GUID) and the same history (``workload.card_states`` and ``workload.reviews``) go into a
collection of the official ``anki`` package (the Rust backend Anki itself runs on), one deck
"Bench" of Basic notes. Anki keeps the real clock, so dates relative to ``workload.TODAY`` are
moved onto Anki's own today. The deck matches infracards' defaults: 10 new cards a day and
no review limit.

Saving is automatic: ``col.save()`` is a deprecated no-op, and every backend operation
(``add_notes``, ``answer_card``, ...) opens a savepoint and releases it before returning,
which commits (checked with ``TRACESQL=1`` and by killing the process right after an answer).
The collection is in WAL mode with ``synchronous=FULL``, as infracards' store is.

API for ``bench/run.py``; each timing function returns raw seconds per run:

- ``available() -> bool``: whether ``anki`` can be imported.
- ``load(folder, cards) -> LoadResult``: a fresh collection in ``folder`` holding the cards.
- ``add_history(collection, cards, reviews) -> None``: card states and review log, bulk SQL.
- ``cold_start(collection, runs) -> list[float]``: spawn → first card's question rendered.
- ``queue(collection, runs) -> list[float]``: today's queue with its counts, and the deck list.
- ``grade(collection, grades=1000) -> list[float]``: one committed answer per sample.
- ``stats(collection, runs) -> list[float]``: the statistics page's graphs.
- ``export(...)`` and ``unlock(...)``: no Anki equivalent; they return None.

Run: python bench/anki_side.py [--cards 1000] [--reviews 10000] [--runs 7] [--grades 1000]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workload
from measure import p99

if TYPE_CHECKING:
    from anki.collection import Collection

DECK = "Bench"
NEW_PER_DAY = 10
"""infracards' default daily limit of new cards."""
NO_REVIEW_LIMIT = 1_000_000
"""infracards has no review limit. Deck presets cap it at 9,999 (larger values silently fall
back to 200), so it is set as the deck's own limit, which takes any number."""
BATCH = 1000
"""Notes per ``add_notes`` call while loading."""
GRADE_CYCLE = (5, 4, 4, 3, 5, 2)
"""SM-2 grades given in turn while timing ``grade`` (the infracards side uses the same cycle)."""
STATS_DAYS = 365
"""The statistics page's default period ("1 year"); the heatmap covers a year as well."""

_RATINGS = ("again", "hard", "good", "easy")
"""The answer states' field names, in the order of ``CardAnswer.Rating`` (0 to 3)."""
_FIRST_CARD = """
import sys
from anki.collection import Collection

col = Collection(sys.argv[1])
col.sched.getCard().question()
print("ready", flush=True)
col.close()
"""


@dataclass(frozen=True, slots=True)
class LoadResult:
    seconds: float
    collection: Path


def available() -> bool:
    """Whether the ``anki`` package (and its compiled backend) can be imported."""
    try:
        import anki.collection  # noqa: F401
    except ImportError:
        return False
    return True


def ease(grade: int) -> int:
    """Anki's answer button for an SM-2 grade: 0–2 Again, 3 Hard, 4 Good, 5 Easy."""
    return max(1, grade - 1)


def _open(collection: Path) -> Collection:
    from anki.collection import Collection

    return Collection(str(collection))


def load(folder: Path, cards: int) -> LoadResult:
    """Time adding ``cards`` notes with ``add_notes``, ``BATCH`` at a time, to a fresh collection.

    Timed: building each note (``new_note`` and its fields, tags and GUID) and the
    ``add_notes`` calls, each of which commits; creating the empty collection is not.
    """
    from anki.collection import AddNoteRequest

    path = folder / "collection.anki2"
    col = _open(path)
    deck_id = col.decks.id(DECK)
    assert deck_id is not None
    col.decks.select(deck_id)
    deck = col.decks.get(deck_id)
    deck["newLimit"], deck["reviewLimit"] = NEW_PER_DAY, NO_REVIEW_LIMIT
    col.decks.save(deck)
    basic = col.models.by_name("Basic")
    assert basic is not None
    started = time.perf_counter()
    for first in range(0, cards, BATCH):
        requests = []
        for index in range(first, min(first + BATCH, cards)):
            note = col.new_note(basic)
            note.guid = workload.card_id(index)
            note["Front"] = workload.prompt(index)
            note["Back"] = workload.answer(index)
            note.tags = workload.tags(index)
            requests.append(AddNoteRequest(note, deck_id))
        col.add_notes(requests)
    seconds = time.perf_counter() - started
    col.close()
    return LoadResult(seconds, path)


def add_history(collection: Path, cards: int, reviews: int) -> None:
    """Write the workload's card states and review log with bulk SQL in one transaction.

    The collection is first dated back past the history, so Anki's today is a positive day
    number; ``workload.TODAY`` then maps onto that today, for due dates and for review times.
    """
    col = _open(collection)
    col.db.execute("update col set crt = crt - ?", (workload.HISTORY_DAYS + 30) * 86_400)
    col.close()
    col = _open(collection)  # the backend caches today's day number until reopened
    today = col.sched.today
    midnight = datetime.combine(workload.TODAY, datetime.min.time(), tzinfo=UTC).timestamp()
    # Seconds from TODAY's midnight (UTC) to the start of Anki's today (its rollover hour).
    shift = col.sched.day_cutoff - 86_400 - midnight
    guids = col.db.all("select n.guid, c.id from cards c join notes n on n.id = c.nid")
    by_guid = dict(guids)
    ids = [by_guid[workload.card_id(index)] for index in range(cards)]
    states = workload.card_states(cards)

    def write() -> None:
        col.db.executemany(
            "update cards set type = 2, queue = 2, due = ?, ivl = ?, factor = ?, reps = ?,"
            " mod = ?, usn = -1 where id = ?",
            _card_rows(ids, states, today),
        )
        rows = _revlog_rows(ids, states, reviews, shift)
        while chunk := list(itertools.islice(rows, 100_000)):
            col.db.executemany("insert into revlog values (?, ?, -1, ?, ?, ?, ?, ?, 1)", chunk)

    col.db.transact(write)
    col.close()


def _card_rows(
    ids: list[int], states: list[workload.CardHistory], today: int
) -> list[tuple[int, int, int, int, int, int]]:
    """(due, ivl, factor, reps, mod, id) of every reviewed card, due counted in Anki's days."""
    now = int(time.time())
    return [
        (
            today + (state.due - workload.TODAY).days,
            state.interval,
            round(state.easiness * 1000),
            state.repetitions,
            now,
            ids[state.index],
        )
        for state in states
        if state.due is not None
    ]


def _revlog_rows(
    ids: list[int], states: list[workload.CardHistory], reviews: int, shift: float
) -> Iterator[tuple[int, int, int, int, int, int, int]]:
    """(id, cid, ease, ivl, lastIvl, factor, time) of each past review, as a review entry.

    The id is the review's time in milliseconds, moved by ``shift``; the workload logs no
    intervals, so ivl and lastIvl are the card's current interval (1 for a new card).
    """
    for past in workload.reviews(len(ids), reviews):
        state = states[past.index]
        interval = max(1, state.interval)
        yield (
            round((past.reviewed_at.timestamp() + shift) * 1000),
            ids[past.index],
            ease(past.grade),
            interval,
            interval,
            round(state.easiness * 1000),
            past.duration_ms,
        )


def cold_start(collection: Path, runs: int) -> list[float]:
    """Time from spawning a fresh interpreter until it prints with the first card's question ready.

    The child imports ``anki``, opens the collection, takes the first card of today's queue
    (``sched.getCard``, which builds the queue) and renders its question, as Anki's reviewer
    does before showing it; closing afterwards is not timed.
    """
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        with subprocess.Popen(
            [sys.executable, "-c", _FIRST_CARD, str(collection)], stdout=subprocess.PIPE, text=True
        ) as child:
            assert child.stdout is not None
            line = child.stdout.readline()
            samples.append(time.perf_counter() - started)
        if child.returncode or line != "ready\n":
            raise RuntimeError(f"the first-card child failed with exit code {child.returncode}")
    return samples


def queue(collection: Path, runs: int) -> list[float]:
    """Time building today's queue with its counts, plus the deck list's counts (Anki's Home).

    ``get_queued_cards`` builds the whole queue (every due card and today's new cards) and
    returns its three counts and the first card with its answer states, as the reviewer asks
    for it; ``deck_due_tree`` is what the deck list shows. Anki caches the queue, so before
    each run a no-op write through ``col.db`` discards it, as any change to the collection does.
    """
    col = _open(collection)
    samples = []
    for _ in range(runs):
        col.db.execute("update col set mod = mod")
        started = time.perf_counter()
        col.sched.get_queued_cards()
        col.sched.deck_due_tree()
        samples.append(time.perf_counter() - started)
    col.close()
    return samples


def grade(collection: Path, grades: int = 1000) -> list[float]:
    """Time ``answer_card`` for up to ``grades`` cards, in the order today's queue shows them.

    Each call updates the card, appends its revlog row and commits (WAL, ``synchronous=FULL``)
    before it returns. Fetching the next card and building its answer are not timed. Stops
    early when today's queue runs out, as the infracards side does.
    """
    # From the protobuf module: importing anki.scheduler.v3 before anki.collection fails
    # with a circular import.
    from anki.scheduler_pb2 import CardAnswer

    # Write back what earlier bulk writes left in the page cache (~0.5 GB for a fresh 100k
    # collection), so it does not land in these commits' fsyncs.
    os.sync()
    col = _open(collection)
    samples = []
    for n in range(grades):
        queued = col.sched.get_queued_cards().cards
        if not queued:
            break
        rating = ease(GRADE_CYCLE[n % len(GRADE_CYCLE)]) - 1
        answer = CardAnswer(
            card_id=queued[0].card.id,
            current_state=queued[0].states.current,
            new_state=getattr(queued[0].states, _RATINGS[rating]),
            rating=rating,
            answered_at_millis=int(time.time() * 1000),
            milliseconds_taken=4000,
        )
        started = time.perf_counter()
        col.sched.answer_card(answer)
        samples.append(time.perf_counter() - started)
    col.close()
    return samples


def stats(collection: Path, runs: int) -> list[float]:
    """Time the statistics page's graphs for the whole collection over the last year.

    One backend ``graphs`` call computes every graph of the page at once (review heatmap and
    counts, future due, retention, intervals, eases, hours, buttons, added); Anki cannot
    compute a subset. pylib has no public wrapper: the desktop stats page calls this same
    backend method.
    """
    col = _open(collection)
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        col._backend.graphs(search="", days=STATS_DAYS)
        samples.append(time.perf_counter() - started)
    col.close()
    return samples


def export(*_: object, **__: object) -> None:
    """Anki has no equivalent of infracards' progress export."""


def unlock(*_: object, **__: object) -> None:
    """Anki has no equivalent of unlocking a sealed deck."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--reviews", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--grades", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        loaded = load(Path(folder), args.cards)
        print(f"load: {loaded.seconds:.2f} s, {args.cards / loaded.seconds:,.0f} cards/s")
        started = time.perf_counter()
        add_history(loaded.collection, args.cards, args.reviews)
        print(f"history: {time.perf_counter() - started:.1f} s for {args.reviews:,} reviews")
        col = _open(loaded.collection)
        print("today's counts (new, learning, review):", col.sched.counts())
        col.close()
        for name, samples in (
            ("cold_start", cold_start(loaded.collection, args.runs)),
            ("queue", queue(loaded.collection, args.runs)),
            ("stats", stats(loaded.collection, args.runs)),
        ):
            print(f"{name:>10}: median {statistics.median(samples) * 1000:8.2f} ms")
        samples = grade(loaded.collection, args.grades)
        print(
            f"{'grade':>10}: median {statistics.median(samples) * 1000:8.2f} ms, "
            f"p99 {p99(samples) * 1000:.2f} ms over {len(samples)} grades"
        )


if __name__ == "__main__":
    main()
