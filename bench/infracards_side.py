"""infracards' half of the comparison: each workload through the app's own code paths.

The deck is loaded the way a learner loads one (``load``: YAML → SQLite); the history then goes
in with raw sqlite3 (``add_history``: seconds, where a million graded reviews through the app
would take long). Imports happen before the clock starts (cold start is measured on its own, in
fresh processes, by ``cold_start.py``), so these numbers are the work a learner waits for once
the program is running. The clock is fixed at noon of ``workload.TODAY``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import workload
from measure import in_child

if TYPE_CHECKING:
    from infracards.tui.context import AppContext

DEMO_KEY = "GTA13-PAJRP-RFMBW-3P4BP-X5NF6-K0PVN"
DECK_ID = "bench"
NOW = datetime(workload.TODAY.year, workload.TODAY.month, workload.TODAY.day, 12, tzinfo=UTC)
"""Noon on the benchmark's study day: a fixed clock, so every run sees the same queue."""
_DATETIME = "%Y-%m-%d %H:%M:%S.%f"
"""How SQLAlchemy stores a DateTime in SQLite."""


def load(deck_path: Path, home: Path) -> float:
    """``deck add`` into a fresh home: read, parse, validate, insert, commit."""
    from infracards.services.library import add_deck
    from infracards.store.db import open_store

    engine = open_store(home)  # an empty collection, as Anki's side starts from one
    started = time.perf_counter()
    report = add_deck(engine, deck_path)
    elapsed = time.perf_counter() - started
    engine.dispose()
    assert report.created and report.added, "the bench deck did not load"
    return elapsed


def add_history(home: Path, cards: int, reviews: int) -> None:
    """Give the loaded bench deck the workload's card states and review log (raw sqlite3)."""
    from infracards.paths import database_path

    with sqlite3.connect(database_path(home)) as db:
        db.execute("PRAGMA synchronous=OFF")
        pks = dict(db.execute("SELECT card_id, id FROM card WHERE deck_id = ?", (DECK_ID,)))
        db.executemany(
            "UPDATE cardstate SET easiness_centi = ?, repetitions = ?, interval = ?, due = ?"
            " WHERE card = ?",
            (
                (
                    round(state.easiness * 100),
                    state.repetitions,
                    state.interval,
                    state.due.isoformat(),
                    pks[workload.card_id(state.index)],
                )
                for state in workload.card_states(cards)
                if state.due is not None
            ),
        )
        db.executemany(
            "INSERT INTO review (card, reviewed_at, study_day, grade, drill, duration_ms,"
            " easiness_centi_before, repetitions_before, interval_before, due_before,"
            " easiness_centi_after, repetitions_after, interval_after, due_after)"
            " VALUES (?, ?, ?, ?, 0, ?, 250, 1, 1, ?, 250, 2, 6, ?)",
            _review_rows(pks, cards, reviews),
        )


def _review_rows(pks: dict[str, int], cards: int, count: int) -> Iterator[tuple[object, ...]]:
    for past in workload.reviews(cards, count):
        day = past.reviewed_at.date()
        yield (
            pks[workload.card_id(past.index)],
            past.reviewed_at.replace(tzinfo=None).strftime(_DATETIME),
            day.isoformat(),
            past.grade,
            past.duration_ms,
            day.isoformat(),
            (day + timedelta(days=6)).isoformat(),
        )


def queue(home: Path, runs: int) -> list[float]:
    """Start a session and show Home: today's queue and every deck's counts, one transaction."""
    from infracards.records import StudyPrefs
    from infracards.store.db import open_store, transaction
    from infracards.store.queries import build_queue
    from infracards.store.reads import deck_summaries

    engine = open_store(home)
    prefs = StudyPrefs()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        with transaction(engine) as session:
            build_queue(session, deck_id=DECK_ID, today=workload.TODAY, prefs=prefs)
            deck_summaries(session, today=workload.TODAY, prefs=prefs)
        samples.append(time.perf_counter() - started)
    engine.dispose()
    return samples


def grade(home: Path, grades: int = 1000) -> list[float]:
    """Seconds per committed grade through ``study.grade_card`` (the cards of today's queue).

    Each call grades cards still due, so repeated calls on one home keep grading new cards.
    """
    from infracards.records import StudyPrefs
    from infracards.services.study import CHECKPOINT_EVERY, grade_card
    from infracards.store.db import checkpoint, open_store, transaction
    from infracards.store.queries import build_queue, load_queue_page, start_session
    from infracards.store.reads import load_card

    engine = open_store(home)
    with transaction(engine, write=True) as session:
        queue = build_queue(session, deck_id=DECK_ID, today=workload.TODAY, prefs=StudyPrefs())
        while len(queue.pending) < grades and queue.unloaded:
            queue = load_queue_page(session, queue=queue)
        pending = queue.pending
        session_id = start_session(session, now=NOW, study_day=workload.TODAY, deck_id=DECK_ID)
    with transaction(engine) as session:
        shown = [load_card(session, pk=pk) for pk in pending[:grades]]
    os.sync()  # the history just written must not be flushed inside the timed commits
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


def stats(home: Path, runs: int) -> list[float]:
    """``compute_stats`` for all decks, in its own read transaction."""
    from infracards.store.db import open_store, transaction
    from infracards.store.stats import compute_stats

    engine = open_store(home)
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        with transaction(engine) as session:
            compute_stats(session, today=workload.TODAY)
        samples.append(time.perf_counter() - started)
    engine.dispose()
    return samples


_EXPORT = textwrap.dedent(
    """
    import sys, time
    from datetime import UTC, date, datetime
    from infracards.services.export import write_csv, write_json
    from infracards.paths import home
    from infracards.store.db import open_store, transaction
    fmt = sys.argv[1]
    since = date.fromisoformat(sys.argv[2]) if len(sys.argv) > 2 else None
    engine = open_store(home())
    start = time.perf_counter()
    with open("/dev/null", "w", encoding="utf-8") as out, transaction(engine) as session:
        if fmt == "json":
            write_json(session, out, now=datetime.now(UTC), since=since)
        else:
            write_csv(session, out, since=since)
    ELAPSED = time.perf_counter() - start
    """
)


def export(home: Path, fmt: str, *, since: date | None = None) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of ``infracards export`` in a fresh process: every review, or
    those from ``since`` on (to show that memory does not grow with the number of reviews)."""
    since_args = [since.isoformat()] if since else []
    return in_child(_EXPORT, fmt, *since_args, env={"INFRACARDS_HOME": str(home)})


def write_export(home: Path, path: Path) -> int:
    """The bench home's progress as a JSON export file (what `import` reads); its size."""
    from infracards.services.export import write_json
    from infracards.store.db import open_store, transaction

    engine = open_store(home)
    with path.open("w", encoding="utf-8") as out, transaction(engine) as session:
        write_json(session, out, now=NOW)
    engine.dispose()
    return path.stat().st_size


def fresh_home(home: Path) -> None:
    """A new home as a first run leaves it: migrated, the built-in deck loaded."""
    from infracards.services.library import ensure_builtin_deck
    from infracards.store.db import open_store

    engine = open_store(home)
    ensure_builtin_deck(engine)
    engine.dispose()


def write_one_card_document(path: Path, reviews: int) -> int:
    """``reviews`` reviews of the built-in deck's q01, six hours apart, as an export holds them.

    The grades mix lapses in (5 4 3 2 5 4 1 5), so the schedule keeps moving; the issue's case
    was 2,000 to 8,000 such reviews taking 14 s to 232 s.
    """
    import json

    start = datetime(1990, 1, 1, 9, tzinfo=UTC)
    grades = (5, 4, 3, 2, 5, 4, 1, 5)
    entries = []
    for n in range(reviews):
        moment = start + timedelta(hours=6 * n)
        entries.append(
            {
                "card_id": "q01",
                "reviewed_at": moment.isoformat().replace("+00:00", "Z"),
                "study_day": moment.date().isoformat(),
                "grade": grades[n % len(grades)],
                "drill": False,
                "duration_ms": 4000,
            }
        )
    document = {
        "format": "infracards-progress/v1",
        "decks": [{"id": "module03", "cards": [], "reviews": entries}],
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path.stat().st_size


_IMPORT = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from infracards.paths import home
    from infracards.services.export import import_progress, read_progress
    from infracards.store.db import open_store
    engine = open_store(home())
    start = time.perf_counter()
    document = read_progress(Path(sys.argv[1]))
    report = import_progress(engine, document, source="bench", only_deck=sys.argv[2])
    ELAPSED = time.perf_counter() - start
    assert report.added and report.already_present == 0, report
    """
)


def import_file(home: Path, document: Path, *, deck_id: str) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of ``infracards import FILE --deck ID`` in a fresh process:
    read and check the file, add every review, replay every touched card's log, commit."""
    return in_child(_IMPORT, str(document), deck_id, env={"INFRACARDS_HOME": str(home)})


def unlock(home: Path) -> tuple[float, int]:
    """Unlock the built-in deck with a demo card key, then open every sealed answer.

    Returns (seconds, answers opened). The unlock is the full production path: key checksum,
    lock header and slots, Argon2id, trial decryption of all answers, license written 0600.
    """
    from infracards.cli.common import open_home
    from infracards.services.answers import AnswerBook
    from infracards.services.unlock import unlock_deck
    from infracards.store.db import transaction
    from infracards.store.reads import find_card, sealed_cards

    os.environ["INFRACARDS_HOME"] = str(home)
    engine = open_home()
    with transaction(engine) as session:
        cards = [
            find_card(session, card_id=card_id, deck_id="module03")[0]
            for card_id, _, _ in sealed_cards(session, deck_id="module03")
        ]
    started = time.perf_counter()
    opened = unlock_deck(engine, home, deck_id="module03", typed_key=DEMO_KEY)
    book = AnswerBook([opened])
    answers = [book.answer_for(card) for card in cards]
    elapsed = time.perf_counter() - started
    engine.dispose()
    assert all(answers), "an answer did not open"
    return elapsed, len(answers)


def grade_in_app(
    home: Path, grades: int, *, deck_id: str = DECK_ID, now: datetime = NOW
) -> list[float]:
    """Grade → next card drawn, in the real app (headless), at the learner's pace."""
    from infracards.services.answers import AnswerBook
    from infracards.store.db import open_store
    from infracards.tui.context import AppContext

    engine = open_store(home)
    context = AppContext(engine=engine, answers=AnswerBook(), home=home, clock=lambda: now)
    times = asyncio.run(timed_actions(context, deck_id, "grade", grades))
    engine.dispose()
    return times


def reveal_sealed_in_app(home: Path) -> list[float]:
    """Space → a sealed answer drawn, for every sealed card, after an unlock (the home from
    ``unlock``)."""
    from infracards.services.answers import AnswerBook
    from infracards.services.settings import local_now
    from infracards.services.unlock import open_saved_keys
    from infracards.store.db import open_store, transaction
    from infracards.store.reads import save_setting
    from infracards.tui.context import AppContext

    engine = open_store(home)
    with transaction(engine, write=True) as session:
        save_setting(session, key="new-per-day", value="40")  # all 33 cards in one session
    opened, _ = open_saved_keys(engine, home)
    context = AppContext(engine=engine, answers=AnswerBook(opened), home=home, clock=local_now)
    times = asyncio.run(timed_actions(context, "module03", "reveal", 31, sealed_only=True))
    engine.dispose()
    return times


async def timed_actions(
    context: AppContext, deck_id: str, action: str, count: int, *, sealed_only: bool = False
) -> list[float]:
    """Time an action from its key press to the end of the screen update that shows its result.

    Measured inside the app (action start → after the next refresh), so Pilot's own waiting is
    not counted; a learner would see the same delay.
    """
    from infracards.tui.app import InfracardsApp
    from infracards.tui.screens.review import ReviewScreen

    times: list[float] = []
    app = InfracardsApp(context, start_review=deck_id)
    async with app.run_test(headless=True, size=(100, 32)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        original = getattr(screen, f"action_{action}")

        def timed(*args: object) -> None:
            start = time.perf_counter()
            original(*args)
            screen.call_after_refresh(lambda: times.append(time.perf_counter() - start))

        setattr(screen, f"action_{action}", timed)
        while len(times) < count and screen.card is not None:
            if sealed_only and not screen.card.locked:
                await pilot.press("space", "5")
                continue
            await pilot.pause(0.3)  # the learner reads the question; the answer is prepared
            await pilot.press("space")
            await pilot.pause(0.01)
            await pilot.press("4")
            await pilot.pause()
    return times


def stats_in_app(home: Path, runs: int) -> list[float]:
    """Push the stats screen → the frame showing its numbers drawn (it fills in from a worker)."""
    from infracards.services.answers import AnswerBook
    from infracards.store.db import open_store
    from infracards.tui.app import InfracardsApp
    from infracards.tui.context import AppContext
    from infracards.tui.screens.stats import StatsScreen

    engine = open_store(home)
    context = AppContext(engine=engine, answers=AnswerBook(), home=home, clock=lambda: NOW)

    async def once() -> float:
        app = InfracardsApp(context)
        async with app.run_test(headless=True, size=(100, 32)) as pilot:
            await pilot.pause()
            screen = StatsScreen(context)
            started = time.perf_counter()
            await app.push_screen(screen)
            while screen.stats is None:
                await asyncio.sleep(0.001)
            drawn = asyncio.Event()
            screen.call_after_refresh(drawn.set)
            await drawn.wait()
            elapsed = time.perf_counter() - started
            await pilot.pause()
        return elapsed

    samples = [asyncio.run(once()) for _ in range(runs)]
    engine.dispose()
    return samples


_KEY_POINTS = json.dumps(
    [
        "Ring All-Reduce 每卡发送 2(N-1)/N·S",
        "ZeRO-3 通信量是 DDP 的 1.5 倍",
        "1F1B bubble = (p-1)/(m+p-1)",
        "TP 留在 NVLink 域内",
        "16 字节/参数的混合精度状态",
    ],
    ensure_ascii=False,
)


@dataclass(frozen=True, slots=True)
class MockTimes:
    """Seconds per run (see ``mock_in_app``)."""

    first_frame: list[float]
    settled: list[float]
    tick: list[float]
    unprepared_first_frame: list[float]
    unprepared_settled: list[float]
    empty_first_frame: list[float]
    empty_settled: list[float]


def mock_in_app(home: Path, runs: int) -> MockTimes:
    """The mock-interview screen in the real app on the bench deck, and for scale a screen
    that shows one Static:

    - `m` on Home → first frame: what `m` calls (the app's ``action_mock``), once Home has
      made the interview ready, as it does while it waits for a key (``MockReserve``: the
      draw and the screen's composing, done ahead) → the first frame laid out and drawn, the
      one the learner sees (Textual draws a new screen as it resumes);
    - → settled: → the end of the next refresh, when nothing is left to draw. Textual paces a
      new screen's refreshes at 60 Hz from its first frame, so this adds up to one frame even
      where the first frame was already complete;
    - tick: a key point ticked → the end of the refresh that shows it;
    - unprepared: options other than `m`'s (5 questions asked for), so nothing was made
      ready: drawn and composed when asked for, as `infracards mock` with options does.

    The bench deck has no key points, so each card gets five first (in the card table only:
    answers and schedules stay as the other workloads left them)."""
    from textual.app import ComposeResult
    from textual.screen import Screen
    from textual.widgets import Static

    from infracards.paths import database_path
    from infracards.services.answers import AnswerBook
    from infracards.store.db import open_store
    from infracards.tui.app import InfracardsApp, MockOptions
    from infracards.tui.context import AppContext
    from infracards.tui.screens.mock import MockScreen

    class OneStatic(Screen[None]):
        def compose(self) -> ComposeResult:
            yield Static("empty")

    with sqlite3.connect(database_path(home)) as db:
        db.execute("UPDATE card SET key_points = ? WHERE deck_id = ?", (_KEY_POINTS, DECK_ID))
    engine = open_store(home)
    context = AppContext(engine=engine, answers=AnswerBook(), home=home, clock=lambda: NOW)

    async def first_and_settled(app: InfracardsApp, started: float) -> tuple[float, float]:
        """(first frame, settled) of the screen just pushed, in seconds from ``started``."""
        screen = app.screen
        laid_out: list[float] = []
        screen.screen_layout_refresh_signal.subscribe(
            app, lambda _screen: laid_out.append(time.perf_counter()), immediate=True
        )
        settled = await frame_after(app, started)
        screen.screen_layout_refresh_signal.unsubscribe(app)
        return laid_out[0] - started, settled

    async def frame_after(app: InfracardsApp, started: float) -> float:
        drawn = asyncio.Event()
        app.screen.call_after_refresh(drawn.set)
        await drawn.wait()
        return time.perf_counter() - started

    async def home_ready(app: InfracardsApp) -> None:
        """Home shown, and its mock interview made ready (a learner takes longer to press m)."""
        for _ in range(400):
            await asyncio.sleep(0.005)
            reserve = app.mock_reserve
            ready = reserve.ready if reserve is not None else None
            if ready is not None and ready.screen.is_mounted:
                await asyncio.sleep(0.05)
                return
        raise RuntimeError("Home made no mock interview ready within 2 s")

    async def end_mock(app: InfracardsApp) -> None:
        """Back to Home, with nothing answered (so nothing is stored)."""
        await app.run_action("screen.leave")
        await home_ready(app)

    async def once() -> tuple[float, ...]:
        app = InfracardsApp(context)
        async with app.run_test(headless=True, size=(100, 32)) as pilot:
            await home_ready(app)
            reserve = app.mock_reserve
            prepared = reserve.ready.screen if reserve is not None and reserve.ready else None
            started = time.perf_counter()
            app.action_mock()
            first, settled = await first_and_settled(app, started)
            screen = app.screen
            assert isinstance(screen, MockScreen) and screen is prepared, "m did not take it"
            await pilot.press("ctrl+r")
            await pilot.pause()
            started = time.perf_counter()
            screen.action_tick(0)
            ticked = await frame_after(app, started)
            await end_mock(app)
            started = time.perf_counter()
            app.open_mock(MockOptions(DECK_ID, questions=5))
            unprepared_first, unprepared_settled = await first_and_settled(app, started)
            assert app.screen is not prepared
            await end_mock(app)
            started = time.perf_counter()
            app.push_screen(OneStatic())
            empty_first, empty_settled = await first_and_settled(app, started)
        return (
            first,
            settled,
            ticked,
            unprepared_first,
            unprepared_settled,
            empty_first,
            empty_settled,
        )

    samples = [asyncio.run(once()) for _ in range(runs)]
    engine.dispose()
    return MockTimes(*(list(column) for column in zip(*samples, strict=True)))
