"""Answer sealing and KDF bounds: test rows 14, 15, 16, 18, 24, 44 and round-trip properties."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.kdf import argon2
from hypothesis import given
from hypothesis import strategies as st

from infracards.errors import DeckCorruptedError, SealError
from infracards.seal import (
    TEST_KDF_PARAMS,
    SealedRelease,
    check_kdf_params,
    open_answer,
    parse_keyslots,
    seal_answer,
    verify_all_answers,
)
from infracards.seal.crypto import (
    check_commit,
    commit_value,
    derive_kek,
    derive_release_key,
)

Answers = list[tuple[str, str, bytes]]
KEY = derive_release_key(bytes(range(32)), "module03", 7)
PROMPT = "Why does ring all-reduce send 2(N-1)/N of the data?"


def seal_q17(plaintext: bytes, **kwargs: Any) -> bytes:
    return seal_answer(KEY, "module03", 7, "q17", PROMPT, plaintext, **kwargs)


def open_q17(sealed: bytes) -> bytes:
    return open_answer(KEY, "module03", 7, "q17", PROMPT, sealed)


@given(
    plaintext=st.binary(max_size=2000),
    card_id=st.from_regex(r"q[0-9]{2,3}", fullmatch=True),
    prompt=st.text(max_size=200),
    release=st.integers(min_value=1, max_value=10**6),
)
def test_seal_then_open_round_trips(
    plaintext: bytes, card_id: str, prompt: str, release: int
) -> None:
    sealed = seal_answer(KEY, "module03", release, card_id, prompt, plaintext)
    assert open_answer(KEY, "module03", release, card_id, prompt, sealed) == plaintext


@given(st.binary(max_size=700), st.integers(min_value=1, max_value=512))
def test_lengths_leak_only_the_bucket(plaintext: bytes, bucket: int) -> None:
    sealed = seal_q17(plaintext, bucket=bucket)
    assert (len(sealed) - 28) % bucket == 0
    assert len(sealed) - 28 > len(plaintext)  # the 0x80 marker is always there
    assert open_q17(sealed) == plaintext


def test_default_bucket_is_256_bytes() -> None:
    assert {len(seal_q17(b"x" * n)) for n in (0, 100, 255)} == {28 + 256}
    assert len(seal_q17(b"x" * 256)) == 28 + 512


def test_an_answer_too_large_to_seal_is_refused() -> None:
    with pytest.raises(SealError, match="q17 is 65536 bytes"):
        seal_q17(b"x" * 65536)


@given(st.binary(max_size=600), st.data())
def test_any_single_bit_flip_in_a_sealed_blob_is_rejected(
    plaintext: bytes, data: st.DataObject
) -> None:
    """Row 15: nonce, ciphertext or tag."""
    sealed = bytearray(seal_q17(plaintext))
    bit = data.draw(st.integers(min_value=0, max_value=len(sealed) * 8 - 1))
    sealed[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(DeckCorruptedError, match="deck corrupted at q17"):
        open_q17(bytes(sealed))


@pytest.mark.parametrize(
    "cut",
    [
        lambda b: b[:27],  # shorter than nonce + tag
        lambda b: b"",
        lambda b: b[:-1],  # last byte cut
        lambda b: b[:28],
        lambda b: b + b"\x00",
        lambda b: b + bytes(65536),  # over 64 KiB: refused before decrypting
    ],
)
def test_a_truncated_or_extended_blob_reports_the_card(cut: Callable[[bytes], bytes]) -> None:
    """Row 14."""
    with pytest.raises(DeckCorruptedError, match="deck corrupted at q17"):
        open_q17(cut(seal_q17(b"answer")))


def test_verify_all_answers_names_the_first_bad_card(
    sealed: SealedRelease, cards: list[tuple[str, str, bytes]]
) -> None:
    release_key = derive_release_key(bytes(range(32)), "module03", 7)
    verify_all_answers(release_key, "module03", 7, cards)
    damaged = [(c, p, b[:-1] if c == "q17" else b) for c, p, b in cards]
    with pytest.raises(DeckCorruptedError, match="deck corrupted at q17"):
        verify_all_answers(release_key, "module03", 7, damaged)


def test_blobs_swapped_between_cards_fail(
    sealed: SealedRelease, cards: list[tuple[str, str, bytes]]
) -> None:
    """Row 16: q05's blob under q06 (and vice versa), and a prompt swapped between cards."""
    release_key = derive_release_key(bytes(range(32)), "module03", 7)
    by_id = {card_id: (prompt, blob) for card_id, prompt, blob in cards}
    with pytest.raises(DeckCorruptedError, match="at q06"):
        open_answer(release_key, "module03", 7, "q06", by_id["q06"][0], by_id["q05"][1])
    with pytest.raises(DeckCorruptedError, match="at q05"):
        open_answer(release_key, "module03", 7, "q05", by_id["q05"][0], by_id["q06"][1])
    with pytest.raises(DeckCorruptedError, match="at q05"):
        open_answer(release_key, "module03", 7, "q05", by_id["q06"][0], by_id["q05"][1])


def test_a_blob_from_another_release_or_deck_fails(
    seal: Callable[[Answers, int], SealedRelease], make_answers: Callable[[int], Answers]
) -> None:
    """Row 18: v6's blob in v7, even with v7's key material for everything else."""
    v6 = seal(make_answers(6), 6)
    prompt = dict((c, p) for c, p, _ in make_answers(6))["q17"]
    blob = base64.b64decode(v6.sealed["q17"])
    v7_key = derive_release_key(bytes(range(32)), "module03", 7)
    with pytest.raises(DeckCorruptedError, match="at q17"):
        open_answer(v7_key, "module03", 7, "q17", prompt, blob)
    with pytest.raises(DeckCorruptedError, match="at q17"):  # right key, wrong release in the AD
        v6_key = derive_release_key(bytes(range(32)), "module03", 6)
        open_answer(v6_key, "module03", 7, "q17", prompt, blob)
    other_deck = derive_release_key(bytes(range(32)), "module04", 6)
    with pytest.raises(DeckCorruptedError, match="at q17"):
        open_answer(other_deck, "module04", 6, "q17", prompt, blob)


def test_resealing_is_byte_identical_and_an_edit_changes_only_its_blob(
    seal: Callable[[Answers, int], SealedRelease], make_answers: Callable[[int], Answers]
) -> None:
    """Row 44, first half: reproducible builds and minimal diffs."""
    answers = make_answers(7)
    assert seal(answers, 7) == seal(make_answers(7), 7)
    edited = [(c, p, a + b" (edited)" if c == "q20" else a) for c, p, a in answers]
    before, after = seal(answers, 7), seal(edited, 7)
    changed = {c for c in before.sealed if before.sealed[c] != after.sealed[c]}
    assert changed == {"q20"}
    assert (before.lock, before.keyslots) == (after.lock, after.keyslots)


def test_no_key_nonce_pair_repeats_across_releases(
    seal: Callable[[Answers, int], SealedRelease], make_answers: Callable[[int], Answers]
) -> None:
    """Row 44, second half: the same answers sealed as R and R+1."""
    answers = make_answers(7)
    releases = [seal(answers, 7), seal(answers, 8)]
    keys = {derive_release_key(bytes(range(32)), "module03", r.release) for r in releases}
    nonces = [base64.b64decode(b)[:12] for r in releases for b in r.sealed.values()]
    assert len(keys) == 2
    assert len(set(nonces)) == len(nonces) == 62
    slot_bodies = [
        slot[16:]
        for r in releases
        for slot in parse_keyslots(
            json.dumps(r.keyslots).encode(), deck_id="module03", release=r.release
        ).values()
    ]
    assert len(set(slot_bodies)) == len(slot_bodies) == 4


def test_commit_check_is_a_digest_comparison() -> None:
    cards = b"sealed and free card ids"
    check_commit(KEY, commit_value(KEY, cards), cards)
    other = derive_release_key(bytes(range(32)), "module03", 8)
    with pytest.raises(DeckCorruptedError, match=r"lock\.commit"):
        check_commit(other, commit_value(KEY, cards), cards)
    with pytest.raises(DeckCorruptedError, match=r"lock\.commit"):  # relabelled cards
        check_commit(KEY, commit_value(KEY, cards), cards + b"!")


def test_release_keys_depend_on_deck_and_release() -> None:
    master = os.urandom(32)
    keys = {derive_release_key(master, d, r) for d in ("module03", "module04") for r in (1, 2)}
    assert len(keys) == 4
    with pytest.raises(SealError, match="32 bytes"):
        derive_release_key(master[:16], "module03", 1)


VALID_KDF = {"alg": "argon2id", "memory_kib": 65536, "iterations": 3, "lanes": 1}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"memory_kib": 1024}, "memory_kib is 1024; allowed integers 8192..262144"),  # row 24
        ({"memory_kib": 262_145}, "memory_kib is 262145"),
        ({"memory_kib": 65536.0}, "memory_kib is 65536.0"),
        ({"memory_kib": "65536"}, "memory_kib is '65536'"),
        ({"memory_kib": 2**4000}, "memory_kib is a very large integer"),
        ({"iterations": True}, "iterations is True"),  # YAML `yes`
        ({"iterations": 0}, "iterations is 0"),
        ({"iterations": 9}, "iterations is 9"),
        ({"lanes": 5}, "lanes is 5"),
        ({"memory_kib": 262_144, "iterations": 5}, "at most 1048576"),
        ({"alg": "argon2i"}, "kdf.alg is 'argon2i'"),
        ({"alg": "scrypt"}, "only 'argon2id'"),
        ({"salt": "x"}, "exactly the fields"),
    ],
)
def test_kdf_bounds_reject_hostile_headers(change: dict[str, object], message: str) -> None:
    with pytest.raises(DeckCorruptedError, match=message):
        check_kdf_params({**VALID_KDF, **change})


def test_kdf_bounds_accept_production_and_test_params() -> None:
    assert check_kdf_params(VALID_KDF).memory_kib == 65536
    assert check_kdf_params(TEST_KDF_PARAMS.as_dict()) == TEST_KDF_PARAMS
    with pytest.raises(DeckCorruptedError, match="exactly the fields"):
        check_kdf_params([("alg", "argon2id")])


def test_kdf_memory_is_capped_at_half_the_ram(monkeypatch: pytest.MonkeyPatch) -> None:
    pages = {"SC_PHYS_PAGES": 24_000, "SC_PAGE_SIZE": 4096}  # a 94 MiB machine
    monkeypatch.setattr(os, "sysconf", lambda name: pages[name])
    with pytest.raises(
        DeckCorruptedError, match="needs 64 MiB, more than half of this machine's 93 MiB"
    ):
        check_kdf_params(VALID_KDF)
    assert check_kdf_params({**VALID_KDF, "memory_kib": 32768}).memory_kib == 32768


def test_ram_that_cannot_be_measured_does_not_block(monkeypatch: pytest.MonkeyPatch) -> None:
    def unknown(name: str) -> int:
        raise ValueError(name)

    monkeypatch.setattr(os, "sysconf", unknown)
    assert check_kdf_params(VALID_KDF).memory_kib == 65536


def test_missing_argon2id_asks_for_a_pypi_cryptography(monkeypatch: pytest.MonkeyPatch) -> None:
    def unsupported(**_kwargs: Any) -> argon2.Argon2id:
        raise UnsupportedAlgorithm("Argon2id is not supported by this version of OpenSSL.")

    monkeypatch.setattr(argon2, "Argon2id", unsupported)
    with pytest.raises(SealError, match=r"cryptography>=44 from PyPI"):
        derive_kek(b"\x00" * 15, b"\x00" * 16, "module03", 1, TEST_KDF_PARAMS)


def test_kek_depends_on_deck_kid_and_salt() -> None:
    def kek(deck: str = "module03", kid: int = 1, salt: bytes = bytes(16)) -> bytes:
        return derive_kek(b"\x01" * 15, salt, deck, kid, TEST_KDF_PARAMS)

    assert len({kek(), kek(deck="module04"), kek(kid=2), kek(salt=b"\x01" * 16)}) == 4
    with pytest.raises(DeckCorruptedError, match="salt is 15 bytes"):
        kek(salt=bytes(15))
