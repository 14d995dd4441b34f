"""The key points (要点) as a checklist: one line per point with its key, ticked by key or click.

It draws what it is given (points, ticks, a suggested grade) and posts ``Toggled`` when a point
is clicked; the screen asks its session what to draw next. Ticking only restyles two lines, so
it stays well inside a frame however long the answer below it is. A point too long for a line
goes on under its first word, not under its key.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from infracards.tui.text import literal

TICKED = "☑"
UNTICKED = "☐"


def plain_text(line: Table) -> str:
    """What a point's line says, unwrapped (its prefix, then the point)."""
    return "".join(str(cell) for column in line.columns for cell in column.cells)


def point_line(prefix: Text, point: str) -> Table:
    """``prefix`` (key and box, or a bullet), then the point with a hanging indent."""
    line = Table.grid()
    line.add_column(no_wrap=True)
    line.add_column(overflow="fold")
    line.add_row(prefix, literal(point, one_line=True))
    return line


class PointLine(Static):
    """One key point; a click ticks it."""

    def __init__(self, index: int, line: Table) -> None:
        super().__init__(line, classes="point")
        self.index = index
        self.plain = plain_text(line)

    def show(self, line: Table) -> None:
        self.update(line)
        self.plain = plain_text(line)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(KeyPointList.Toggled(self.index))


class KeyPointList(Vertical):
    """Key points first, above the full answer; read-only where ``keys`` is empty."""

    class Toggled(Message):
        """The learner clicked point ``index``."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.points: tuple[str, ...] = ()
        self.keys = ""
        self.checkable = 0
        self.ticked: frozenset[int] = frozenset()

    def compose(self) -> ComposeResult:
        yield Static(id="points-title")
        yield Vertical(id="points-lines")
        yield Static(id="points-hint")

    def show_points(
        self, points: tuple[str, ...], *, keys: str, checkable: int, title: str, hint: str = ""
    ) -> None:
        """Lay out the points (``checkable`` of them can be ticked, ``keys[i]`` ticks point i)."""
        self.points, self.keys, self.checkable = points, keys, checkable
        self.ticked = frozenset()
        self.query_one("#points-title", Static).update(Text(title, style="bold"))
        lines = self.query_one("#points-lines", Vertical)
        lines.remove_children()
        lines.mount_all(PointLine(index, self._line(index, False)) for index in range(len(points)))
        self.query_one("#points-hint", Static).update(Text(hint, style="dim"))
        self.display = True

    def show_ticks(self, ticked: frozenset[int], hint: str = "") -> None:
        """Redraw the points whose box changed, and the line under them (the suggested grade)."""
        changed = ticked ^ self.ticked
        self.ticked = ticked
        for line in self.query(PointLine):
            if line.index in changed:
                line.show(self._line(line.index, line.index in ticked))
                line.set_class(line.index in ticked, "ticked")
        self.query_one("#points-hint", Static).update(Text(hint, style="dim"))

    def show_message(self, message: str) -> None:
        """No checklist for this card (sealed and studied question-only): say so instead."""
        self.points = ()
        self.query_one("#points-title", Static).update(Text(message, style="italic"))
        self.query_one("#points-lines", Vertical).remove_children()
        self.query_one("#points-hint", Static).update("")
        self.display = True

    def _line(self, index: int, ticked: bool) -> Table:
        key = self.keys[index] if index < len(self.keys) and index < self.checkable else " "
        if self.keys:
            box = TICKED if ticked else UNTICKED
            prefix = Text(f"{key} {box if index < self.checkable else ' '} ", style="bold")
        else:
            prefix = Text("  • ")
        return point_line(prefix, self.points[index])
