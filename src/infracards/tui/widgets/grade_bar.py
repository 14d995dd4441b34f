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


NARROW_BELOW = 100
"""Bar widths (cells) below which a button cannot fit "1 wrong, knew" on one line: the
meaning then wraps onto two lines and the outcome is written short ("1d again")."""


def describe_interval(days: int) -> str:
    return "1 day" if days == 1 else f"{days} days"


def outcome_label(quality: int, days: int, *, drill: bool, narrow: bool) -> str:
    """What a grade does: the next interval (and whether the card comes back today)."""
    again = quality < DRILL_UNTIL
    if drill:
        return ("again" if again else "done") + ("" if narrow else " today")
    if narrow:
        return f"{days}d" + (" again" if again else "")
    return describe_interval(days) + (" +again" if again else "")


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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.outcomes: tuple[dict[int, int], bool] | None = None
        """The intervals and drill flag the buttons were last labelled with."""
        self.suggested: int | None = None
        """The grade the key points ticked suggest (marked ★), if any."""

    def on_mount(self) -> None:
        # After the callbacks of the next frame, which include the screen's own.
        self.call_after_refresh(self.call_after_refresh, self.add_buttons)

    def on_resize(self) -> None:
        narrow = self.size.width < NARROW_BELOW
        if narrow != self.has_class("narrow"):
            self.set_class(narrow, "narrow")
            if self.outcomes is not None:
                self.show_intervals(self.outcomes[0], drill=self.outcomes[1])

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
        self.outcomes = (intervals, drill)
        for quality in range(6):
            self._label(quality)
            button = self.query_one(f"#grade-{quality}", Button)
            button.tooltip = f"{quality}: {GRADE_MEANINGS[quality]}"

    def suggest(self, quality: int | None) -> None:
        """Mark the suggested grade (★); only the buttons that change are labelled again."""
        previous, self.suggested = self.suggested, quality
        if self.outcomes is None or previous == quality:
            return
        for changed in (previous, quality):
            if changed is not None:
                self._label(changed)

    def _label(self, quality: int) -> None:
        assert self.outcomes is not None
        intervals, drill = self.outcomes
        button = self.query_one(f"#grade-{quality}", Button)
        outcome = outcome_label(
            quality, intervals[quality], drill=drill, narrow=self.has_class("narrow")
        )
        mark = "★" if quality == self.suggested else ""
        button.label = f"{mark}{quality} {SHORT_MEANINGS[quality]}\n{outcome}"
        button.set_class(quality == self.suggested, "suggested")

    @on(Button.Pressed, ".grade")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        assert event.button.id is not None
        self.post_message(self.Graded(int(event.button.id.removeprefix("grade-"))))
