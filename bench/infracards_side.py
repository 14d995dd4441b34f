"""infracards' half of the comparison: each workload through the app's own code paths.

Imports happen before the clock starts (cold start is measured on its own, in fresh processes),
so these numbers are the work a learner waits for once the program is running.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from infracards.tui.context import AppContext

DEMO_KEY = "GTA13-PAJRP-RFMBW-3P4BP-X5NF6-K0PVN"


def load(deck_path: Path, home: Path) -> float:
    """A fresh home: create and migrate the store, then ``deck add`` (parse, validate, insert)."""
    from infracards.library import add_deck
    from infracards.store.db import open_store

    started = time.perf_counter()
    engine = open_store(home)
    report = add_deck(engine, deck_path)
    engine.dispose()
    elapsed = time.perf_counter() - started
    assert report.created and report.added, "the bench deck did not load"
    return elapsed


_EXPORT = textwrap.dedent(
    """
    import resource, sys, time
    from datetime import UTC, date, datetime
    from infracards.export import write_csv, write_json
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
    print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """
)


def export(home: Path, fmt: str, *, since: date | None = None) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of ``infracards export`` in a fresh process: every review, or
    those from ``since`` on (to show that memory does not grow with the number of reviews)."""
    out = subprocess.run(
        [sys.executable, "-c", _EXPORT, fmt, *([since.isoformat()] if since else [])],
        env={**os.environ, "INFRACARDS_HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, rss_kib = out.stdout.split()
    return float(seconds), int(rss_kib) / 1024


def unlock(home: Path) -> tuple[float, int]:
    """Unlock the built-in deck with a demo card key, then open every sealed answer.

    Returns (seconds, answers opened). The unlock is the full production path: key checksum,
    lock header and slots, Argon2id, trial decryption of all answers, license written 0600.
    """
    from infracards.answers import AnswerBook
    from infracards.cli import open_home
    from infracards.store.db import transaction
    from infracards.store.queries import find_card, sealed_cards
    from infracards.unlock import unlock_deck

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


def grade_in_app(home: Path, grades: int, *, deck_id: str, now: datetime) -> list[float]:
    """Grade → next card drawn, in the real app (headless), at the learner's pace."""
    from infracards.answers import AnswerBook
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
    from infracards.answers import AnswerBook
    from infracards.store.db import open_store
    from infracards.study import local_now
    from infracards.tui.context import AppContext
    from infracards.unlock import open_saved_keys

    engine = open_store(home)
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
