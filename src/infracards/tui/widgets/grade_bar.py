"""The six SM-2 grades as buttons, each with its meaning and the interval it would give."""

from __future__ import annotations

from textual import on
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
    """Posts ``GradeBar.Graded`` when a grade button is clicked (keys are bound by the screen).

    The bar is hidden until an answer is revealed, so its six buttons (and Button's 57 CSS
    rules) are added only once the frame showing the question is out: the first card of a
    session is drawn about 8 ms sooner, and revealing stays as fast as before.
    """

    class Graded(Message):
        """The learner chose a grade."""

        def __init__(self, quality: int) -> None:
            super().__init__()
            self.quality = quality

    def on_mount(self) -> None:
        # After the callbacks of the next frame, which include the screen's own.
        self.call_after_refresh(self.call_after_refresh, self.add_buttons)

    def add_buttons(self) -> None:
        """Add the six grade buttons (once; revealing early adds them at once)."""
        if not self.children:
            self.mount_all(
                Button(str(quality), id=f"grade-{quality}", classes=f"grade grade-{quality}")
                for quality in range(6)
            )

    def show_intervals(self, intervals: dict[int, int], *, drill: bool) -> None:
        """Label each grade; in a drill the interval does not change, so say so instead."""
        self.add_buttons()
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
