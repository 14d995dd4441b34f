"""The six SM-2 grades as buttons, each with its meaning and the interval it would give."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button

from infracards.scheduler import GRADE_MEANINGS
from infracards.scheduler.sm2 import DRILL_UNTIL

SHORT_MEANINGS = {
    5: "perfect",
    4: "hesitant",
    3: "difficult",
    2: "wrong, easy",
    1: "wrong, knew",
    0: "blackout",
}


def describe_interval(days: int) -> str:
    return "1 day" if days == 1 else f"{days} days"


class GradeBar(Horizontal):
    """Posts ``GradeBar.Graded`` when a grade button is clicked (keys are bound by the screen)."""

    class Graded(Message):
        """The learner chose a grade."""

        def __init__(self, quality: int) -> None:
            super().__init__()
            self.quality = quality

    def compose(self) -> ComposeResult:
        for quality in range(6):
            yield Button(str(quality), id=f"grade-{quality}", classes=f"grade grade-{quality}")

    def show_intervals(self, intervals: dict[int, int], *, drill: bool) -> None:
        """Label each grade; in a drill the interval does not change, so say so instead."""
        for quality in range(6):
            button = self.query_one(f"#grade-{quality}", Button)
            again = quality < DRILL_UNTIL
            if drill:
                outcome = "again today" if again else "done today"
            else:
                outcome = describe_interval(intervals[quality]) + (" +again" if again else "")
            button.label = f"{quality} {SHORT_MEANINGS[quality]}\n{outcome}"
            button.tooltip = f"{quality}: {GRADE_MEANINGS[quality]}"

    @on(Button.Pressed, ".grade")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        assert event.button.id is not None
        self.post_message(self.Graded(int(event.button.id.removeprefix("grade-"))))
