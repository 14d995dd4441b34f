"""Unlocking sealed answers: check a card key against a deck release, then remember the key.

The order follows sealing.md §1.6 so that a failure changes nothing: checksum (no I/O) →
deck header, its card lists and key slots → one KDF → key check → trial-decrypt every answer
and check what it holds → write the license last.

What opening a release with a stored key showed (it opens, it is revoked, not valid, or the
deck is corrupted) is noted in the store, so `status` reports what is true without a KDF.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from infracards import seal
from infracards.errors import (
    KeyNotValidError,
    KeyRevokedError,
    LicenseError,
    SealError,
    StoreError,
)
from infracards.seal.encoding import decode_b64
from infracards.services.answers import read_payload
from infracards.store.file import reading, writing
from infracards.store.reads import (
    card_labels,
    deck_lock,
    load_setting,
    save_setting,
    sealed_cards,
    sealed_decks,
)
from infracards.terminal_text import quoted

if TYPE_CHECKING:
    from infracards.seal import CardLabels, LicenseKey
    from infracards.store.file import Store

# The seal's names are used as ``seal.name``: each loads its submodule on first use, so
# reading the license and the noted key checks (`status`, `unlock --status`) does not import
# `cryptography` (~10 ms), which only checking a key against a release and opening answers need.

UNLOCKED = "unlocked"
LOCKED = "locked"
REVOKED = "revoked"
NOT_VALID = "not valid"
CORRUPTED = "deck corrupted"


@dataclass(frozen=True, slots=True)
class OpenedRelease:
    """A deck release whose answers can be decrypted in memory."""

    deck_id: str
    release: int
    release_key: bytes
    answers: int = 0
    """How many sealed answers were trial-decrypted (by ``unlock_deck``; 0 for a stored key)."""
    dropped: tuple[str, ...] = ()
    """Decks whose stored key was unreadable and left out when ``unlock_deck`` saved this one."""


@dataclass(frozen=True, slots=True)
class KeyStatus:
    """Whether a card key is stored for a deck, and what it does for the release loaded now."""

    state: str
    """UNLOCKED (the stored key opens this release), LOCKED (no key is stored), REVOKED,
    NOT_VALID or CORRUPTED (a key is stored and does not open it)."""
    key_stored: bool
    release: int = 0
    """The release loaded now (0 when it could not be read)."""

    @property
    def unlocked(self) -> bool:
        return self.state == UNLOCKED


@dataclass(frozen=True, slots=True)
class _StoredRelease:
    """A loaded sealed deck as the store holds it: what opening it checks."""

    deck_id: str
    release: int
    lock_json: str
    slots_json: str
    labels: CardLabels

    @property
    def fingerprint(self) -> str:
        """Changes with anything that decides whether a key opens it."""
        labels = json.dumps([sorted(self.labels.sealed), sorted(self.labels.free)])
        text = "\n".join((self.deck_id, str(self.release), self.lock_json, self.slots_json, labels))
        return hashlib.sha256(text.encode()).hexdigest()


def _stored_release(store: Store, deck_id: str) -> _StoredRelease:
    with reading(store) as db:
        try:
            release, lock_json, slots_json = deck_lock(db, deck_id=deck_id)
        except LookupError:
            raise SealError(
                f"no deck {quoted(deck_id)} is loaded; see `infracards deck list`"
            ) from None
        sealed, free = card_labels(db, deck_id=deck_id)
    if lock_json is None or slots_json is None:
        raise SealError(f"deck {deck_id} has no sealed answers; nothing to unlock")
    return _StoredRelease(deck_id, release, lock_json, slots_json, seal.CardLabels(sealed, free))


def open_sealed(
    *,
    deck_id: str,
    release: int,
    lock: object,
    keyslots: bytes,
    key: LicenseKey,
    labels: CardLabels,
) -> OpenedRelease:
    """Check the lock header, its card lists and the key slots, then open with one KDF."""
    release_key = seal.open_release(
        header=seal.parse_lock_header(lock, deck_id=deck_id),
        slots=seal.parse_keyslots(keyslots, deck_id=deck_id, release=release),
        deck_id=deck_id,
        release=release,
        license_key=key,
        labels=labels,
    )
    return OpenedRelease(deck_id=deck_id, release=release, release_key=release_key)


def _open(stored: _StoredRelease, key: LicenseKey) -> OpenedRelease:
    return open_sealed(
        deck_id=stored.deck_id,
        release=stored.release,
        lock=json.loads(stored.lock_json),
        keyslots=stored.slots_json.encode(),
        key=key,
        labels=stored.labels,
    )


def unlock_deck(store: Store, home: Path, *, deck_id: str, typed_key: str) -> OpenedRelease:
    """Verify a typed card key completely, then store it (0600, atomically); nothing before that.

    Every sealed answer is decrypted once, and what it holds is checked as strictly as a free
    card's text: a release whose key is valid but whose answers are not is refused here.
    """
    key = seal.parse_license_key(typed_key)
    stored = _stored_release(store, deck_id)
    opened = _open(stored, key)
    with reading(store) as db:
        cards = sealed_cards(db, deck_id=deck_id)
    for card_id, prompt, blob in cards:
        sealed = decode_b64(blob, what=f"{card_id}.sealed")
        plaintext = seal.open_answer(
            opened.release_key, deck_id, opened.release, card_id, prompt, sealed
        )
        read_payload(plaintext, card_id=card_id)
    dropped = seal.store_key(home, deck_id, key.compact)  # an unsafe or damaged license: refused
    _note(store, stored, key, UNLOCKED)
    return replace(opened, answers=len(cards), dropped=tuple(dropped))


def open_saved_keys(
    store: Store, home: Path, *, only: str | None = None
) -> tuple[list[OpenedRelease], list[str]]:
    """Open every deck the stored license unlocks (one KDF each); problems become notices.

    A key revoked by a newer release leaves that deck locked with a notice, not an error, and
    the license file is left exactly as it was. What each key did is noted for `status`.
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
        key = seal.parse_license_key(keys[deck_id])
        try:
            stored = _stored_release(store, deck_id)
        except SealError as error:
            notices.append(f"{deck_id} stays locked: {error}")
            continue
        try:
            opened.append(_open(stored, key))
        except SealError as error:
            notices.append(f"{deck_id} stays locked: {error}")
            _note(store, stored, key, _state_of(error))
        else:
            _note(store, stored, key, UNLOCKED)
    return opened, notices


def unlocked_decks(store: Store, home: Path) -> frozenset[str]:
    """The decks whose stored card key opens their release (what `study-locked no` studies)."""
    return frozenset(deck for deck, status in key_status(store, home).items() if status.unlocked)


def key_status(store: Store, home: Path) -> dict[str, KeyStatus]:
    """Per sealed deck: is a card key stored, and does it open the release loaded now?

    Answered from what the last opening of this key with this release showed (the app opens
    stored keys as it starts); a key or release not tried yet is tried now, once (one KDF).
    """
    try:
        keys = seal.load_license(home)
    except LicenseError:
        keys = {}
    with reading(store) as db:
        decks = sealed_decks(db)
    status: dict[str, KeyStatus] = {}
    for deck_id in decks:
        if deck_id not in keys:
            status[deck_id] = KeyStatus(LOCKED, key_stored=False)
            continue
        key = seal.parse_license_key(keys[deck_id])
        try:
            stored = _stored_release(store, deck_id)
        except SealError:
            status[deck_id] = KeyStatus(CORRUPTED, key_stored=True)
            continue
        state = _noted(store, stored, key)
        if state is None:
            try:
                _open(stored, key)
                state = UNLOCKED
            except SealError as error:
                state = _state_of(error)
            _note(store, stored, key, state)
        status[deck_id] = KeyStatus(state, key_stored=True, release=stored.release)
    return status


def _state_of(error: SealError) -> str:
    if isinstance(error, KeyRevokedError):
        return REVOKED
    if isinstance(error, KeyNotValidError):
        return NOT_VALID
    return CORRUPTED


def _setting(deck_id: str) -> str:
    return f"key-check:{deck_id}"


def _check_id(stored: _StoredRelease, key: LicenseKey) -> str:
    """Which key met which release, as a one-way digest: the store never holds a card key."""
    return hashlib.sha256(
        f"infracards/v1/key-check\n{key.compact}\n{stored.fingerprint}".encode()
    ).hexdigest()


def _noted(store: Store, stored: _StoredRelease, key: LicenseKey) -> str | None:
    with reading(store) as db:
        text = load_setting(db, key=_setting(stored.deck_id))
    try:
        noted = json.loads(text) if text else None
    except ValueError:
        return None
    if not isinstance(noted, dict) or noted.get("check") != _check_id(stored, key):
        return None
    state = noted.get("state")
    return state if state in (UNLOCKED, REVOKED, NOT_VALID, CORRUPTED) else None


def _note(store: Store, stored: _StoredRelease, key: LicenseKey, state: str) -> None:
    """Remember what this key did for this release (a store that cannot take it is no error:
    the next `status` tries the key again)."""
    if _noted(store, stored, key) == state:
        return
    value = json.dumps({"check": _check_id(stored, key), "state": state})
    with suppress(StoreError), writing(store) as db:
        save_setting(db, key=_setting(stored.deck_id), value=value)
