"""App speed: cold start to the first card, grade → next card, and reveal of a sealed answer.

Run: python bench/bench_app.py [--runs 7] [--grades 300]
Prints numbers and ratios measured in one run (this machine is shared and noisy, so only
ratios within a run mean much); asserts nothing. Cold start is measured by ``cold_start.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

import cold_start

DEMO_KEY = "GTA13-PAJRP-RFMBW-3P4BP-X5NF6-K0PVN"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def grade_and_reveal(grades: int) -> None:
    from infracards.answers import AnswerBook
    from infracards.cli import open_home
    from infracards.paths import home
    from infracards.store.db import transaction
    from infracards.store.queries import save_setting
    from infracards.study import local_now
    from infracards.tui.context import AppContext
    from infracards.unlock import unlock_deck

    engine = open_home()
    opened = unlock_deck(engine, home(), deck_id="module03", typed_key=DEMO_KEY)
    deck = Path(os.environ["INFRACARDS_HOME"]) / "big.yaml"
    write_big_deck(deck, grades + 10)
    from infracards.library import add_deck

    add_deck(engine, deck)
    with transaction(engine) as session:
        save_setting(session, key="new-per-day", value=str(grades + 10))

    context = AppContext(engine=engine, answers=AnswerBook([opened]), home=home(), clock=local_now)
    grade_times = await timed_actions(context, "big", "grade", grades)
    print(
        f"grade → next card drawn: median {statistics.median(grade_times) * 1000:.1f} ms, "
        f"p99 {percentile(grade_times, 0.99) * 1000:.1f} ms over {len(grade_times)} grades "
        "(target median ≤ 16 ms)"
    )
    reveal_times = await timed_actions(context, "module03", "reveal", 31, sealed_only=True)
    print(
        f"reveal of a sealed answer after unlock: median {statistics.median(reveal_times) * 1000:.1f} ms, "
        f"max {max(reveal_times) * 1000:.1f} ms over {len(reveal_times)} cards (target ≤ 16 ms)"
    )


async def timed_actions(
    context, deck_id: str, action: str, count: int, *, sealed_only: bool = False
) -> list[float]:  # type: ignore[no-untyped-def]
    """Time an action from its key press to the end of the screen update that shows its result.

    Measured inside the app (action start → after the next refresh), so Pilot's own waiting
    is not counted; a learner would see the same delay.
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
            skipped = sealed_only and screen.card is not None and not screen.card.locked
            start = time.perf_counter()
            original(*args)
            if not skipped:  # free cards are stepped over at once, with no time to prepare
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


def write_big_deck(path: Path, cards: int) -> None:
    lines = [
        "format: infracards-deck/v1",
        "id: big",
        "title: Bench deck",
        "version: 1",
        "language: zh-CN",
        "cards:",
    ]
    answer = "    answer: |\n" + "".join(
        f"      第 {i} 行：All-Reduce 的通信量是 2(N−1)/N·S。\n" for i in range(30)
    )
    for i in range(cards):
        lines.append(
            f"  - id: c{i:05d}\n    prompt: 第 {i} 题：Ring All-Reduce 每卡发送多少字节？\n{answer}"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--grades", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cold_start.report(cold_start.interleaved(Path(folder), args.runs))
        os.environ["INFRACARDS_HOME"] = folder
        asyncio.run(grade_and_reveal(args.grades))


if __name__ == "__main__":
    main()
