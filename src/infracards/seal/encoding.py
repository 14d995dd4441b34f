"""Unambiguous byte encodings shared by the key hierarchy, key slots and license file.

``enc`` is the only way labels and fields become KDF/AEAD inputs, so two different
field lists can never produce the same bytes (``"a|b", "c"`` vs ``"a", "b|c"``).
"""

from __future__ import annotations

import base64
import binascii
import json

from infracards.errors import DeckCorruptedError

_U16_MAX = 0xFFFF


def enc(label: str, *fields: str | int | bytes) -> bytes:
    """Encode a label and fields, each as a u16 big-endian length then the bytes.

    ``str`` is UTF-8; ``int`` is its decimal ASCII text (``7`` → ``b"7"``), so every
    field is length-prefixed text or raw bytes and nothing depends on an integer width;
    ``bytes`` (e.g. a SHA-256 digest) are taken as they are.
    """
    out = bytearray()
    for field in (label, *fields):
        if isinstance(field, bool):
            raise TypeError("enc() takes str, int or bytes fields, not bool")
        if isinstance(field, str):
            raw = field.encode("utf-8")
        elif isinstance(field, int):
            raw = str(field).encode("ascii")
        else:
            raw = bytes(field)
        if len(raw) > _U16_MAX:
            raise ValueError(f"enc() field is {len(raw)} bytes; at most {_U16_MAX}")
        out += len(raw).to_bytes(2, "big") + raw
    return bytes(out)


def encode_b64(data: bytes) -> str:
    """Standard padded base64, the only spelling ``decode_b64`` accepts."""
    return base64.b64encode(data).decode("ascii")


def decode_b64(text: object, *, what: str) -> bytes:
    """Decode strict, canonical base64; ``QR==`` or embedded newlines are corruption, not typos."""
    if not isinstance(text, str) or not text.isascii():
        raise DeckCorruptedError(f"deck corrupted: {what} is not base64 text; reinstall the deck")
    try:
        data = base64.b64decode(text, validate=True)
    except binascii.Error:
        raise DeckCorruptedError(
            f"deck corrupted: {what} is not valid base64; reinstall the deck"
        ) from None
    # b64decode(validate=True) still accepts non-zero padding bits (QR== and QQ== both give b"A").
    if encode_b64(data) != text:
        raise DeckCorruptedError(
            f"deck corrupted: {what} is not canonical base64; reinstall the deck"
        )
    return data


def show_value(value: object, limit: int = 40) -> str:
    """A short one-line repr of an untrusted value for error messages."""
    if isinstance(value, int) and value.bit_length() > 128:
        return "a very large integer"  # repr() of > 4300 digits raises ValueError
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_json(data: bytes) -> object:
    """Parse UTF-8 JSON, rejecting duplicate keys, NaN/Infinity and deep nesting with ValueError."""
    try:
        return json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_reject_duplicate_keys,
            parse_constant=_reject_constant,
        )
    except RecursionError:
        raise ValueError("JSON is nested too deeply") from None


def _reject_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result: dict[str, object] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate JSON key {key!r}")
        result[key] = value
    return result


def _reject_constant(name: str) -> object:
    raise ValueError(f"JSON constant {name} is not allowed")
