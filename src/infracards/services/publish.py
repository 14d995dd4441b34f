"""Publisher side: the publisher secret, issuing and revoking card keys, sealing a release.

A publisher source folder holds ``deck.yaml`` (prompts, tags, release number, which cards are
free), one ``qNN.md`` per answer (YAML front matter with ``key_points``, then Markdown) and
``keys.json`` (issued key ids with their cached KEKs, and revoked ids). Sealing writes the shipped
deck and its key slots; the output depends only on the inputs, so unchanged answers re-seal to
identical bytes.
"""

from __future__ import annotations

import base64
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from infracards.calc import find_examples
from infracards.card_text import MAX_KEY_POINTS, MAX_TAGS
from infracards.deck import CARD_ID, DECK_FORMAT, TAG, FieldReader, compose_yaml, parse_deck
from infracards.errors import CalcError, DeckError, SealError
from infracards.files import absent, read_deck_bytes, write_atomically
from infracards.seal import (
    PRODUCTION_KDF_PARAMS,
    TEST_KDF_PARAMS,
    IssuedKey,
    KdfParams,
    check_kdf_params,
    issue_license_keys,
    kid_text,
    seal_release,
)
from infracards.seal.license_key import parse_kid_text
from infracards.terminal_text import echo, quoted

SOURCE_FORMAT = "infracards-source/v1"
SECRET_FORMAT = "infracards-publisher-secret/v1"
REGISTRY_FORMAT = "infracards-key-registry/v1"
SECRET_ENV = "INFRACARDS_PUBLISHER_SECRET"
_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
_SOURCE_CARD = {"id", "prompt", "tags"}
_SOURCE_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\.md")
"""A file beside deck.yaml (no folders, no "..")."""
MAX_SOURCE_BYTES = 16 << 20


@dataclass(frozen=True, slots=True)
class SourceCard:
    """One card of the publisher source, answer included."""

    card_id: str
    prompt: str
    tags: tuple[str, ...]
    key_points: tuple[str, ...]
    answer: str
    free: bool
    calculators: tuple[str, ...] = ()
    """The models of the answer's ``calc`` blocks, in order: shipped unsealed."""


@dataclass(frozen=True, slots=True)
class SourceDeck:
    deck_id: str
    title: str
    release: int
    language: str
    cards: tuple[SourceCard, ...]
    notation: str | None = None


@dataclass(frozen=True, slots=True)
class Registry:
    """Issued card keys (kid → cached KEK) and revoked kids; re-derivable from the secret."""

    deck_id: str
    params: KdfParams
    keks: dict[int, bytes]
    revoked: set[int]


# --- the publisher secret ----------------------------------------------------------------------


def create_secret(path: Path, *, demo: bool = False) -> None:
    """Write 32 random bytes as a 0600 file; never overwrite an existing secret."""
    document = {"format": SECRET_FORMAT, "secret": base64.b64encode(os.urandom(32)).decode()}
    if demo:
        document["note"] = "DEMO ONLY: committed on purpose so anyone can try sealing; never use it"
    text = json.dumps(document, indent=2) + "\n"
    write_atomically(path, text, private=True, replace=False, error=SealError)


def read_secret(path: Path | None) -> bytes:
    """The publisher secret from ``--secret`` or ``$INFRACARDS_PUBLISHER_SECRET`` (a path)."""
    if path is None:
        env = os.environ.get(SECRET_ENV)
        if not env:
            raise SealError(f"give the publisher secret with --secret PATH or ${SECRET_ENV}")
        path = Path(env)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        secret = base64.b64decode(document["secret"], validate=True)
    except FileNotFoundError:
        raise SealError(f"{echo(path)}: no such publisher secret file") from None
    except (OSError, ValueError, KeyError, TypeError):
        raise SealError(
            f"{echo(path)} is not a publisher secret (create one with `publish secret`)"
        ) from None
    if document.get("format") != SECRET_FORMAT or len(secret) != 32:
        raise SealError(f"{echo(path)} is not a {SECRET_FORMAT} file with a 32-byte secret")
    return secret


# --- the source folder -------------------------------------------------------------------------


def load_source(folder: Path) -> SourceDeck:
    """Read ``deck.yaml``, every ``qNN.md`` and the notation page, as untrusted as a deck:
    the same hardened YAML composer, and every error names ``file:line`` and the field."""
    path = folder / "deck.yaml"
    if absent(path):
        raise DeckError(
            f"{echo(path)}: no such file (is {echo(folder)} a publisher source folder?)"
        )
    reader = FieldReader(path)
    top = reader.mapping(
        compose_yaml(read_deck_bytes(path, max_bytes=MAX_SOURCE_BYTES), path=path),
        1,
        "source",
        allowed={"format", "id", "title", "version", "language", "free", "notation", "cards"},
        required={"format", "id", "title", "version", "language", "cards"},
    )
    if reader.field_text(top, "format", "format") != SOURCE_FORMAT:
        raise reader.fail(top.value_lines["format"], "format", f"expected {SOURCE_FORMAT}")
    cards: dict[str, tuple[int, Any]] = {}
    for index, (entry, line) in enumerate(reader.items(top, "cards", "cards")):
        field = f"cards[{index}]"
        fields = reader.mapping(entry, line, field, allowed=_SOURCE_CARD, required={"id", "prompt"})
        card_id = reader.field_text(fields, "id", f"{field}.id", pattern=CARD_ID)
        if card_id in cards:
            first = cards[card_id][0]
            raise reader.fail(line, f"{field}.id", f"duplicate card id {card_id!r} (line {first})")
        cards[card_id] = (line, fields)
    free = set(reader.texts(top, "free", "free")) if "free" in top else set()
    if unknown := sorted(free - set(cards)):
        raise reader.fail(top.value_lines["free"], "free", f"no card {unknown[0]!r} in cards")
    notation = None
    if "notation" in top:
        name = reader.field_text(top, "notation", "notation", pattern=_SOURCE_FILE)
        notation = _read_text(folder / name).strip() + "\n"
    version = reader.integer(top, "version", "version")
    return SourceDeck(
        deck_id=reader.field_text(top, "id", "id"),
        title=reader.field_text(top, "title", "title"),
        release=version,
        language=reader.field_text(top, "language", "language"),
        cards=tuple(
            _source_card(folder, reader, card_id, fields, line, free=card_id in free)
            for card_id, (line, fields) in cards.items()
        ),
        notation=notation,
    )


def _read_text(path: Path) -> str:
    data = read_deck_bytes(path, max_bytes=MAX_SOURCE_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as bad:
        line = data[: bad.start].count(b"\n") + 1
        raise DeckError(f"{echo(path)}:{line}: invalid UTF-8 (byte {bad.start})") from None


def _source_card(
    folder: Path, reader: FieldReader, card_id: str, fields: Any, line: int, *, free: bool
) -> SourceCard:
    path = folder / f"{card_id}.md"
    if absent(path):
        raise reader.fail(line, card_id, f"its answer {path.name} is missing")
    key_points, body = split_front_matter(_read_text(path), path=path)
    try:
        calculators = tuple(dict.fromkeys(example.model.name for example in find_examples(body)))
    except CalcError as error:
        raise DeckError(
            f"{echo(path)}: calc block, {echo(error)} (lines count from the answer body)"
        ) from None
    return SourceCard(
        card_id=card_id,
        prompt=reader.field_text(fields, "prompt", f"{card_id}.prompt"),
        tags=reader.texts(fields, "tags", f"{card_id}.tags", most=MAX_TAGS, pattern=TAG)
        if "tags" in fields
        else (),
        key_points=key_points,
        answer=body,
        free=free,
        calculators=calculators,
    )


def split_front_matter(text: str, *, path: Path) -> tuple[tuple[str, ...], str]:
    """(key points, Markdown body) of an answer file."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise DeckError(f"{echo(path)}:1: expected front matter (---, key_points: [...], ---)")
    # The opening "---" stays in, so the composer's line numbers are the file's.
    front = compose_yaml(text[: match.end(1)].encode("utf-8"), path=path)
    reader = FieldReader(path)
    fields = reader.mapping(front, 2, "front matter", allowed={"key_points"}, required=set())
    if "key_points" not in fields:
        raise DeckError(f"{echo(path)}:2: front matter needs key_points: a list of strings")
    points = reader.texts(fields, "key_points", "key_points", most=MAX_KEY_POINTS)
    return points, text[match.end() :].strip() + "\n"


def sealed_plaintext(card: SourceCard) -> bytes:
    """What a sealed blob holds: the answer and its key points (both are the paid content)."""
    payload = {"answer": card.answer, "key_points": list(card.key_points)}
    return json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8")


# --- the key registry --------------------------------------------------------------------------


def registry_path(folder: Path) -> Path:
    return folder / "keys.json"


def load_registry(folder: Path, *, deck_id: str) -> Registry:
    path = registry_path(folder)
    if absent(path):
        return Registry(deck_id=deck_id, params=PRODUCTION_KDF_PARAMS, keks={}, revoked=set())
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        return Registry(
            deck_id=document["deck"],
            params=check_kdf_params(document["kdf"]),
            keks={parse_kid_text(k): base64.b64decode(v) for k, v in document["issued"].items()},
            revoked={parse_kid_text(k) for k in document["revoked"]},
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SealError(f"{echo(path)}: not a valid key registry ({error})") from None


def save_registry(folder: Path, registry: Registry) -> None:
    document = {
        "format": REGISTRY_FORMAT,
        "deck": registry.deck_id,
        "kdf": registry.params.as_dict(),
        "issued": {
            kid_text(k): base64.b64encode(v).decode() for k, v in sorted(registry.keks.items())
        },
        "revoked": sorted(kid_text(k) for k in registry.revoked),
    }
    # cached KEKs: as private as the publisher secret
    write_atomically(registry_path(folder), json.dumps(document, indent=2) + "\n", private=True)


def issue_keys(
    folder: Path, *, secret: bytes, count: int, test_params: bool = False
) -> list[IssuedKey]:
    """Issue card keys for buyers and remember their kids (one Argon2id each)."""
    deck = load_source(folder)
    registry = load_registry(folder, deck_id=deck.deck_id)
    params = TEST_KDF_PARAMS if test_params and not registry.keks else registry.params
    issued = issue_license_keys(
        master=secret,
        deck_id=deck.deck_id,
        count=count,
        taken_kids=set(registry.keks) | registry.revoked,
        params=params,
        test_params=test_params,
    )
    keks = dict(registry.keks) | {key.kid: key.kek for key in issued}
    save_registry(
        folder, Registry(deck_id=deck.deck_id, params=params, keks=keks, revoked=registry.revoked)
    )
    return issued


def revoke_key(folder: Path, *, kid: str) -> str:
    """Mark a kid revoked: the next sealed release ships no slot for it."""
    deck = load_source(folder)
    registry = load_registry(folder, deck_id=deck.deck_id)
    try:
        number = parse_kid_text(kid.strip().upper())
    except ValueError:
        raise SealError(
            f"{quoted(kid)} is not a key id (the first 4 symbols of a card key)"
        ) from None
    if number not in registry.keks:
        raise SealError(f"key id {kid_text(number)} was never issued for {deck.deck_id}")
    registry.revoked.add(number)
    save_registry(folder, registry)
    return kid_text(number)


# --- sealing -----------------------------------------------------------------------------------


def seal_source(folder: Path, *, secret: bytes, out_dir: Path, test_params: bool = False) -> Path:
    """Build ``<deck>.yaml`` and ``<deck>.keyslots.json`` in ``out_dir``; returns the deck path."""
    deck = load_source(folder)
    registry = load_registry(folder, deck_id=deck.deck_id)
    locked = [card for card in deck.cards if not card.free]
    release = seal_release(
        master=secret,
        deck_id=deck.deck_id,
        release=deck.release,
        answers=[(card.card_id, card.prompt, sealed_plaintext(card)) for card in locked],
        keks=registry.keks,
        revoked=registry.revoked,
        params=registry.params,
        free=[card.card_id for card in deck.cards if card.free],
        test_params=test_params or registry.params == TEST_KDF_PARAMS,
    )
    cards: list[dict[str, Any]] = []
    for card in deck.cards:
        entry: dict[str, Any] = {"id": card.card_id, "prompt": card.prompt, "tags": list(card.tags)}
        if card.calculators:
            entry["calculators"] = list(card.calculators)
        if card.free:
            entry["key_points"] = list(card.key_points)
            entry["answer"] = card.answer
        else:
            entry["sealed"] = release.sealed[card.card_id]
        cards.append(entry)
    document = {
        "format": DECK_FORMAT,
        "id": deck.deck_id,
        "title": deck.title,
        "version": deck.release,
        "language": deck.language,
        **({"notation": deck.notation} if deck.notation else {}),
        "lock": release.lock,
        "cards": cards,
    }
    text = "# Built by `infracards publish seal`; edit the publisher source, not this file.\n"
    text += yaml.dump(document, Dumper=_DeckDumper, allow_unicode=True, sort_keys=False, width=96)
    out_dir.mkdir(parents=True, exist_ok=True)
    deck_path = out_dir / f"{deck.deck_id}.yaml"
    parse_deck(text.encode("utf-8"), path=deck_path)  # what we ship must pass our own loader
    write_atomically(deck_path, text)
    slots = json.dumps(release.keyslots, sort_keys=True, indent=1) + "\n"
    write_atomically(out_dir / f"{deck.deck_id}.keyslots.json", slots)
    return deck_path


class _DeckDumper(yaml.SafeDumper):
    """Block scalars for multi-line text, and no anchors even for repeated values."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_DeckDumper.add_representer(str, _represent_text)
