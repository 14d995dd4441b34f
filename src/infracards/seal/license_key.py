"""Card keys (卡密): 30 Crockford base32 symbols = 4 kid + 24 secret + 2 check symbols.

The check symbols (``key_checksum``: a GF(32) code) catch every single substitution and
adjacent transposition, so a typo is reported before any file I/O or KDF.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from infracards.errors import KeyFormatError
from infracards.key_checksum import (
    ALPHABET,
    KEY_SYMBOLS,
    KID_SYMBOLS,
    LOOKALIKES,
    SECRET_SYMBOLS,
    check_symbols,
    check_symbols_match,
)

SECRET_BYTES = 15
MAX_KID = 32**KID_SYMBOLS - 1
_MAX_RAW_CHARS = 256
_GROUP = 5
_DROPPED = frozenset("-‐‑‒–—―−_")
_VALUE = {symbol: value for value, symbol in enumerate(ALPHABET)}
_ORDINALS = ("1st", "2nd", "3rd", "4th", "5th")


@dataclass(frozen=True, slots=True)
class LicenseKey:
    """A checksum-valid card key; ``secret`` is the KDF input, never the typed text."""

    kid: int
    secret: bytes = field(repr=False)

    @property
    def compact(self) -> str:
        """The 30 symbols without separators, as stored in the license file."""
        return format_license_key(self.kid, self.secret).replace("-", "")

    @property
    def formatted(self) -> str:
        """``XXXXX-XXXXX-XXXXX-XXXXX-XXXXX-XXXXX`` for display to the key's owner."""
        return format_license_key(self.kid, self.secret)

    @property
    def masked(self) -> str:
        """First and last group only (``7K3QZ-…-F1JKS``), safe for error messages and logs."""
        groups = self.formatted.split("-")
        return f"{groups[0]}-…-{groups[-1]}"


def kid_text(kid: int) -> str:
    """The 4-symbol public key id used in key slots and revocation lists."""
    if not 0 <= kid <= MAX_KID:
        raise ValueError(f"kid must be 0..{MAX_KID}, got {kid}")
    return _int_to_symbols(kid, KID_SYMBOLS)


def parse_kid_text(text: str) -> int:
    """Read a canonical kid (exactly 4 alphabet symbols, no normalization); ValueError otherwise."""
    if len(text) != KID_SYMBOLS or any(symbol not in _VALUE for symbol in text):
        raise ValueError(f"{text!r} is not a key id (4 symbols of {ALPHABET})")
    return _symbols_to_int(text)


def format_license_key(kid: int, secret: bytes) -> str:
    """Build the displayed card key for ``kid`` and a 15-byte secret, check symbols included."""
    if len(secret) != SECRET_BYTES:
        raise ValueError(f"card secret must be {SECRET_BYTES} bytes, got {len(secret)}")
    data = kid_text(kid) + _int_to_symbols(int.from_bytes(secret, "big"), SECRET_SYMBOLS)
    symbols = data + "".join(ALPHABET[c] for c in check_symbols([_VALUE[s] for s in data]))
    return "-".join(symbols[i : i + _GROUP] for i in range(0, KEY_SYMBOLS, _GROUP))


def parse_license_key(text: str) -> LicenseKey:
    """Normalize what a learner typed and verify the check symbols; no I/O, no KDF."""
    values = key_symbols(text)
    if len(values) != KEY_SYMBOLS:
        raise KeyFormatError(
            f"card key has {len(values)} symbols; it needs {KEY_SYMBOLS} (6 groups of 5)"
        )
    if not check_symbols_match(values):
        raise KeyFormatError(_typo_message(values))
    symbols = "".join(ALPHABET[v] for v in values)
    secret = _symbols_to_int(symbols[KID_SYMBOLS:-2]).to_bytes(SECRET_BYTES, "big")
    return LicenseKey(kid=_symbols_to_int(symbols[:KID_SYMBOLS]), secret=secret)


def key_symbols(text: str) -> list[int]:
    """Symbol values of what was typed, separators dropped; raises on a character not allowed."""
    # NFKC per typed character (not per string) so an error names exactly what was typed
    # and where; no composition yields ASCII, so both ways accept the same keys.
    if len(text) > _MAX_RAW_CHARS:
        raise KeyFormatError(
            f"card key input is {len(text)} characters long; a card key is 30 symbols "
            f"(at most {_MAX_RAW_CHARS} characters with separators)"
        )
    values = []
    for position, typed in enumerate(text, start=1):
        for char in unicodedata.normalize("NFKC", typed).upper():
            if char.isspace() or char in _DROPPED:
                continue
            char = LOOKALIKES.get(char, char)
            if char not in _VALUE:
                raise KeyFormatError(
                    f"card key character {position} {_describe(typed)} is not allowed; "
                    "card keys use only 0-9 and A-Z except U"
                )
            values.append(_VALUE[char])
    return values


def _describe(char: str) -> str:
    name = unicodedata.name(char, "unnamed character")
    return f"{char!r} (U+{ord(char):04X} {name})"


def _typo_message(values: list[int]) -> str:
    """Name the symbol(s) whose change or swap would make the key valid, when few do."""
    hints = []
    for i in range(KEY_SYMBOLS):
        if any(
            check_symbols_match([*values[:i], v, *values[i + 1 :]])
            for v in range(32)
            if v != values[i]
        ):
            hints.append(
                f"symbol {i + 1} ({_ORDINALS[i % _GROUP]} of group {i // _GROUP + 1}) looks wrong"
            )
    for i in range(KEY_SYMBOLS - 1):
        swapped = [*values[:i], values[i + 1], values[i], *values[i + 2 :]]
        if values[i] != values[i + 1] and check_symbols_match(swapped):
            hints.append(f"symbols {i + 1} and {i + 2} look swapped")
    if 0 < len(hints) <= 3:
        return f"card key has a typo: {', or '.join(hints)}; check it against your card"
    return "card key has a typo (check symbols do not match); check every group against your card"


def _int_to_symbols(number: int, width: int) -> str:
    return "".join(ALPHABET[(number >> (5 * (width - 1 - i))) & 31] for i in range(width))


def _symbols_to_int(symbols: str) -> int:
    number = 0
    for symbol in symbols:
        number = number << 5 | _VALUE[symbol]
    return number
