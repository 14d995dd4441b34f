"""Sealing a deck release (publisher) and opening it with a card key (learner), on plain values.

Deck files are parsed elsewhere; this module takes the ``lock`` mapping, the keyslots bytes and
the sealed blobs and does the §1.6 checks in order, so one failure reports one clear cause.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
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
from infracards.seal.encoding import decode_b64, enc, encode_b64, parse_json, show_value
from infracards.seal.license_key import (
    MAX_KID,
    LicenseKey,
    format_license_key,
    kid_text,
    parse_kid_text,
)

SEAL_FORMAT = "infracards-seal/v2"
"""v2: the lock header lists the sealed and the free cards, and its commit binds them."""
KEYSLOTS_FORMAT = "infracards-keyslots/v1"
AEAD = "aes-256-gcm"
MAX_KEYSLOTS_BYTES = 16 * 1024 * 1024
MAX_SLOTS = 131_072
TEST_KDF_PARAMS = KdfParams(alg="argon2id", memory_kib=8192, iterations=1, lanes=1)
PRODUCTION_KDF_PARAMS = KdfParams(alg="argon2id", memory_kib=65536, iterations=3, lanes=1)
# OWASP Password Storage Cheat Sheet, Argon2id with p=1: minimum memory for each t (t ≥ 5: 7 MiB).
_OWASP_MIN_MEMORY_KIB = {1: 47104, 2: 19456, 3: 12288, 4: 9216}
_LOCK_FIELDS = frozenset({"format", "aead", "kdf", "commit", "revoked", "sealed", "free"})
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
class CardLabels:
    """Which cards of a release are sealed and which are free: what its lock header commits to.

    Relabelling a card (a sealed answer replaced by a free "answer", or a free card added)
    changes these, and the release then fails its key check: "deck corrupted".
    """

    sealed: frozenset[str]
    free: frozenset[str]

    def encoded(self, deck_id: str, release: int) -> bytes:
        """What the commit's HMAC covers: deck, release and both sorted lists, length-prefixed."""
        sealed, free = sorted(self.sealed), sorted(self.free)
        return enc("infracards/v2/cards", deck_id, release, len(sealed), *sealed, len(free), *free)


@dataclass(frozen=True, slots=True)
class LockHeader:
    """A validated ``lock`` header: KDF cost within client bounds, commit, revoked kids, and
    the card ids it says are sealed and free."""

    kdf: KdfParams
    commit: bytes
    revoked: frozenset[int]
    labels: CardLabels


def seal_release(
    *,
    master: bytes,
    deck_id: str,
    release: int,
    answers: list[tuple[str, str, bytes]],
    keks: dict[int, bytes],
    revoked: set[int],
    params: KdfParams,
    free: Sequence[str] = (),
    test_params: bool = False,
) -> SealedRelease:
    """Seal ``(card id, prompt, plaintext)`` answers; one slot per cached, non-revoked KEK.

    ``free`` are the release's other cards, whose answers ship in the clear: the header lists
    and commits to both sets. ``params`` go into the header as is, so ``keks`` must have been
    derived with them.
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
    labels = CardLabels(sealed=frozenset(sealed), free=frozenset(free))
    if labels.sealed & labels.free:
        raise SealError(f"card id {min(labels.sealed & labels.free)} is both sealed and free")
    lock: dict[str, object] = {
        "format": SEAL_FORMAT,
        "aead": AEAD,
        "kdf": params.as_dict(),
        "commit": encode_b64(commit_value(release_key, labels.encoded(deck_id, release))),
        "revoked": [kid_text(kid) for kid in sorted(revoked)],
        "sealed": sorted(labels.sealed),
        "free": sorted(labels.free),
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
    labels = CardLabels(
        sealed=_card_ids(mapping["sealed"], f"deck {deck_id}: lock.sealed"),
        free=_card_ids(mapping["free"], f"deck {deck_id}: lock.free"),
    )
    if labels.sealed & labels.free:
        raise DeckCorruptedError(
            f"deck corrupted: {deck_id}'s lock header lists "
            f"{show_value(min(labels.sealed & labels.free))} as both sealed and free"
        )
    return LockHeader(
        kdf=kdf,
        commit=commit,
        revoked=frozenset(_parse_kid(kid, f"{deck_id} lock.revoked") for kid in revoked),
        labels=labels,
    )


def _card_ids(value: object, what: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(card_id, str) for card_id in value):
        raise DeckCorruptedError(f"deck corrupted: {what} must be a list of card ids")
    if len(set(value)) != len(value):
        raise DeckCorruptedError(f"deck corrupted: {what} lists a card twice")
    return frozenset(value)


def check_labels(header: LockHeader, labels: CardLabels, *, deck_id: str) -> None:
    """The cards a release has, sealed and free, must be those its lock header lists.

    Checked when a deck is added (a sealed card turned free by an edit is refused there) and
    again when a release is opened, against the store's cards, however they were stored.
    """
    if labels == header.labels:
        return
    listed = header.labels
    in_deck, in_header = labels.sealed | labels.free, listed.sealed | listed.free
    problems = [
        (listed.sealed & labels.free, "free in the deck but sealed in its lock header"),
        (listed.free & labels.sealed, "sealed in the deck but free in its lock header"),
        (in_deck - in_header, "in the deck but not in its lock header"),
        (in_header - in_deck, "in its lock header but not in the deck"),
    ]
    card_ids, problem = next((ids, problem) for ids, problem in problems if ids)
    raise DeckCorruptedError(
        f"deck corrupted: {deck_id} card {show_value(min(card_ids))} is {problem}; "
        "reinstall the deck"
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
    ours = int(expected.rsplit("/v", 1)[1])
    if match and int(match.group(1)) > ours:
        raise SealError(
            f"{what} is {value}, which needs a newer infracards: pip install -U infracards"
        )
    if match and int(match.group(1)) < ours:
        raise SealError(
            f"{what} is {value}: sealed by an older infracards, whose lock header does not "
            "protect which answers are sealed; ask the deck's publisher to seal it again"
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
    labels: CardLabels,
) -> bytes:
    """Recover K_R with exactly one Argon2id: labels → slot lookup → KDF → unwrap → commit.

    ``labels`` are the release's cards as they are here (sealed, free): they must be the ones
    the header lists, and the commit proves the header's lists are the publisher's.
    """
    where = f"{deck_id} v{release}"
    check_labels(header, labels, deck_id=deck_id)
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
    check_commit(release_key, header.commit, header.labels.encoded(deck_id, release))
    return release_key


def verify_all_answers(
    release_key: bytes, deck_id: str, release: int, cards: list[tuple[str, str, bytes]]
) -> None:
    """Trial-decrypt every ``(card id, prompt, sealed)`` before anything is persisted."""
    for card_id, prompt, sealed in cards:
        open_answer(release_key, deck_id, release, card_id, prompt, sealed)
