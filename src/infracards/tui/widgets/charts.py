"""Terminal charts for the stats screen: a review calendar, vertical bars and horizontal bars.

Each chart takes plain values (never a session) and lays itself out for its current width, so
it stays readable from 80×24 up. Colours come from component classes styled in
``infracards.tcss`` with theme variables, so they follow the theme. Lines are built once per
width as strips (Textual's line API): drawn through ``render()`` and Rich ``Text`` instead, the
charts made the stats screen's first frame about 60 ms slower.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

_EIGHTHS = " ▁▂▃▄▅▆▇█"


class Chart(Widget):
    """A widget drawn from strips that are laid out once per width and then reused."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._strips: tuple[int, list[Strip]] | None = None

    def lay_out(self, width: int) -> list[list[Segment]]:
        """The chart's lines for ``width`` cells (subclasses draw here)."""
        raise NotImplementedError

    def render_strips(self, width: int) -> list[Strip]:
        """The chart's lines at ``width``, cached until the data or the styles change."""
        if self._strips is None or self._strips[0] != width:
            self._strips = (width, [Strip(line) for line in self.lay_out(width)])
        return self._strips[1]

    def text_lines(self) -> list[str]:
        """The chart as plain text at its current width (for tests and debugging)."""
        return [strip.text.rstrip() for strip in self.render_strips(self.size.width)]

    def redraw(self) -> None:
        self._strips = None
        self.refresh(layout=True)

    def notify_style_update(self) -> None:
        self._strips = None  # a new theme: colours are baked into the strips
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        strips = self.render_strips(width)
        if y >= len(strips):
            return Strip.blank(width, self.rich_style)
        return strips[y].crop_extend(0, width, None).apply_style(self.rich_style)

    def component_style(self, name: str) -> Style:
        return self.get_component_rich_style(name)


class Heatmap(Chart):
    """Reviews per day like Anki's and GitHub's: rows Mon–Sun, one column per week, today last.

    As many weeks as fit are drawn (a year needs 57 cells); the screen decides the shades.
    """

    COMPONENT_CLASSES = {
        "heatmap--label",
        "heatmap--empty",
        "heatmap--level-1",
        "heatmap--level-2",
        "heatmap--level-3",
        "heatmap--level-4",
    }
    DAY_LABELS = ("Mon", "", "Wed", "", "Fri", "", "Sun")
    LABEL_CELLS = 4
    MAX_WEEKS = 53
    SQUARE = "■"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.levels: Mapping[date, int] = {}
        self.first: date | None = None
        self.last: date | None = None

    def show(self, levels: Mapping[date, int], *, first: date, last: date) -> None:
        """Draw the days ``first``..``last``; ``levels`` maps busy days to shades 1–4."""
        self.levels, self.first, self.last = levels, first, last
        self.redraw()

    def weeks_for(self, width: int) -> int:
        """Week columns that fit in ``width`` cells beside the day labels."""
        return max(1, min(self.MAX_WEEKS, width - self.LABEL_CELLS))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 9 if self.last is not None else 0  # month labels, seven days, legend

    def lay_out(self, width: int) -> list[list[Segment]]:
        if self.first is None or self.last is None:
            return []
        weeks = self.weeks_for(width)
        start = self.last - timedelta(days=self.last.weekday() + 7 * (weeks - 1))
        mondays = [start + timedelta(weeks=week) for week in range(weeks)]
        label = self.component_style("heatmap--label")
        shades = [
            Segment(self.SQUARE, self.component_style(name))
            for name in ("heatmap--empty", *(f"heatmap--level-{n}" for n in range(1, 5)))
        ]
        blank = Segment(" ")
        months = ""
        for week, monday in enumerate(mondays):
            new_month = week == 0 or monday.month != mondays[week - 1].month
            if new_month and len(months) <= week and week + 3 <= weeks:
                months = months.ljust(week) + f"{monday:%b}"
        lines = [[Segment(" " * self.LABEL_CELLS + months, label)]]
        for weekday, name in enumerate(self.DAY_LABELS):
            line = [Segment(f"{name:<{self.LABEL_CELLS}}", label)]
            for monday in mondays:
                day = monday + timedelta(days=weekday)
                inside = self.first <= day <= self.last
                line.append(shades[self.levels.get(day, 0)] if inside else blank)
            lines.append(line)
        legend = [Segment(" " * self.LABEL_CELLS + "less ", label), *shades]
        lines.append([*legend, Segment(" more", label)])
        return lines


class BarChart(Chart):
    """Vertical bars (one per value) over a baseline, the largest value on the axis.

    Bars are as wide as the width allows (1–3 cells) and drawn in eighths of a cell, so
    small counts stay visible; a label is written under every ``label_every``-th bar.
    """

    COMPONENT_CLASSES = {"bar-chart--bar", "bar-chart--axis"}
    ROWS = 8

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.bars: tuple[tuple[str, int], ...] = ()
        self.label_every = 5

    def show(self, bars: Sequence[tuple[str, int]], *, label_every: int = 5) -> None:
        """Draw one bar per (label, value)."""
        self.bars, self.label_every = tuple(bars), label_every
        self.redraw()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.ROWS + 2 if self.bars else 0  # bars, baseline, labels

    def lay_out(self, width: int) -> list[list[Segment]]:
        if not self.bars:
            return []
        values = [value for _, value in self.bars]
        peak = max(values)
        digits = len(str(peak))
        slot = max(1, min(4, (width - digits - 2) // len(values)))
        cells = max(1, slot - 1)
        gap = Segment(" " * (slot - cells))
        heights = [
            max(1, round(value * self.ROWS * 8 / peak)) if value > 0 else 0 for value in values
        ]
        bar = self.component_style("bar-chart--bar")
        axis = self.component_style("bar-chart--axis")
        lines = []
        for row in range(self.ROWS, 0, -1):
            tick = f"{peak:>{digits}} ┤" if row == self.ROWS else " " * digits + " │"
            line = [Segment(tick, axis)]
            for height in heights:
                fill = min(8, max(0, height - (row - 1) * 8))
                line += [Segment(_EIGHTHS[fill] * cells, bar), gap]
            lines.append(line)
        lines.append([Segment(f"{0:>{digits}} └" + "─" * (slot * len(values)), axis)])
        labels = " " * (digits + 2)
        for index in range(0, len(values), self.label_every):
            at = digits + 2 + index * slot
            if len(labels) <= at:
                labels = labels.ljust(at) + self.bars[index][0] + " "
        lines.append([Segment(labels.rstrip(), axis)])
        return lines


@dataclass(frozen=True, slots=True)
class BarRow:
    """One horizontal bar: a label, a share from 0 to 1 (None: nothing to show) and details."""

    label: str
    share: float | None
    detail: str


class RatioBars(Chart):
    """Horizontal bars, one per row, for shares such as retention; details on the right."""

    COMPONENT_CLASSES = {"ratio-bars--label", "ratio-bars--filled", "ratio-bars--empty"}
    LABEL_CELLS = 18
    BAR_CELLS = (6, 30)
    """Bars get 6 to 30 cells, fewer only when the labels are down to 8."""

    def __init__(self, *, empty: str = "Nothing yet.", id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: tuple[BarRow, ...] = ()
        self.empty = empty

    def show(self, rows: Iterable[BarRow]) -> None:
        self.rows = tuple(rows)
        self.redraw()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self.rows))

    def lay_out(self, width: int) -> list[list[Segment]]:
        label = self.component_style("ratio-bars--label")
        if not self.rows:
            return [[Segment(self.empty, label)]]
        # Narrow terminals shorten the labels first, then the bars; the details always show.
        label_cells = min(self.LABEL_CELLS, max(cell_len(row.label) for row in self.rows))
        room = width - max(cell_len(row.detail) for row in self.rows) - 2
        low, high = self.BAR_CELLS
        label_cells = max(min(label_cells, 8), min(label_cells, room - low))
        cells = max(0, min(high, room - label_cells))
        filled = self.component_style("ratio-bars--filled")
        empty = self.component_style("ratio-bars--empty")
        lines = []
        for row in self.rows:
            name = row.label
            if cell_len(name) > label_cells:
                name = set_cell_size(name, label_cells - 1) + "…"
            line = [Segment(set_cell_size(name, label_cells) + " ", label)]
            if row.share is None:
                line.append(Segment(" " * cells))
            else:
                full = round(max(0.0, min(1.0, row.share)) * cells)
                line += [Segment("█" * full, filled), Segment("░" * (cells - full), empty)]
            line.append(Segment(f" {row.detail}"))
            lines.append(line)
        return lines
