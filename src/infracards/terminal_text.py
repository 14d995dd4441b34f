"""Text on its way to a terminal: one function makes any text safe to show there.

Whatever its origin (an argument echoed in an error, a field of an imported file, deck text,
a row of the database however it got there), text reaches the terminal through
``terminal_safe``: control characters, escape sequences, format characters (bidi overrides
and the like), line separators and lone surrogates (undecodable bytes of an argument) are shown
visibly escaped (``\\x1b``, ``\\u202e``, ``\\xff``), never sent raw; a card key is shown
masked (``GTA13-…-K0PVN``); a value echoed back is cut at ``ECHO_LIMIT`` characters. The CLI,
the app and the reports all use it. Pure: no I/O, no Textual.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from infracards.key_checksum import ALPHABET, LOOKALIKES, check_symbols_match

ECHO_LIMIT = 200
"""Characters of an echoed value (a path, an id, a field of a file) shown in a message."""

# Unicode categories Cc (C0, DEL, C1), Cf (format: soft hyphen, bidi controls, zero-width
# characters, tags), Cs (surrogates) and Zl/Zp (line and paragraph separators), as of
# Unicode 14 plus the format characters Unicode 15 added (U+13439..U+1343F). A test checks the
# class against this Python's own `unicodedata`.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]"
)
_UNSAFE_IN_BLOCK = re.compile(_UNSAFE.pattern.replace("\x00-\x1f", "\x00-\x08\x0b-\x1f"))
"""The same class less tab and newline, which multi-line text (an answer) keeps."""
_ASCII_UNSAFE_IN_BLOCK = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

# A card key as typed: 30 symbols (ASCII or full-width letters and digits), with separators
# (spaces, dashes, underscores) anywhere between them, starting where no symbol precedes.
_SYMBOL = "0-9A-Za-z\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"
_SEPARATORS = "\\s_\\-\u2010-\u2015\u2212\uff0d"
# Patterns, compiled by `re` (and cached) on first use: most commands never look for a key,
# and compiling these three at import cost every command ~1 ms.
_KEY_CANDIDATE = f"(?<![{_SYMBOL}])(?=((?:[{_SYMBOL}][{_SEPARATORS}]*){{29}}[{_SYMBOL}]))"
_KEY_GROUPS = f"[{_SYMBOL}]{{5}}(?:[\\s\\-][{_SYMBOL}]{{5}}){{5}}"
_SYMBOL_CHAR = f"[{_SYMBOL}]"
_KEY_SYMBOLS = 30
_KEY_SPAN = 256
"""More than any typed card key is long (30 symbols and their separators)."""


def terminal_safe(
    text: str,
    *,
    one_line: bool = False,
    limit: int | None = None,
    mask: KeyMask | None = None,
    find_keys: bool = True,
) -> str:
    """``text`` made safe to print: nothing in it can drive a terminal or reveal a card key.

    Card keys are masked: those ``mask`` knows, and (``find_keys``) any other found in the
    text. Then, with ``limit``, at most that many characters are kept, then "…". Last, unsafe
    characters are escaped; with ``one_line``, tab and newline too.
    """
    if limit is not None and len(text) > limit + _KEY_SPAN:
        text = text[: limit + _KEY_SPAN]  # a key across the cut is still seen whole
    if mask is not None:
        text = mask.apply(text)
    if find_keys:
        text = mask_card_keys(text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    if not _has_unsafe(text, one_line=one_line):
        return text
    return (_UNSAFE if one_line else _UNSAFE_IN_BLOCK).sub(_escape, text)


def json_safe(encoded: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with every unsafe character written
    as a ``\\uXXXX`` escape: the same JSON value, safe on a terminal."""
    if encoded.isascii():
        if "\x7f" not in encoded:  # JSON escapes every other ASCII control character itself
            return encoded
    elif _UNSAFE_IN_BLOCK.search(encoded) is None:
        return encoded
    return _UNSAFE_IN_BLOCK.sub(_json_escape, encoded)


def _has_unsafe(text: str, *, one_line: bool) -> bool:
    """Cheap on the common case (printable ASCII); the full class only for other text."""
    if text.isascii():
        if one_line:
            return not text.isprintable()
        return _ASCII_UNSAFE_IN_BLOCK.search(text) is not None
    return (_UNSAFE if one_line else _UNSAFE_IN_BLOCK).search(text) is not None


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}" if ord(match.group()) <= 0xFFFF else _astral(match)


def _astral(match: re.Match[str]) -> str:
    """A character beyond the BMP as JSON writes it: a UTF-16 surrogate pair of escapes."""
    code = ord(match.group()) - 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def echo(value: object, *, limit: int = ECHO_LIMIT) -> str:
    """A value from outside (an argument, a path, a field of a file) as one safe, short line."""
    return terminal_safe(str(value), one_line=True, limit=limit)


def quoted(value: object, *, limit: int = ECHO_LIMIT) -> str:
    """``echo`` in quotes, for values that need them to be told apart from the message."""
    return f"'{echo(value, limit=limit)}'"


def message_line(message: str, *, mask: KeyMask | None = None, limit: int = 4 * ECHO_LIMIT) -> str:
    """A message as one safe line; an overlong one (an echoed value too long to cut where it
    was quoted) loses its middle, keeping its start and the fix at its end."""
    line = terminal_safe(message, one_line=True, mask=mask)
    if len(line) <= limit:
        return line
    keep = limit // 2
    return f"{line[:keep]} … {line[-keep:]}"


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of an argument (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


# --- card keys -------------------------------------------------------------------------------


def find_card_keys(text: str) -> list[str]:
    """Every spelling of a card key in ``text``: 30 symbols whose check symbols match (any case,
    separators, full-width), or the grouped shape ``XXXXX-XXXXX-…`` even with a typo."""
    if len(text) < _KEY_SYMBOLS:
        return []
    found = []
    for match in re.finditer(_KEY_CANDIDATE, text):
        spelling = match.group(1)
        if re.fullmatch(_KEY_GROUPS, spelling) or _checks(spelling):
            found.append(spelling)
    return found


class KeyMask:
    """Card keys typed on a command line, as the output may echo them: whole, or a piece of
    one that the shell split into several arguments (``lock GTA13 PAJRP …``)."""

    def __init__(self, arguments: Sequence[str]) -> None:
        joined = " ".join(arguments)
        pieces: dict[str, str] = {}
        for spelling in {
            *find_card_keys(joined),
            *(k for a in arguments for k in find_card_keys(a)),
        }:
            pieces[spelling] = masked_key(spelling)
            if spelling in joined and spelling not in arguments:
                for argument in spelling.split():
                    pieces.setdefault(argument, "…")
        self._masked = pieces
        ordered = sorted(pieces, key=len, reverse=True)  # the whole key before its pieces
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def apply(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda match: self._masked[match.group()], text)


def mask_card_keys(text: str) -> str:
    """``text`` with every card key in it masked."""
    for spelling in find_card_keys(text):
        text = text.replace(spelling, masked_key(spelling))
    return text


def masked_key(spelling: str) -> str:
    """First and last five symbols only (``GTA13-…-K0PVN``), as messages show a card key."""
    symbols = re.findall(_SYMBOL_CHAR, spelling)
    if len(symbols) < 10:
        return "…"
    return f"{''.join(symbols[:5])}-…-{''.join(symbols[-5:])}"


def _checks(spelling: str) -> bool:
    """Whether the 30 symbols of ``spelling`` are a card key (its check symbols match)."""
    values = []
    for char in re.findall(_SYMBOL_CHAR, spelling):
        normal = unicodedata.normalize("NFKC", char).upper()
        value = ALPHABET.find(LOOKALIKES.get(normal, normal))
        if value < 0:
            return False
        values.append(value)
    return check_symbols_match(values)
