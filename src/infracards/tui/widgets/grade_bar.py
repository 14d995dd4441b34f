"""The six SM-2 grades as buttons, each with its meaning and the interval it would give.

Every label is two lines, meaning then outcome, in every button at every width: below 84
columns both are written short ("1 ✗ knew" / "1d +today"), so no button wraps a third line or
cuts its outcome off, and all six stay aligned.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import on
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button

from infracards.scheduler import GRADE_MEANINGS
from infracards.scheduler.sm2 import DRILL_UNTIL

MEANINGS = {
    5: "perfect",
    4: "hesitant",
    3: "difficult",
    2: "wrong, easy",
    1: "wrong, knew",
    0: "blackout",
}
"""Each grade in a word or two: the button's first line where the bar has room."""
COMPACT_MEANINGS = {**MEANINGS, 3: "hard", 2: "✗ easy", 1: "✗ knew"}
"""The same in at most 8 cells (✗: wrong), for bars narrower than ``ROOMY_CELLS`` a button."""
ROOMY_CELLS = 14
"""A button this wide holds "1 wrong, knew" and "99 days +today" (a bar of 84 columns)."""
COMPACT_CELLS = 10
"""A button this wide holds "4 hesitant" and "1d +today" (a bar of 60 columns); a narrower one
(the keys help open beside it) shows the grade's digit and "1d+today"."""


def describe_interval(days: int, *, compact: bool) -> str:
    if compact:
        return f"{days}d"
    return "1 day" if days == 1 else f"{days} days"


def outcome_label(quality: int, days: int, *, drill: bool, compact: bool) -> str:
    """What a grade does: the next interval, and "+today" when the card also comes back
    later today (step 7); in a drill the interval stays, so: again today, or done."""
    again = quality < DRILL_UNTIL
    if drill:
        return ("again" if again else "done") + ("" if compact else " today")
    return describe_interval(days, compact=compact) + (" +today" if again else "")


class GradeBar(Horizontal):
    """Posts ``GradeBar.Graded`` when a grade button is clicked (keys are bound by the screen).

    The bar is hidden until an answer is revealed, so its six buttons (and Button's 57 CSS
    rules) are added only once the frame showing the question is out: the first card of a
    session is drawn about 8 ms sooner, and revealing stays as fast as before. Hidden, it
    keeps its place (the screen sets ``visible``, not ``display``): the card above keeps its
    size from question to answer, so neither a reveal nor the next card lays it out anew
    (3 ms of each grade's frame here).
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

    def labels(self, quality: int, days: int, *, drill: bool, mark: str = "") -> tuple[str, str]:
        """A button's two lines, as long as the buttons' width allows (each is a sixth).

        ``mark`` (★) leads the first line; where that would not fit, it takes the space
        between the digit and the meaning, so the line never wraps.
        """
        room = self.size.width // 6
        compact = room < ROOMY_CELLS
        outcome = outcome_label(quality, days, drill=drill, compact=compact)
        if room < COMPACT_CELLS:
            return f"{mark}{quality}", outcome.replace(" ", "")
        meaning = (COMPACT_MEANINGS if compact else MEANINGS)[quality]
        line = f"{mark}{quality} {meaning}"
        if cell_len(line) > room:
            line = f"{quality}{mark}{meaning}"
        return line, outcome

    def on_resize(self) -> None:
        if self.outcomes is not None:
            self.show_intervals(self.outcomes[0], drill=self.outcomes[1])

    def add_buttons(self) -> None:
        """Add the six grade buttons (once; revealing early adds them at once)."""
        if not self.children:
            buttons = [
                Button(str(quality), id=f"grade-{quality}", classes=f"grade grade-{quality}")
                for quality in range(6)
            ]
            for button in buttons:
                # Button pads each line by a cell on both sides; the labels need those cells.
                # (Set here: Textual's CSS parser refuses `line-pad: 0`.)
                button.styles.line_pad = 0
            self.mount_all(buttons)

    def show_intervals(self, intervals: dict[int, int], *, drill: bool) -> None:
        """Label each grade; in a drill the interval does not change, so say so instead."""
        self.add_buttons()
        self.outcomes = (intervals, drill)
        for quality in range(6):
            self._label(quality)
            button = self.query_one(f"#grade-{quality}", Button)
            button.tooltip = f"{quality}: {GRADE_MEANINGS[quality]}"

    def suggest(self, quality: int | None) -> None:
        """Mark the suggested grade (★); only the buttons that change are labelled again, and
        none while the bar is hidden (``show_intervals`` labels them all when it is shown)."""
        previous, self.suggested = self.suggested, quality
        if self.outcomes is None or previous == quality or not self.visible:
            return
        for changed in (previous, quality):
            if changed is not None:
                self._label(changed)

    def _label(self, quality: int) -> None:
        assert self.outcomes is not None
        intervals, drill = self.outcomes
        button = self.query_one(f"#grade-{quality}", Button)
        mark = "★" if quality == self.suggested else ""
        meaning, outcome = self.labels(quality, intervals[quality], drill=drill, mark=mark)
        button.label = f"{meaning}\n{outcome}"
        button.set_class(quality == self.suggested, "suggested")

    @on(Button.Pressed, ".grade")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        assert event.button.id is not None
        self.post_message(self.Graded(int(event.button.id.removeprefix("grade-"))))
