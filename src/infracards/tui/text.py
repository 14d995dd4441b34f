"""Text from a deck, the store or a file, as the app draws it: safe and literal.

Everything such text holds goes through ``terminal_safe`` first (control characters and escape
sequences shown escaped, card keys masked), then reaches a widget as literal text: never as
Rich or Textual markup, which would read ``[link=…]`` in a prompt as a command.
"""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text

from infracards.terminal_text import terminal_safe


def literal(text: str, *, one_line: bool = False, style: str = "") -> Text:
    """Deck or store text for a ``Static`` or ``Label``."""
    return Text(terminal_safe(text, one_line=one_line), style=style)


CELL_PADDING = 2
"""A ``DataTable`` cell's padding, both sides together: tables that fit their columns to the
screen count it."""


def cell(text: str) -> str:
    """One line of deck or store text for a ``DataTable`` cell (which reads ``str`` as markup)."""
    return escape(terminal_safe(text, one_line=True))


def notice(text: str) -> str:
    """A message for ``notify(..., markup=False)``: errors quote paths and ids from outside."""
    return terminal_safe(text, one_line=True)
