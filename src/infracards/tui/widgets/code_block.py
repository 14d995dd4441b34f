"""Code blocks that wrap like an editor: a continuation mark and a hanging indent.

Rich wraps a code line that is wider than the view back to column 0, where the tail of a
comment reads like a statement of its own; some 540 lines of the deck's code are wider than
the 74 cells an 80-column terminal leaves the answer. Here each line is highlighted as a
whole (so a string or comment keeps its colour across the break), then cut: after a space,
or between two CJK characters, where one falls in the line's last third; else after a ``/``
(a long URL breaks between its path segments, not inside one); else at the edge. Every
continuation starts at the line's own indent with ``↪``, so nothing that is not code starts
a line, and copying the block shows where the breaks were.
"""

from __future__ import annotations

import unicodedata

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock
from rich.padding import Padding
from rich.syntax import Syntax
from rich.text import Text

# Imported when an answer is first laid out (``card_view._markdown_class``): Rich's Markdown
# and Pygments take ~22 ms, which the first frame does without.

CONTINUATION = "↪ "
"""Starts every continuation line, after the hanging indent."""


class WrappingCodeBlock(CodeBlock):
    """Rich Markdown's code block, its long lines wrapped by ``wrapped_code``."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        text = wrapped_code(code, self.lexer_name, self.theme, max(1, options.max_width - 2))
        yield Padding(text, pad=1, style=text.style, expand=True)


def wrapped_code(code: str, lexer: str, theme: str, width: int) -> Text:
    """``code`` highlighted, its lines wider than ``width`` cells wrapped with a mark."""
    highlighted = Syntax(code, lexer, theme=theme).highlight(code)
    highlighted.expand_tabs()
    mark = Text(CONTINUATION, style="dim")
    out: list[Text] = []
    for line in highlighted.split("\n", allow_blank=True):
        out += wrap_code_line(line, width, mark=mark)
    joined = Text("\n", style=highlighted.style).join(out)
    joined.no_wrap = True
    return joined


def wrap_code_line(line: Text, width: int, *, mark: Text) -> list[Text]:
    """One code line as lines of at most ``width`` cells: the first as it starts, the others
    at its indent (at most half the width), after ``mark``."""
    plain = line.plain
    indent = len(plain) - len(plain.lstrip(" "))
    hang = min(indent, width // 2)
    pieces: list[Text] = []
    # The first cut comes after some code where the indent leaves room for it: a cut inside
    # an indent wider than the hang left an empty line (an argument aligned under its call's
    # parenthesis, at 60 columns). Where not even one character fits after the indent, the
    # first line is the indent alone: every line must fit.
    first = plain[indent : indent + 1]
    room = indent + (2 if first and _wide(first) else 1) <= width  # the indent and one char
    rest, keep = line, indent if room else hang
    while rest.cell_len > width:
        head, tail = rest.divide([_break_point(rest.plain, width, keep=keep)])
        head.rstrip()
        pieces.append(head)
        spaces = len(tail.plain) - len(tail.plain.lstrip(" "))
        rest = Text(" " * hang) + mark + tail[spaces:]
        keep = hang + mark.cell_len
    pieces.append(rest)
    return pieces


def _break_point(text: str, width: int, *, keep: int) -> int:
    """Where to cut ``text`` (an index) so that the head fits in ``width`` cells; never within
    the first ``keep`` characters (the indent and mark), so every line makes progress."""
    fits = cells = 0
    for index, char in enumerate(text):
        cells += 2 if _wide(char) else 1
        if cells > width:
            break
        fits = index + 1
    fits = max(fits, keep + 1)
    for index in range(fits, max(keep, fits * 2 // 3), -1):  # a space or CJK in the last third
        before, after = text[index - 1], text[index]
        if before == " " or _wide(before) or _wide(after):
            return index
    slash = text.rfind("/", keep, fits - 1)
    return slash + 1 if slash >= keep else fits


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in "WF"
