"""Line breaks between CJK characters in Rich's and Textual's word wrappers.

Both wrappers break only at whitespace, so a Chinese clause without spaces is moved to the
next line whole, leaving ragged gaps (or a lone "1. **粗体**" line before a long sentence).
Unicode line breaking (UAX #14) allows a break between any two ideographs, except before
closing punctuation (，。）) and after opening punctuation (（「). Neither library offers a
hook: each finds words with one module-level regex, so we swap in patterns that also treat
every CJK character as a word. For text without CJK characters they split exactly as before.
"""

from __future__ import annotations

import re

import rich._wrap
import textual._wrap

# CJK radicals and punctuation, kana, bopomofo, ideographs (incl. extension A), Hangul.
CJK = (
    "\u2e80-\u2fff\u3040-\u30ff\u3100-\u312f\u3190-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
)
CLOSING = "，。、；：！？）」』】》〉”’…%％,.;:!?)\\]"
OPENING = "（「『【《〈“‘(\\["
_WORD = rf"(?:[{OPENING}]*[{CJK}][{CLOSING}]*|[^\s{CJK}]+?(?=[{OPENING}]*[{CJK}]|\s|$))"

RICH_WORD = re.compile(rf"\s*{_WORD}\s*")
"""Rich's ``re_word`` (``\\s*\\S+\\s*``) with CJK break opportunities."""
TEXTUAL_CHUNK = re.compile(rf"{_WORD}\s*|\s+")
"""Textual's ``re_chunk`` (``\\S+\\s*|\\s+``) with CJK break opportunities."""


def enable_cjk_line_breaks() -> None:
    """Install the patterns (idempotent; affects wrapping only, never the text)."""
    rich._wrap.re_word = RICH_WORD
    textual._wrap.re_chunk = TEXTUAL_CHUNK
