"""A card key's alphabet and check symbols, pure and below every layer.

The seal layer parses card keys with it, and ``terminal_text`` uses it to find a card key in
any text on its way to a terminal (an error message of the deck loader or the calculators
too), which must not make those layers depend on the seal layer.

The check symbols are a GF(32) code (modulus x⁵+x²+1, α=2) over the 28 data symbols.
"""

from __future__ import annotations

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford base32."""
KID_SYMBOLS = 4
SECRET_SYMBOLS = 24
KEY_SYMBOLS = KID_SYMBOLS + SECRET_SYMBOLS + 2
LOOKALIKES = {"O": "0", "I": "1", "L": "1"}
"""Letters read as the digit they look like."""


def _build_exp() -> tuple[int, ...]:
    powers, x = [], 1
    for _ in range(31):
        powers.append(x)
        x <<= 1
        if x & 0b100000:
            x ^= 0b100101  # x⁵ + x² + 1
    return tuple(powers)


_EXP = _build_exp()
_LOG = {value: power for power, value in enumerate(_EXP)}


def check_symbols(data: list[int]) -> tuple[int, int]:
    """The two check symbols of 28 data symbol values: c1 = Σ dᵢ·α^(i+1); c2 = Σ eᵢ·α^(2(i+1))
    over e = d ‖ c1."""
    c1 = 0
    for i, d in enumerate(data):
        c1 ^= _mul_alpha(d, i + 1)
    c2 = 0
    for i, e in enumerate([*data, c1]):
        c2 ^= _mul_alpha(e, 2 * (i + 1))
    return c1, c2


def _mul_alpha(value: int, power: int) -> int:
    return 0 if value == 0 else _EXP[(_LOG[value] + power) % 31]


def check_symbols_match(values: list[int]) -> bool:
    """Whether 30 symbol values form a card key (its two check symbols match the rest)."""
    return len(values) == KEY_SYMBOLS and check_symbols(values[:-2]) == tuple(values[-2:])
