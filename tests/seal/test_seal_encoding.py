"""``enc`` framing and strict, canonical base64."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infracards.errors import DeckCorruptedError
from infracards.seal.encoding import decode_b64, enc, encode_b64, parse_json


def test_enc_prefixes_every_field_with_its_u16_length() -> None:
    assert enc("L", "ab", 7, b"\x00") == b"\x00\x01L\x00\x02ab\x00\x017\x00\x01\x00"


def test_enc_has_no_separator_ambiguity() -> None:
    assert enc("x", "a|b", "c") != enc("x", "a", "b|c")
    assert enc("x", "ab", "") != enc("x", "a", "b")
    assert enc("x", 12) != enc("x", 1, 2)


def test_enc_refuses_bools_and_oversized_fields() -> None:
    with pytest.raises(TypeError):
        enc("x", True)
    with pytest.raises(ValueError, match="65536 bytes"):
        enc("x", b"\x00" * 65536)


@given(st.binary(max_size=300))
def test_base64_round_trips(data: bytes) -> None:
    assert decode_b64(encode_b64(data), what="blob") == data


@pytest.mark.parametrize(
    "text",
    ["QR==", "QQ", "QQ=", "QQ==\n", " QQ==", "QQ==QQ==", "Q Q==", "QQ-_", "ＱＱ==", "QQ==="],
)
def test_non_canonical_base64_is_corruption(text: str) -> None:
    assert base64.b64decode("QQ==") == b"A"
    with pytest.raises(DeckCorruptedError, match="q17 sealed answer"):
        decode_b64(text, what="q17 sealed answer")


def test_base64_must_be_text() -> None:
    with pytest.raises(DeckCorruptedError, match="not base64 text"):
        decode_b64(b"QQ==", what="slot")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"a": 1, "a": 2}', "duplicate JSON key 'a'"),
        (b'{"a": NaN}', "NaN is not allowed"),
        (b'{"a": -Infinity}', "-Infinity is not allowed"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"a": "\xff"}', "utf-8"),
        (b'{"a": 1', "Expecting"),
    ],
)
def test_parse_json_rejects_what_json_loads_would_accept_or_crash_on(
    data: bytes, reason: str
) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_json(data)
