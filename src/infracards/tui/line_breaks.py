"""Line breaks between CJK characters in Rich's and Textual's word wrappers.

Both wrappers break only at whitespace, so a Chinese clause without spaces is moved to the
next line whole, leaving ragged gaps (or a lone "1. **粗体**" line before a long sentence).
Unicode line breaking (UAX #14) allows a break between any two ideographs, except before
closing punctuation (，。）) and after opening punctuation (（「). Neither library offers a
hook: each finds words with one module-level regex, so we swap in patterns that also treat
every CJK character as a word. For text without CJK characters they split exactly as before.

Compiling a pattern with these character classes takes ~2 ms (``re`` expands every range), so
each is compiled when its library first wraps a line: the first frame needs only Rich's.

A word wider than the whole line (a long URL in a reference) is cut at the edge by Rich; it
is cut after its last ``/`` that fits instead (else its last ``-``), so a URL breaks between
its path segments (or the words of one), never inside a word.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from types import ModuleType

import rich._wrap
import textual._wrap
from rich.cells import chop_cells

# CJK radicals and punctuation, kana, bopomofo, ideographs (incl. extension A), Hangul.
CJK = (
    "\u2e80-\u2fff\u3040-\u30ff\u3100-\u312f\u3190-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
)
CLOSING = "，。、；：！？）」』】》〉”’…%％,.;:!?)\\]"
OPENING = "（「『【《〈“‘(\\["
# A word: one CJK character with the punctuation that must stay with it, or a run of other
# non-space characters up to the next CJK character (the first alternative has already taken a
# CJK character at the start, so the run cannot begin with one).
_WORD = rf"(?:[{OPENING}]*[{CJK}][{CLOSING}]*|\S+?(?=[{OPENING}]*[{CJK}]|\s|$))"


@cache
def rich_word() -> re.Pattern[str]:
    """Rich's ``re_word`` (``\\s*\\S+\\s*``) with CJK break opportunities."""
    return re.compile(rf"\s*{_WORD}\s*")


@cache
def textual_chunk() -> re.Pattern[str]:
    """Textual's ``re_chunk`` (``\\S+\\s*|\\s+``) with CJK break opportunities."""
    return re.compile(rf"{_WORD}\s*|\s+")


class _CompiledOnFirstMatch:
    """Stands in a library's pattern slot until its first ``match``, then hands over the slot."""

    def __init__(self, module: ModuleType, name: str, compile: Callable[[], re.Pattern[str]]):
        self.module, self.name, self.compile = module, name, compile

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        pattern = self.compile()
        setattr(self.module, self.name, pattern)
        return pattern.match(text, pos)


def chop_between_segments(text: str, width: int, unicode_version: str = "auto") -> list[str]:
    """Rich's ``chop_cells`` (a word too wide for any line, in pieces of ``width`` cells), each
    piece ending after its last ``/``, else its last ``-``, found past its first third."""
    pieces: list[str] = []
    word = text
    while True:
        head = chop_cells(word, width)[0]
        if len(head) == len(word):
            return [*pieces, word]
        cut = next(
            (at + 1 for at in (head.rfind("/"), head.rfind("-")) if at >= len(head) // 3),
            len(head),
        )
        pieces.append(word[:cut])
        word = word[cut:]


def enable_cjk_line_breaks() -> None:
    """Install the patterns (idempotent; affects wrapping only, never the text)."""
    # The stand-in offers the one method the libraries call on these patterns (``match``).
    rich._wrap.re_word = _CompiledOnFirstMatch(rich._wrap, "re_word", rich_word)  # type: ignore[assignment]
    textual._wrap.re_chunk = _CompiledOnFirstMatch(  # type: ignore[assignment]
        textual._wrap, "re_chunk", textual_chunk
    )
    rich._wrap.chop_cells = chop_between_segments
