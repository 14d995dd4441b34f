"""Unlocking sealed answers: check a card key against a deck release, then remember the key.

The order follows sealing.md §1.6 so that a failure changes nothing: checksum (no I/O) →
deck header and key slots → one KDF → key check → trial-decrypt every answer → write the
license last.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from infracards.errors import DeckCorruptedError, LicenseError, SealError
from infracards.seal import (
    LicenseKey,
    LockHeader,
    load_license,
    open_release,
    parse_keyslots,
    parse_license_key,
    parse_lock_header,
    save_license,
    verify_all_answers,
)
from infracards.seal.encoding import decode_b64
from infracards.store.db import transaction
from infracards.store.queries import deck_lock, sealed_cards, sealed_decks


@dataclass(frozen=True, slots=True)
class OpenedRelease:
    """A deck release whose answers can be decrypted in memory."""

    deck_id: str
    release: int
    release_key: bytes


@dataclass(frozen=True, slots=True)
class _Release:
    deck_id: str
    release: int
    header: LockHeader
    slots: dict[int, bytes]


def _load_release(engine: Engine, deck_id: str) -> _Release:
    with transaction(engine) as session:
        try:
            release, header_json, slots_json = deck_lock(session, deck_id=deck_id)
        except LookupError:
            raise SealError(f"no deck {deck_id!r} is loaded; see `infracards deck list`") from None
    if header_json is None or slots_json is None:
        raise SealError(f"deck {deck_id} has no sealed answers; nothing to unlock")
    header = parse_lock_header(json.loads(header_json), deck_id=deck_id)
    slots = parse_keyslots(slots_json.encode("utf-8"), deck_id=deck_id, release=release)
    return _Release(deck_id=deck_id, release=release, header=header, slots=slots)


def _open(engine: Engine, deck_id: str, key: LicenseKey) -> OpenedRelease:
    release = _load_release(engine, deck_id)
    release_key = open_release(
        header=release.header,
        slots=release.slots,
        deck_id=deck_id,
        release=release.release,
        license_key=key,
    )
    return OpenedRelease(deck_id=deck_id, release=release.release, release_key=release_key)


def unlock_deck(engine: Engine, home: Path, *, deck_id: str, typed_key: str) -> OpenedRelease:
    """Verify a typed card key completely, then store it (0600, atomically); nothing before that."""
    key = parse_license_key(typed_key)
    opened = _open(engine, deck_id, key)
    with transaction(engine) as session:
        cards = sealed_cards(session, deck_id=deck_id)
    verify_all_answers(
        opened.release_key,
        deck_id,
        opened.release,
        [
            (card_id, prompt, decode_b64(blob, what=f"{card_id}.sealed"))
            for card_id, prompt, blob in cards
        ],
    )
    try:
        keys = load_license(home)
    except LicenseError:
        keys = {}  # a damaged license is replaced by this verified unlock
    keys[deck_id] = key.compact
    save_license(home, keys)
    return opened


def open_saved_keys(
    engine: Engine, home: Path, *, only: str | None = None
) -> tuple[list[OpenedRelease], list[str]]:
    """Open every deck the stored license unlocks (one KDF each); problems become notices.

    A key revoked by a newer release leaves that deck locked with a notice, not an error, and
    the license file is left exactly as it was.
    """
    try:
        keys = load_license(home)
    except LicenseError as error:
        return [], [str(error)]
    with transaction(engine) as session:
        decks = sealed_decks(session)
    opened: list[OpenedRelease] = []
    notices: list[str] = []
    for deck_id in decks:
        if deck_id not in keys or only not in (None, deck_id):
            continue
        try:
            opened.append(_open(engine, deck_id, parse_license_key(keys[deck_id])))
        except SealError as error:
            notices.append(f"{deck_id} stays locked: {error}")
    return opened, notices


def key_status(engine: Engine, home: Path) -> dict[str, str]:
    """Per sealed deck: 'unlocked', 'locked', 'revoked' or 'not valid', without running a KDF."""
    try:
        keys = load_license(home)
    except LicenseError:
        keys = {}
    with transaction(engine) as session:
        decks = sealed_decks(session)
    status: dict[str, str] = {}
    for deck_id in decks:
        if deck_id not in keys:
            status[deck_id] = "locked"
            continue
        try:
            release = _load_release(engine, deck_id)
        except DeckCorruptedError:
            status[deck_id] = "deck corrupted"
            continue
        kid = parse_license_key(keys[deck_id]).kid
        if kid in release.header.revoked:
            status[deck_id] = "revoked"
        else:
            status[deck_id] = "unlocked" if kid in release.slots else "not valid"
    return status
