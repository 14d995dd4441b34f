"""Sealing a deck release (publisher) and opening it with a card key (learner), on plain values.

Deck files are parsed elsewhere; this module takes the ``lock`` mapping, the keyslots bytes and
the sealed blobs and does the §1.6 checks in order, so one failure reports one clear cause.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from infracards.errors import DeckCorruptedError, KeyNotValidError, KeyRevokedError, SealError
from infracards.seal.crypto import (
    KEY_BYTES,
    SALT_BYTES,
    SLOT_BYTES,
    KdfParams,
    card_salt,
    card_secret,
    check_commit,
    check_kdf_params,
    commit_value,
    derive_kek,
    derive_release_key,
    open_answer,
    seal_answer,
    unwrap_slot,
    wrap_slot,
)
from infracards.seal.encoding import decode_b64, encode_b64, parse_json, show_value
from infracards.seal.license_key import (
    MAX_KID,
    LicenseKey,
    format_license_key,
    kid_text,
    parse_kid_text,
)

SEAL_FORMAT = "infracards-seal/v1"
KEYSLOTS_FORMAT = "infracards-keyslots/v1"
AEAD = "aes-256-gcm"
MAX_KEYSLOTS_BYTES = 16 * 1024 * 1024
MAX_SLOTS = 131_072
TEST_KDF_PARAMS = KdfParams(alg="argon2id", memory_kib=8192, iterations=1, lanes=1)
PRODUCTION_KDF_PARAMS = KdfParams(alg="argon2id", memory_kib=65536, iterations=3, lanes=1)
# OWASP Password Storage Cheat Sheet, Argon2id with p=1: minimum memory for each t (t ≥ 5: 7 MiB).
_OWASP_MIN_MEMORY_KIB = {1: 47104, 2: 19456, 3: 12288, 4: 9216}
_LOCK_FIELDS = frozenset({"format", "aead", "kdf", "commit", "revoked"})
_KEYSLOTS_FIELDS = frozenset({"format", "deck", "version", "slots"})
_VERSIONED = re.compile(r"infracards-(?:seal|keyslots)/v([0-9]{1,6})")


class RandomSource(Protocol):
    """Anything with ``randbelow``: the ``secrets`` module, or a seeded stand-in in tests."""

    def randbelow(self, exclusive_upper_bound: int, /) -> int: ...


@dataclass(frozen=True, slots=True)
class SealedRelease:
    """What a release ships: ``lock`` header, base64 ``sealed`` blobs, the keyslots document."""

    deck_id: str
    release: int
    lock: dict[str, object]
    sealed: dict[str, str]
    keyslots: dict[str, object]


@dataclass(frozen=True, slots=True)
class IssuedKey:
    """A new card key for a buyer, with the KEK the publisher caches so releases cost no KDF."""

    kid: int
    license_key: str = field(repr=False)
    kek: bytes = field(repr=False)


@dataclass(frozen=True, slots=True)
class LockHeader:
    """A validated ``lock`` header: KDF cost within client bounds, commit and revoked kids."""

    kdf: KdfParams
    commit: bytes
    revoked: frozenset[int]


def seal_release(
    *,
    master: bytes,
    deck_id: str,
    release: int,
    answers: list[tuple[str, str, bytes]],
    keks: dict[int, bytes],
    revoked: set[int],
    params: KdfParams,
    test_params: bool = False,
) -> SealedRelease:
    """Seal ``(card id, prompt, plaintext)`` answers; one slot per cached, non-revoked KEK.

    ``params`` go into the header as is, so ``keks`` must have been derived with them.
    """
    _check_release(release)
    _check_publisher_params(params, test_params=test_params)
    release_key = derive_release_key(master, deck_id, release)
    sealed: dict[str, str] = {}
    for card_id, prompt, plaintext in answers:
        if card_id in sealed:
            raise SealError(f"card id {card_id} appears twice in the answers to seal")
        sealed[card_id] = encode_b64(
            seal_answer(release_key, deck_id, release, card_id, prompt, plaintext)
        )
    slots = {
        kid_text(kid): encode_b64(
            wrap_slot(kek, release_key, deck_id, release, kid, card_salt(master, deck_id, kid))
        )
        for kid, kek in sorted(keks.items())
        if kid not in revoked
    }
    lock: dict[str, object] = {
        "format": SEAL_FORMAT,
        "aead": AEAD,
        "kdf": params.as_dict(),
        "commit": encode_b64(commit_value(release_key)),
        "revoked": [kid_text(kid) for kid in sorted(revoked)],
    }
    keyslots: dict[str, object] = {
        "format": KEYSLOTS_FORMAT,
        "deck": deck_id,
        "version": release,
        "slots": slots,
    }
    return SealedRelease(
        deck_id=deck_id, release=release, lock=lock, sealed=sealed, keyslots=keyslots
    )


def issue_license_keys(
    *,
    master: bytes,
    deck_id: str,
    count: int,
    taken_kids: set[int],
    params: KdfParams,
    rng: RandomSource | None = None,
    test_params: bool = False,
) -> list[IssuedKey]:
    """Issue ``count`` card keys with random kids (sales order stays private), one Argon2id each.

    ``rng`` defaults to the ``secrets`` module (imported here: ~7 ms that checking a learner's
    key, as `infracards status` does, should not pay)."""
    if rng is None:
        import secrets

        rng = secrets
    _check_publisher_params(params, test_params=test_params)
    if count > MAX_KID + 1 - len(taken_kids):
        raise SealError(
            f"cannot issue {count} card keys for {deck_id}: "
            f"only {MAX_KID + 1 - len(taken_kids)} kids left"
        )
    used = set(taken_kids)
    issued: list[IssuedKey] = []
    while len(issued) < count:
        kid = rng.randbelow(MAX_KID + 1)
        if kid in used:
            continue
        used.add(kid)
        secret = card_secret(master, deck_id, kid)
        kek = derive_kek(secret, card_salt(master, deck_id, kid), deck_id, kid, params)
        issued.append(IssuedKey(kid=kid, license_key=format_license_key(kid, secret), kek=kek))
    return issued


def _check_release(release: int) -> None:
    if isinstance(release, bool) or not isinstance(release, int) or release < 1:
        raise SealError(f"release must be a positive integer, got {show_value(release)}")


def _check_publisher_params(params: KdfParams, *, test_params: bool) -> None:
    check_kdf_params(params.as_dict())
    floor = _OWASP_MIN_MEMORY_KIB.get(params.iterations, 7168)
    if params.memory_kib < floor and not test_params:
        raise SealError(
            f"KDF cost m={params.memory_kib} KiB, t={params.iterations} is below the OWASP minimum "
            f"(m ≥ {floor} KiB at t={params.iterations}); use --test-params only for tests"
        )


def parse_lock_header(mapping: object, *, deck_id: str) -> LockHeader:
    """Validate a deck's ``lock`` mapping; a newer format asks for a newer infracards."""
    if not isinstance(mapping, Mapping):
        raise DeckCorruptedError(
            f"deck {deck_id}: lock header is not a mapping; reinstall the deck"
        )
    _check_format(mapping.get("format"), SEAL_FORMAT, what=f"deck {deck_id}: lock.format")
    if set(mapping) != _LOCK_FIELDS:
        raise DeckCorruptedError(
            f"deck {deck_id}: lock header must have exactly the fields "
            f"{', '.join(sorted(_LOCK_FIELDS))}"
        )
    if mapping["aead"] != AEAD:
        raise DeckCorruptedError(
            f"deck {deck_id}: lock.aead is {show_value(mapping['aead'])}; expected {AEAD!r}"
        )
    kdf = check_kdf_params(mapping["kdf"])
    commit = decode_b64(mapping["commit"], what=f"{deck_id} lock.commit")
    if len(commit) != KEY_BYTES:
        raise DeckCorruptedError(
            f"deck corrupted: {deck_id} lock.commit is {len(commit)} bytes; expected {KEY_BYTES}"
        )
    revoked = mapping["revoked"]
    if not isinstance(revoked, list) or not all(isinstance(kid, str) for kid in revoked):
        raise DeckCorruptedError(f"deck {deck_id}: lock.revoked must be a list of quoted key ids")
    return LockHeader(
        kdf=kdf,
        commit=commit,
        revoked=frozenset(_parse_kid(kid, f"{deck_id} lock.revoked") for kid in revoked),
    )


def parse_keyslots(data: bytes, *, deck_id: str, release: int) -> dict[int, bytes]:
    """Parse and bound-check ``<deck>.keyslots.json`` into kid → 64-byte slot."""
    what = f"{deck_id}.keyslots.json"
    if len(data) > MAX_KEYSLOTS_BYTES:
        raise DeckCorruptedError(f"deck corrupted: {what} is {len(data)} bytes; at most 16 MiB")
    try:
        document = parse_json(data)
    except ValueError as error:
        raise DeckCorruptedError(
            f"deck corrupted: {what} is not valid JSON ({error}); reinstall the deck"
        ) from None
    if not isinstance(document, dict):
        raise DeckCorruptedError(f"deck corrupted: {what} is not a JSON object; reinstall the deck")
    _check_format(document.get("format"), KEYSLOTS_FORMAT, what=f"{what} format")
    if set(document) != _KEYSLOTS_FIELDS:
        raise DeckCorruptedError(
            f"deck corrupted: {what} must have exactly the fields deck, format, slots, version"
        )
    version = document["version"]
    if document["deck"] != deck_id or type(version) is not int or version != release:
        raise DeckCorruptedError(
            f"{what} is for {show_value(document['deck'])} v{show_value(version)}, "
            f"not {deck_id} v{release}; reinstall the deck"
        )
    slots = document["slots"]
    if not isinstance(slots, dict) or len(slots) > MAX_SLOTS:
        raise DeckCorruptedError(
            f"deck corrupted: {what} slots must be an object of at most {MAX_SLOTS} entries"
        )
    parsed = {}
    for text, encoded in slots.items():
        slot = decode_b64(encoded, what=f"{what} slot {show_value(text)}")
        if len(slot) != SLOT_BYTES:
            raise DeckCorruptedError(
                f"deck corrupted: {what} slot {show_value(text)} is {len(slot)} bytes, "
                f"not {SLOT_BYTES}"
            )
        parsed[_parse_kid(text, f"{what} slots")] = slot
    return parsed


def _check_format(value: object, expected: str, *, what: str) -> None:
    if value == expected:
        return
    match = _VERSIONED.fullmatch(value) if isinstance(value, str) else None
    if match and int(match.group(1)) > 1:
        raise SealError(
            f"{what} is {value}, which needs a newer infracards: pip install -U infracards"
        )
    raise DeckCorruptedError(
        f"deck corrupted: {what} is {show_value(value)}, expected {expected!r}; reinstall the deck"
    )


def _parse_kid(text: str, where: str) -> int:
    try:
        return parse_kid_text(text)
    except ValueError:
        raise DeckCorruptedError(
            f"deck corrupted: {where} holds {show_value(text)}, not a 4-symbol key id"
        ) from None


def open_release(
    *,
    header: LockHeader,
    slots: dict[int, bytes],
    deck_id: str,
    release: int,
    license_key: LicenseKey,
) -> bytes:
    """Recover K_R with exactly one Argon2id: slot lookup → KDF → unwrap → commit check."""
    where = f"{deck_id} v{release}"
    # Refused even if a stale slot was left in: the revoked list is the publisher's word.
    if license_key.kid in header.revoked:
        raise KeyRevokedError(
            f"card key {license_key.masked} was revoked for {where}; "
            "contact the seller for a new key"
        )
    slot = slots.get(license_key.kid)
    not_valid = KeyNotValidError(
        f"card key {license_key.masked} is not valid for {where}; "
        f"check it is the key sold for {deck_id}"
    )
    if slot is None:
        raise not_valid
    from cryptography.exceptions import InvalidTag  # with the KDF: the first use of it

    kek = derive_kek(license_key.secret, slot[:SALT_BYTES], deck_id, license_key.kid, header.kdf)
    try:
        release_key = unwrap_slot(kek, slot, deck_id, release, license_key.kid)
    except InvalidTag:
        raise not_valid from None
    check_commit(release_key, header.commit)
    return release_key


def verify_all_answers(
    release_key: bytes, deck_id: str, release: int, cards: list[tuple[str, str, bytes]]
) -> None:
    """Trial-decrypt every ``(card id, prompt, sealed)`` before anything is persisted."""
    for card_id, prompt, sealed in cards:
        open_answer(release_key, deck_id, release, card_id, prompt, sealed)
