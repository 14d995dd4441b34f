"""A real infracards app, headless, grading cards until it is killed.

It prints each review id right after the grade is committed, which is when the app shows the
next card: a learner who saw the next card was told their grade is safe.
Usage: python grading_process.py SEED DECK_ID   (INFRACARDS_HOME set by the caller)
"""

from __future__ import annotations

import asyncio
import random
import sys

from infracards.cli.common import open_home
from infracards.paths import home
from infracards.services.answers import AnswerBook
from infracards.services.settings import local_now
from infracards.tui.app import InfracardsApp
from infracards.tui.context import AppContext
from infracards.tui.screens.review import ReviewScreen


class ReportingReview(ReviewScreen):
    def action_grade(self, quality: int) -> None:
        graded_before = len(self.review.history)
        super().action_grade(quality)
        if len(self.review.history) > graded_before:
            print(self.review.history[-1].graded.review_id, flush=True)


async def grade_forever(seed: int, deck_id: str) -> None:
    rng = random.Random(seed)
    context = AppContext(engine=open_home(), answers=AnswerBook(), home=home(), clock=local_now)
    app = InfracardsApp(context)
    async with app.run_test(headless=True, size=(100, 32)) as pilot:
        await app.push_screen(ReportingReview(context, deck_id=deck_id))
        while isinstance(app.screen, ReviewScreen):
            await pilot.press("space", str(rng.randint(0, 5)))
    print("done", flush=True)


if __name__ == "__main__":
    asyncio.run(grade_forever(int(sys.argv[1]), sys.argv[2]))
