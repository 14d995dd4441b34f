"""Unlocking sealed answers: check a card key against a deck release, then remember the key.

The order follows sealing.md §1.6 so that a failure changes nothing: checksum (no I/O) →
deck header and key slots → one KDF → key check → trial-decrypt every answer → write the
license last.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from infracards import seal
from infracards.errors import LicenseError, SealError
from infracards.seal.encoding import decode_b64
from infracards.store.file import reading
from infracards.store.reads import deck_lock, sealed_cards, sealed_decks

if TYPE_CHECKING:
    from infracards.seal import LicenseKey
    from infracards.store.file import Store

# The seal's names are used as ``seal.name``: each loads its submodule on first use, so
# reading the license (`status`, `unlock --status`) does not import `cryptography` (~10 ms),
# which only checking a deck's lock and opening answers need.

OPEN = "unlocked"
"""``key_status`` of a deck whose stored card key has a slot in its release."""


@dataclass(frozen=True, slots=True)
class OpenedRelease:
    """A deck release whose answers can be decrypted in memory."""

    deck_id: str
    release: int
    release_key: bytes
    answers: int = 0
    """How many sealed answers were trial-decrypted (by ``unlock_deck``; 0 for a stored key)."""


def _stored_lock(store: Store, deck_id: str) -> tuple[int, str, str]:
    """(release, lock header JSON, key slots JSON) of a loaded sealed deck."""
    with reading(store) as db:
        try:
            release, lock_json, slots_json = deck_lock(db, deck_id=deck_id)
        except LookupError:
            raise SealError(f"no deck {deck_id!r} is loaded; see `infracards deck list`") from None
    if lock_json is None or slots_json is None:
        raise SealError(f"deck {deck_id} has no sealed answers; nothing to unlock")
    return release, lock_json, slots_json


def open_sealed(
    *, deck_id: str, release: int, lock: object, keyslots: bytes, key: LicenseKey
) -> OpenedRelease:
    """Check the lock header and key slots of a release, then open it with one KDF."""
    release_key = seal.open_release(
        header=seal.parse_lock_header(lock, deck_id=deck_id),
        slots=seal.parse_keyslots(keyslots, deck_id=deck_id, release=release),
        deck_id=deck_id,
        release=release,
        license_key=key,
    )
    return OpenedRelease(deck_id=deck_id, release=release, release_key=release_key)


def _open(store: Store, deck_id: str, key: LicenseKey) -> OpenedRelease:
    release, lock_json, slots_json = _stored_lock(store, deck_id)
    return open_sealed(
        deck_id=deck_id,
        release=release,
        lock=json.loads(lock_json),
        keyslots=slots_json.encode(),
        key=key,
    )


def unlock_deck(store: Store, home: Path, *, deck_id: str, typed_key: str) -> OpenedRelease:
    """Verify a typed card key completely, then store it (0600, atomically); nothing before that."""
    key = seal.parse_license_key(typed_key)
    opened = _open(store, deck_id, key)
    with reading(store) as db:
        cards = sealed_cards(db, deck_id=deck_id)
    seal.verify_all_answers(
        opened.release_key,
        deck_id,
        opened.release,
        [
            (card_id, prompt, decode_b64(blob, what=f"{card_id}.sealed"))
            for card_id, prompt, blob in cards
        ],
    )
    try:
        keys = seal.load_license(home)
    except LicenseError:
        keys = {}  # a damaged license is replaced by this verified unlock
    keys[deck_id] = key.compact
    seal.save_license(home, keys)
    return replace(opened, answers=len(cards))


def open_saved_keys(
    store: Store, home: Path, *, only: str | None = None
) -> tuple[list[OpenedRelease], list[str]]:
    """Open every deck the stored license unlocks (one KDF each); problems become notices.

    A key revoked by a newer release leaves that deck locked with a notice, not an error, and
    the license file is left exactly as it was.
    """
    try:
        keys = seal.load_license(home)
    except LicenseError as error:
        return [], [str(error)]
    with reading(store) as db:
        decks = sealed_decks(db)
    opened: list[OpenedRelease] = []
    notices: list[str] = []
    for deck_id in decks:
        if deck_id not in keys or only not in (None, deck_id):
            continue
        try:
            opened.append(_open(store, deck_id, seal.parse_license_key(keys[deck_id])))
        except SealError as error:
            notices.append(f"{deck_id} stays locked: {error}")
    return opened, notices


def unlocked_decks(store: Store, home: Path) -> frozenset[str]:
    """The decks whose stored card key opens their release (what `study-locked no` studies)."""
    return frozenset(deck for deck, status in key_status(store, home).items() if status == OPEN)


def key_status(store: Store, home: Path) -> dict[str, str]:
    """Per sealed deck: 'unlocked', 'locked', 'revoked' or 'not valid', without running a KDF."""
    try:
        keys = seal.load_license(home)
    except LicenseError:
        keys = {}
    with reading(store) as db:
        decks = sealed_decks(db)
    status: dict[str, str] = {}
    for deck_id in decks:
        if deck_id not in keys:
            status[deck_id] = "locked"
            continue
        try:
            release, lock_json, slots_json = _stored_lock(store, deck_id)
            header = seal.parse_lock_header(json.loads(lock_json), deck_id=deck_id)
            slots = seal.parse_keyslots(slots_json.encode(), deck_id=deck_id, release=release)
            kid = seal.parse_license_key(keys[deck_id]).kid
        except SealError:
            status[deck_id] = "deck corrupted"
            continue
        if kid in header.revoked:
            status[deck_id] = "revoked"
        else:
            status[deck_id] = OPEN if kid in slots else "not valid"
    return status
