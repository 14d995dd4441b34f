"""The key footer: one widget that draws the keys a screen offers now, on one line."""

from __future__ import annotations

from dataclasses import dataclass, replace
from re import fullmatch
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widget import Widget

COMPACT_BELOW = 100
"""Footer widths under which the keys drop their padding: at 60 columns Home's last keys
(``? Keys``) went out of sight."""
KEYS_HELP = "toggle_keys"
"""The action of ``? Keys`` (the app's), which lists every key: it is never left out."""
PALETTE_EDGE = "▏"
"""Between the keys and the command palette's, drawn at the right edge (as Textual's)."""


@dataclass(frozen=True, slots=True)
class FooterEntry:
    """A key the footer draws: what to press (``key``, as ``simulate_key`` takes it), how it
    is shown, what it does, and the tooltip a pointer over it shows."""

    key: str
    display: str
    description: str
    tooltip: str
    keeps_place: bool
    """``? Keys`` and the palette: left in however narrow the footer is."""
    at_right: bool = False
    """The command palette's, drawn at the right edge."""

    @property
    def stands_for_many(self) -> bool:
        """Drawn as a range (``0-5 Grade``, ``a-i Tick``): a click cannot tell which."""
        return fullmatch(r"\w-\w", self.display) is not None


class KeysFooter(Widget):
    """The keys the screen offers now, as one line: enabled keys only, packed when narrow,
    those that still do not fit left out from the right (never ``? Keys``, which lists them
    all), the command palette's at the right edge. A click on a key presses it (not on a
    range such as ``0-5 Grade``: the grade bar has a button per grade).

    Textual's ``Footer`` is a widget per key, rebuilt whenever the screen's bindings change.
    Mounting those ~10 widgets was a third of opening the mock screen at 100,000 cards (45 of
    124 ms), and restyling them part of every grade. Here a change of keys redraws one line:
    no widget is mounted, styled or laid out again.
    """

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"keys-footer--key", "keys-footer--description", "keys-footer--hover"}
    DEFAULT_CSS = """
    KeysFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .keys-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .keys-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .keys-footer--hover {
            background: $block-hover-background;
        }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.entries: tuple[FooterEntry, ...] | None = None
        """The keys offered, in the screen's order (None until first read)."""
        self._spans: list[tuple[int, int, FooterEntry]] = []
        """Where each key was drawn last: start and end cell."""
        self._hover: FooterEntry | None = None

    @property
    def shown_keys(self) -> tuple[str, ...]:
        """The keys drawn now (what the learner sees), in order."""
        return tuple(entry.key for _start, _end, entry in self._spans)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Any) -> None:
        """Redraw when the keys offered change. A screen under another loses its focus, so
        its keys change, but nobody sees them; its resume refreshes the bindings again."""
        if not screen.app.app_focus or not self.is_attached:
            return
        if screen is not self.screen or screen is not screen.app.screen:
            return
        entries = self._read_entries(screen)
        if entries != self.entries:
            self.entries = entries
            self.refresh()

    def _read_entries(self, screen: Any) -> tuple[FooterEntry, ...]:
        app = self.app
        offered = screen.active_bindings
        entries: list[FooterEntry] = []
        actions: set[str] = set()
        for key, (_node, binding, enabled, tooltip) in offered.items():
            if not binding.show or not enabled or binding.action in actions:
                continue  # one key per action, the first bound (as Textual's footer)
            actions.add(binding.action)
            entries.append(
                _entry(app, key, binding, tooltip, keeps_place=binding.action == KEYS_HELP)
            )
        # The command palette's key (a hidden binding) goes to the right edge.
        palette = offered.get(app.COMMAND_PALETTE_BINDING) if app.ENABLE_COMMAND_PALETTE else None
        if palette is not None and palette.enabled:
            entry = _entry(
                app, palette.binding.key, palette.binding, palette.tooltip, keeps_place=True
            )
            entries.append(replace(entry, at_right=True))
        return tuple(entries)

    def render(self) -> Text:
        if self.entries is None:
            self.entries = self._read_entries(self.screen)
        width = self.size.width
        compact = width < COMPACT_BELOW
        keys = [entry for entry in self.entries if not entry.at_right]
        right = [entry for entry in self.entries if entry.at_right]
        room = width - sum(_cells(entry, compact) for entry in keys if entry.keeps_place)
        room -= _right_cells(right)
        fitted: list[FooterEntry] = []
        fits = True
        for entry in keys:
            if not entry.keeps_place:
                room -= _cells(entry, compact)
                fits = fits and room >= 0
                if not fits:
                    continue
            fitted.append(entry)
        line = Text(no_wrap=True, overflow="crop", end="")
        self._spans = []
        for entry in fitted:
            self._draw(line, entry, compact)
        if right:
            line.append(" " * max(0, width - line.cell_len - _right_cells(right)))
            line.append(PALETTE_EDGE, self.rich_style + Style(dim=True))
            for entry in right:
                self._draw(line, entry, compact=True)  # packed at any width, as Textual's
        return line

    def _draw(self, line: Text, entry: FooterEntry, compact: bool) -> None:
        key_style = self.get_component_rich_style("keys-footer--key")
        description_style = self.get_component_rich_style("keys-footer--description")
        if entry == self._hover:
            hover = self.get_component_rich_style("keys-footer--hover")
            key_style, description_style = key_style + hover, description_style + hover
        start = line.cell_len
        if compact:
            line.append(entry.display, key_style)
            line.append(f" {entry.description}" if entry.description else "", description_style)
            line.append(" ")
        else:
            line.append(f" {entry.display} ", key_style)
            line.append(f"{entry.description} " if entry.description else "", description_style)
        self._spans.append((start, line.cell_len, entry))

    def _entry_at(self, x: int) -> FooterEntry | None:
        return next((entry for start, end, entry in self._spans if start <= x < end), None)

    def on_click(self, event: events.Click) -> None:
        entry = self._entry_at(event.x)
        if entry is None:
            return
        event.stop()
        if entry.stands_for_many:  # pressing its first key (grade 0, say) would be a guess
            self.app.bell()
        else:
            self.app.simulate_key(entry.key)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        entry = self._entry_at(event.x)
        if entry != self._hover:
            self._hover = entry
            self.tooltip = entry.tooltip if entry is not None else None
            self.refresh()

    def on_leave(self, _event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()


def _entry(app: Any, key: str, binding: Binding, tooltip: str, *, keeps_place: bool) -> FooterEntry:
    return FooterEntry(
        key=key,
        display=app.get_key_display(binding),
        description=binding.description,
        tooltip=tooltip or binding.tooltip or binding.description,
        keeps_place=keeps_place,
    )


def _cells(entry: FooterEntry, compact: bool) -> int:
    """The cells a key takes: its key, its description, and the space around them."""
    description = cell_len(entry.description)
    if compact:
        return cell_len(entry.display) + (description + 1 if description else 0) + 1
    return cell_len(entry.display) + 2 + (description + 1 if description else 0)


def _right_cells(entries: list[FooterEntry]) -> int:
    """The cells the keys at the right edge take, with the edge before them."""
    if not entries:
        return 0
    return sum(_cells(entry, compact=True) for entry in entries) + cell_len(PALETTE_EDGE)
