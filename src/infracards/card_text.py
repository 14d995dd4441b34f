"""What a card's text may hold: one set of rules for a deck file's fields and for the payload of
a sealed answer once it is opened (no YAML here: opening an answer must not import PyYAML)."""

from __future__ import annotations

import re

MAX_TEXT_CHARS = 64 * 1024
MAX_TAGS = 32
MAX_KEY_POINTS = 64
MAX_CALCULATORS = 16
# C0 controls except tab/newline, DEL and C1 controls: ESC would let a deck drive the terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def is_unicode(text: str) -> bool:
    """Whether UTF-8 can hold ``text``: JSON can escape a lone surrogate (``\\ud800``), which no
    store, file or terminal can."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text_problem(value: object) -> str | None:
    """Why ``value`` cannot be a card's text (an answer, a prompt, a key point), or None."""
    if type(value) is not str:
        return "expected text (quote it if it looks like a number)"
    if not value or value.isspace():
        return "must not be empty"
    if len(value) > MAX_TEXT_CHARS:
        return f"longer than {MAX_TEXT_CHARS} characters"
    if _CONTROL.search(value):
        return "contains control characters (such as ESC)"
    return None
