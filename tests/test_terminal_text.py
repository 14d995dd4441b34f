"""The one function text passes on its way to a terminal: whatever goes in, nothing that can
drive a terminal or reveal a card key comes out."""

from __future__ import annotations

import json
import sys
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from infracards.terminal_text import (
    echo,
    find_card_keys,
    json_safe,
    mask_card_keys,
    message_line,
    terminal_safe,
)

DEMO_KEY = "GTA13-PAJRP-RFMBW-3P4BP-X5NF6-K0PVN"
UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}

# Any character at all, surrogates (undecodable argument bytes) included, weighted towards
# the ones that matter: ESC and CSI sequences, C1 controls, bidi overrides.
hostile_chars = st.one_of(
    st.characters(exclude_categories=()),
    st.sampled_from(["\x1b", "\x9b", "\x07", "\r", "\x08", "\u202e", "\u2066", "\u2028", "\udcff"]),
)
hostile_text = st.one_of(
    st.text(hostile_chars, max_size=80),
    st.lists(
        st.sampled_from(["\x1b[31m", "\x1b]8;;http://x\x1b\\", "\x9b2J", "ok", "中文", "\n"])
    ).map("".join),
)


def unsafe_in(text: str, *, keep: str = "") -> list[str]:
    return [c for c in text if unicodedata.category(c) in UNSAFE_CATEGORIES and c not in keep]


def test_every_unsafe_code_point_of_this_python_is_escaped() -> None:
    """The class is written out for speed; this Python's own Unicode tables are the judge."""
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if unicodedata.category(char) in UNSAFE_CATEGORIES:
            assert terminal_safe(char, one_line=True).startswith("\\"), hex(code)


def test_escapes_are_visible_and_name_the_character() -> None:
    assert terminal_safe("a\x1b[31mred") == "a\\x1b[31mred"
    assert terminal_safe("\x9b2J \u202eabc") == "\\x9b2J \\u202eabc"
    assert echo("q\udcff\udcfe") == "q\\xff\\xfe"  # undecodable argument bytes, as bytes
    assert terminal_safe("line 1\n\tline 2") == "line 1\n\tline 2"
    assert echo("line 1\n\tline 2") == "line 1\\n\\tline 2"


@settings(max_examples=500, deadline=None)
@given(hostile_text, st.booleans())
def test_nothing_unsafe_survives(text: str, one_line: bool) -> None:
    shown = terminal_safe(text, one_line=one_line)
    assert unsafe_in(shown, keep="" if one_line else "\n\t") == []
    shown.encode("utf-8")  # printable on any UTF-8 terminal: no lone surrogate is left
    assert terminal_safe(shown, one_line=one_line) == shown  # safe text stays as it is


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200).filter(lambda text: not unsafe_in(text, keep="\n\t")))
def test_safe_text_is_left_alone(text: str) -> None:
    assert terminal_safe(text, find_keys=False) == text


@settings(max_examples=300, deadline=None)
@given(hostile_text, st.integers(min_value=1, max_value=50))
def test_an_echoed_value_is_cut(text: str, limit: int) -> None:
    assert len(echo(text * 100, limit=limit).encode()) <= 10 * (limit + 1)


def test_a_five_megabyte_value_is_echoed_in_two_hundred_characters() -> None:
    assert echo("x" * 5_000_000) == "x" * 200 + "…"


@settings(max_examples=300, deadline=None)
@given(hostile_text)
def test_json_safe_keeps_the_value(text: str) -> None:
    encoded = json.dumps({"prompt": text}, ensure_ascii=False)
    shown = json_safe(encoded)
    assert json.loads(shown) == {"prompt": text}
    assert unsafe_in(shown) == []


def test_an_overlong_message_keeps_its_start_and_its_fix() -> None:
    message = "cannot read " + "\x1b" * 5_000_000 + ": no such file; check the path"
    short = message_line(message)
    assert len(short) < 1000 and short.startswith("cannot read \\x1b") and short.endswith("path")


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(
        [
            DEMO_KEY,
            DEMO_KEY.lower(),
            DEMO_KEY.replace("-", ""),
            DEMO_KEY.replace("-", " "),
            DEMO_KEY.replace("-", "_").lower(),
            "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else "－" for c in DEMO_KEY),
        ]
    ),
    st.text(max_size=20),
    st.text(max_size=20),
)
def test_a_card_key_is_masked_wherever_it_stands(spelling: str, before: str, after: str) -> None:
    before = before if not before[-1:].isalnum() else before + " "
    shown = terminal_safe(f"{before}{spelling}{after}")
    normal = unicodedata.normalize("NFKC", shown).upper()
    assert "PAJRPRFMBW3P4BPX5NF6" not in "".join(c for c in normal if c.isalnum())


def test_a_typed_key_with_a_typo_in_its_grouped_shape_is_masked_too() -> None:
    typo = DEMO_KEY[:-1] + "X"
    assert find_card_keys(f"no such file: {typo}") == [typo]
    assert mask_card_keys(f"key {typo}!") == "key GTA13-…-K0PVX!"


def test_prose_is_not_mistaken_for_a_key() -> None:
    prose = "Ring All-Reduce sends 2(N-1)/N of the data per rank and then gathers it back again"
    assert find_card_keys(prose * 20) == []
