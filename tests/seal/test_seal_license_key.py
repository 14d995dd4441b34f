"""Card key format (sealing.md §1.3) and test rows 1, 3, 4, 5, 7."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infracards.errors import KeyFormatError
from infracards.seal import (
    IssuedKey,
    SealedRelease,
    format_license_key,
    kid_text,
    parse_license_key,
)
from infracards.seal.license_key import ALPHABET, MAX_KID

Unlock = Callable[..., bytes]

kids = st.integers(min_value=0, max_value=MAX_KID)
secrets_ = st.binary(min_size=15, max_size=15)
KEY = format_license_key(0x21, bytes.fromhex("0842108421084210842108421084ff"))


def test_key_layout_is_six_groups_of_five() -> None:
    assert re.fullmatch(r"([0-9A-HJKMNP-TV-Z]{5}-){5}[0-9A-HJKMNP-TV-Z]{5}", KEY)
    assert KEY.startswith(kid_text(0x21)) and kid_text(0x21) == "0011"


@given(kids, secrets_)
def test_format_then_parse_round_trips(kid: int, secret: bytes) -> None:
    key = parse_license_key(format_license_key(kid, secret))
    assert (key.kid, key.secret) == (kid, secret)
    assert key.formatted == format_license_key(kid, secret)
    assert key.compact == key.formatted.replace("-", "")


def test_masked_key_shows_first_and_last_group_only() -> None:
    key = parse_license_key(KEY)
    assert key.masked == f"{KEY[:5]}-…-{KEY[-5:]}"
    assert KEY[6:29] not in key.masked
    assert key.secret.hex() not in repr(key)


@pytest.mark.parametrize(
    "spelling",
    [
        KEY.lower(),  # row 1: lowercase
        KEY.replace("-", " "),  # with spaces
        KEY.replace("-", ""),  # without dashes
        KEY.replace("-", "_", 2).replace("-", "—", 1).replace("-", "\u2212"),  # mixed separators
        f"  {KEY.lower().replace('-', ' - ')}\n",
        "".join(chr(ord(c) + 0xFEE0) for c in KEY.replace("-", "")),  # full-width from an IME
        KEY.replace("-", "\u3000"),  # ideographic space
        KEY.replace("-", "\uff0d"),  # full-width hyphen
        KEY.replace("-", "\u2010").replace("0", "O", 1),  # row 3: O for 0
        KEY.replace("0", "o").replace("1", "I"),  # o for 0, I for 1
        KEY.replace("1", "l"),  # l for 1
        KEY.replace("1", "L").lower(),
    ],
)
def test_every_accepted_spelling_gives_the_same_key(spelling: str) -> None:
    key = parse_license_key(spelling)
    assert key == parse_license_key(KEY)
    assert key.formatted == KEY


@pytest.mark.parametrize("position", range(30))
@pytest.mark.usefixtures("forbid_argon2")
def test_one_wrong_symbol_anywhere_is_a_typo_before_any_kdf(
    position: int, sealed: SealedRelease, issued: list[IssuedKey], unlock: Unlock
) -> None:
    """Row 4: every position (check symbols too), every wrong symbol; Argon2id patched to fail."""
    symbols = issued[0].license_key.replace("-", "")
    for wrong in ALPHABET.replace(symbols[position], ""):
        typo = symbols[:position] + wrong + symbols[position + 1 :]
        with pytest.raises(KeyFormatError, match="typo") as caught:
            unlock(sealed, typo)
        hint = str(caught.value)
        ordinal = ("1st", "2nd", "3rd", "4th", "5th")[position % 5]
        assert f"symbol {position + 1} ({ordinal} of group {position // 5 + 1})" in hint
        if position not in (26, 28):  # the code cannot tell these two apart; the hint names both
            assert len(re.findall(r"symbol \d+ \(", hint)) == 1


@pytest.mark.usefixtures("forbid_argon2")
def test_the_forbid_argon2_fixture_does_catch_a_kdf(
    sealed: SealedRelease, issued: list[IssuedKey], unlock: Unlock
) -> None:
    """Positive control for row 4: a valid key reaches the (patched) KDF."""
    with pytest.raises(AssertionError, match="Argon2id must not run"):
        unlock(sealed, issued[0].license_key)


@given(kids, secrets_, st.integers(min_value=0, max_value=28))
def test_adjacent_transposition_is_a_checksum_error(kid: int, secret: bytes, i: int) -> None:
    """Row 5, check symbols included."""
    symbols = format_license_key(kid, secret).replace("-", "")
    swapped = symbols[:i] + symbols[i + 1] + symbols[i] + symbols[i + 2 :]
    if swapped != symbols:
        with pytest.raises(KeyFormatError, match="typo"):
            parse_license_key(swapped)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        (KEY.replace("-", "")[:29], "has 29 symbols; it needs 30"),
        (KEY + "0", "has 31 symbols; it needs 30"),
        ("", "has 0 symbols; it needs 30"),
        ("   - -  ", "has 0 symbols; it needs 30"),
        ("7" * 10_000, "10000 characters long; a card key is 30 symbols"),
    ],
)
def test_wrong_length_states_the_counts(typed: str, message: str) -> None:
    """Row 7."""
    with pytest.raises(KeyFormatError, match=message):
        parse_license_key(typed)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        (KEY[:7] + "U" + KEY[8:], r"character 8 'U' \(U\+0055"),
        (KEY[:2] + "*" + KEY[3:], r"character 3 '\*'"),
        (
            KEY[:12] + "\u041a" + KEY[13:],
            r"character 13 'К' \(U\+041A CYRILLIC CAPITAL LETTER KA\)",
        ),
        ("\u00e9" + KEY[1:], r"character 1 'é'"),
    ],
)
def test_a_foreign_character_is_named_with_its_position(typed: str, message: str) -> None:
    with pytest.raises(KeyFormatError, match=message):
        parse_license_key(typed)


def test_format_rejects_a_wrong_sized_secret_or_kid() -> None:
    with pytest.raises(ValueError, match="15 bytes"):
        format_license_key(1, b"\x00" * 16)
    with pytest.raises(ValueError, match="kid"):
        format_license_key(MAX_KID + 1, b"\x00" * 15)
