"""Key hierarchy of sealing.md §1.1: one publisher secret, HKDF, Argon2id, AES-256-GCM.

Every input to a KDF or AEAD goes through ``enc`` with an ``infracards/v1/...`` label, so
no value derived for one purpose can be replayed for another.

``cryptography`` (~10 ms to import) is imported by the functions that derive, seal and open:
checking a deck's lock header and key slots, as `infracards status` does, needs none of it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from infracards.errors import DeckCorruptedError, SealError
from infracards.seal.encoding import enc, show_value

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MASTER_BYTES = 32
KEY_BYTES = 32
SALT_BYTES = 16
NONCE_BYTES = 12
TAG_BYTES = 16
SLOT_BYTES = SALT_BYTES + KEY_BYTES + TAG_BYTES
SEALED_MIN_BYTES = NONCE_BYTES + TAG_BYTES
SEALED_MAX_BYTES = 64 * 1024
PAD_BUCKET = 256
_PAD_MARK = b"\x80"
_KDF_FIELDS = ("alg", "memory_kib", "iterations", "lanes")


@dataclass(frozen=True, slots=True)
class KdfParams:
    """Argon2id cost, as written in the lock header and bounded by ``check_kdf_params``."""

    alg: str
    memory_kib: int
    iterations: int
    lanes: int

    def as_dict(self) -> dict[str, str | int]:
        """The ``lock.kdf`` mapping, in header field order."""
        return {
            "alg": self.alg,
            "memory_kib": self.memory_kib,
            "iterations": self.iterations,
            "lanes": self.lanes,
        }


def derive_release_key(master: bytes, deck_id: str, release: int) -> bytes:
    """K_R: one content key per (deck line, release), re-derivable, never stored by the client."""
    if len(master) != MASTER_BYTES:
        raise SealError(f"publisher secret must be {MASTER_BYTES} bytes, got {len(master)}")
    return _hkdf(master, enc("infracards/v1/content", deck_id, release))


def card_secret(master: bytes, deck_id: str, kid: int) -> bytes:
    """The 120-bit secret inside card key ``kid``; the publisher can always recompute it."""
    return hmac.digest(master, enc("infracards/v1/card", deck_id, kid), "sha256")[:15]


def card_salt(master: bytes, deck_id: str, kid: int) -> bytes:
    """Argon2id salt for card key ``kid``: fixed, so the publisher's cached KEK stays valid."""
    return hmac.digest(master, enc("infracards/v1/salt", deck_id, kid), "sha256")[:SALT_BYTES]


def check_kdf_params(mapping: object) -> KdfParams:
    """Apply the client bounds of §1.4 so a hostile header cannot exhaust memory or CPU."""
    if not isinstance(mapping, Mapping) or set(mapping) != set(_KDF_FIELDS):
        raise DeckCorruptedError(
            f"deck lock header: kdf must have exactly the fields {', '.join(_KDF_FIELDS)}"
        )
    if mapping["alg"] != "argon2id":
        raise DeckCorruptedError(
            f"deck lock header: kdf.alg is {show_value(mapping['alg'])}; "
            "only 'argon2id' is supported"
        )
    memory_kib = _bounded_int(mapping, "memory_kib", 8192, 262_144)
    iterations = _bounded_int(mapping, "iterations", 1, 8)
    lanes = _bounded_int(mapping, "lanes", 1, 4)
    if memory_kib * iterations > 1_048_576:
        raise DeckCorruptedError(
            f"deck lock header: kdf.memory_kib × kdf.iterations is {memory_kib * iterations}; "
            "at most 1048576"
        )
    ram_kib = _physical_memory_kib()
    if ram_kib is not None and memory_kib > ram_kib // 2:
        raise DeckCorruptedError(
            f"deck lock header: kdf needs {memory_kib // 1024} MiB, more than half "
            f"of this machine's {ram_kib // 1024} MiB of RAM"
        )
    return KdfParams(alg="argon2id", memory_kib=memory_kib, iterations=iterations, lanes=lanes)


def _bounded_int(mapping: Mapping[object, object], name: str, low: int, high: int) -> int:
    value = mapping[name]
    # bool is an int subclass: `memory_kib: yes` must not pass as 1.
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise DeckCorruptedError(
            f"deck lock header: kdf.{name} is {show_value(value)}; allowed integers {low}..{high}"
        )
    return value


def _physical_memory_kib() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 1024
    except (AttributeError, ValueError, OSError):  # not measurable (Windows, some containers)
        return None


def derive_kek(secret: bytes, salt: bytes, deck_id: str, kid: int, params: KdfParams) -> bytes:
    """KEK_i = Argon2id(secret_i, salt_i): the single expensive step of an unlock."""
    if len(salt) != SALT_BYTES:
        raise DeckCorruptedError(f"key slot salt is {len(salt)} bytes; expected {SALT_BYTES}")
    from cryptography.exceptions import UnsupportedAlgorithm

    try:
        # Imported here: cryptography < 44 has no argon2 module at all.
        from cryptography.hazmat.primitives.kdf.argon2 import Argon2id

        kdf = Argon2id(
            salt=salt,
            length=KEY_BYTES,
            iterations=params.iterations,
            lanes=params.lanes,
            memory_cost=params.memory_kib,
            ad=enc("infracards/v1/kek", deck_id, kid),
        )
        return kdf.derive(secret)
    except (ImportError, UnsupportedAlgorithm):
        raise SealError(
            "this 'cryptography' build has no Argon2id (distro packages on OpenSSL 3.0 lack it); "
            "install cryptography>=44 from PyPI: pip install -U 'cryptography>=44'"
        ) from None


def wrap_slot(
    kek: bytes, release_key: bytes, deck_id: str, release: int, kid: int, salt: bytes
) -> bytes:
    """Key slot = salt ‖ AES-GCM(KEK, K_R): 64 bytes that let card key ``kid`` recover K_R."""
    nonce = _slot_nonce(deck_id, release, kid)
    body = _aead(kek).encrypt(nonce, release_key, enc("infracards/v1/slot", deck_id, release, kid))
    return salt + body


def unwrap_slot(kek: bytes, slot: bytes, deck_id: str, release: int, kid: int) -> bytes:
    """Recover K_R; raises ``InvalidTag`` for a wrong key or a damaged slot (AES-GCM can't tell)."""
    if len(slot) != SLOT_BYTES:
        raise DeckCorruptedError(f"key slot is {len(slot)} bytes; expected {SLOT_BYTES}")
    nonce = _slot_nonce(deck_id, release, kid)
    return _aead(kek).decrypt(
        nonce, slot[SALT_BYTES:], enc("infracards/v1/slot", deck_id, release, kid)
    )


def _slot_nonce(deck_id: str, release: int, kid: int) -> bytes:
    # Public and unique per (kid, release); KEK_i is per card key, so (key, nonce) never repeats.
    return hashlib.sha256(enc("infracards/v1/slot-nonce", deck_id, release, kid)).digest()[
        :NONCE_BYTES
    ]


def seal_answer(
    release_key: bytes,
    deck_id: str,
    release: int,
    card_id: str,
    prompt: str,
    plaintext: bytes,
    *,
    bucket: int = PAD_BUCKET,
) -> bytes:
    """nonce ‖ AES-GCM(padded plaintext), bound to deck, release, card id and prompt.

    The nonce is an HMAC of AD ‖ padded plaintext (SIV-style): re-sealing is byte-identical
    and an edited answer gets a fresh nonce. Padding is 0x80 then zeros, always present, so
    the reader strips it without knowing ``bucket`` (``bucket=1`` only adds the marker).
    """
    padded = plaintext + _PAD_MARK
    padded += bytes(-len(padded) % bucket)
    if len(padded) + SEALED_MIN_BYTES > SEALED_MAX_BYTES:
        raise SealError(
            f"answer {card_id} is {len(plaintext)} bytes; "
            "a sealed answer holds at most about 64 KiB"
        )
    ad = _answer_ad(deck_id, release, card_id, prompt)
    nonce = hmac.digest(_subkey(release_key, "nonce"), ad + padded, "sha256")[:NONCE_BYTES]
    return nonce + _aead(_subkey(release_key, "aead")).encrypt(nonce, padded, ad)


def open_answer(
    release_key: bytes, deck_id: str, release: int, card_id: str, prompt: str, sealed: bytes
) -> bytes:
    """Decrypt one sealed answer; any size, tag or padding failure is "deck corrupted at q17"."""
    corrupted = DeckCorruptedError(
        f"deck corrupted at {card_id}: its sealed answer fails the check; reinstall the deck"
    )
    if not SEALED_MIN_BYTES <= len(sealed) <= SEALED_MAX_BYTES:
        raise corrupted
    from cryptography.exceptions import InvalidTag

    ad = _answer_ad(deck_id, release, card_id, prompt)
    try:
        padded = _aead(_subkey(release_key, "aead")).decrypt(
            sealed[:NONCE_BYTES], sealed[NONCE_BYTES:], ad
        )
    except InvalidTag:
        raise corrupted from None
    plaintext = padded.rstrip(b"\x00")
    if not plaintext.endswith(_PAD_MARK):
        raise corrupted
    return plaintext[: -len(_PAD_MARK)]


def _answer_ad(deck_id: str, release: int, card_id: str, prompt: str) -> bytes:
    prompt_hash = hashlib.sha256(prompt.encode("utf-8")).digest()
    return enc("infracards/v1/answer", deck_id, release, card_id, prompt_hash)


def commit_value(release_key: bytes, cards: bytes) -> bytes:
    """commit_R, shipped in the lock header: an HMAC under a key only K_R gives, of ``cards``
    (the release's sealed and free card ids, ``enc``-encoded). It proves an unwrapped key is
    the release's key, and that no card was relabelled (a sealed one made free, or back).

    The subkey is not the one seal v1 shipped as its commit (HKDF(K_R, "commit")): that
    value is public in v1 headers, and must not be able to forge a v2 commit."""
    return hmac.digest(_subkey(release_key, "cards-commit"), cards, "sha256")


def check_commit(release_key: bytes, commit: bytes, cards: bytes) -> None:
    """Raise ``DeckCorruptedError`` unless ``release_key`` and ``cards`` match the commit."""
    if not hmac.compare_digest(commit_value(release_key, cards), commit):
        raise DeckCorruptedError(
            "deck corrupted: the key check (lock.commit) does not match the key slots or the "
            "cards the lock header lists as sealed and free; reinstall the deck"
        )


def _subkey(release_key: bytes, purpose: str) -> bytes:
    return _hkdf(release_key, enc(f"infracards/v1/{purpose}"))


def _hkdf(key: bytes, info: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None, info=info).derive(key)


def _aead(key: bytes) -> AESGCM:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM(key)
