"""Publishing and opening a release: test rows 9, 11, 12, 20, 25, 34 and slot bit flips."""

from __future__ import annotations

import base64
import copy
import functools
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infracards.errors import DeckCorruptedError, KeyNotValidError, KeyRevokedError, SealError
from infracards.seal import (
    PRODUCTION_KDF_PARAMS,
    TEST_KDF_PARAMS,
    IssuedKey,
    KdfParams,
    SealedRelease,
    format_license_key,
    issue_license_keys,
    kid_text,
    load_license,
    parse_keyslots,
    parse_license_key,
    parse_lock_header,
    save_license,
    seal_release,
)
from infracards.seal.crypto import derive_release_key

Unlock = Callable[..., bytes]


def test_a_valid_key_recovers_the_release_key_with_one_kdf(
    sealed: SealedRelease, issued: list[IssuedKey], unlock: Unlock, argon2_calls: list[int]
) -> None:
    assert unlock(sealed, issued[0].license_key) == derive_release_key(
        bytes(range(32)), "module03", 7
    )
    assert unlock(sealed, issued[1].license_key.lower()) == derive_release_key(
        bytes(range(32)), "module03", 7
    )
    assert argon2_calls == [8192, 8192]


def test_the_shipped_documents_have_the_documented_shape(
    sealed: SealedRelease, issued: list[IssuedKey]
) -> None:
    assert sealed.lock == {
        "format": "infracards-seal/v2",
        "aead": "aes-256-gcm",
        "kdf": {"alg": "argon2id", "memory_kib": 8192, "iterations": 1, "lanes": 1},
        "commit": sealed.lock["commit"],
        "revoked": [kid_text(issued[2].kid)],
        "sealed": [f"q{n:02d}" for n in range(3, 34)],
        "free": [],
    }
    assert sealed.keyslots["format"] == "infracards-keyslots/v1"
    assert (sealed.keyslots["deck"], sealed.keyslots["version"]) == ("module03", 7)
    slots = sealed.keyslots["slots"]
    assert isinstance(slots, dict)
    assert set(slots) == {kid_text(issued[0].kid), kid_text(issued[1].kid)}
    assert sorted(sealed.sealed) == [f"q{n:02d}" for n in range(3, 34)]


def test_an_unknown_kid_is_not_valid_for_this_release(
    sealed: SealedRelease, unlock: Unlock, argon2_calls: list[int]
) -> None:
    """Row 9: checksum-valid, no slot; no KDF is spent on it."""
    key = format_license_key(0x7ABCD, b"\x42" * 15)
    with pytest.raises(KeyNotValidError, match=r"not valid for module03 v7") as caught:
        unlock(sealed, key)
    assert parse_license_key(key).masked in str(caught.value)
    assert key.replace("-", "")[5:25] not in str(caught.value).replace("-", "")
    assert argon2_calls == []


def test_a_revoked_kid_says_revoked_and_leaves_the_license_alone(
    sealed: SealedRelease, issued: list[IssuedKey], unlock: Unlock, tmp_path: Path
) -> None:
    """Row 11."""
    home = tmp_path / "home"
    save_license(home, {"module03": issued[0].license_key})
    before = (home / "license.json").read_bytes()
    with pytest.raises(KeyRevokedError, match="revoked for module03 v7") as caught:
        unlock(sealed, issued[2].license_key)
    assert parse_license_key(issued[2].license_key).masked in str(caught.value)
    assert (home / "license.json").read_bytes() == before
    assert load_license(home) == {"module03": issued[0].license_key.replace("-", "")}


def test_a_revoked_kid_is_refused_even_with_a_stale_slot(
    master: bytes, issued: list[IssuedKey], unlock: Unlock
) -> None:
    release = seal_release(
        master=master,
        deck_id="module03",
        release=7,
        answers=[],
        keks={issued[0].kid: issued[0].kek},
        revoked=set(),
        params=TEST_KDF_PARAMS,
        test_params=True,
    )
    lock = {**release.lock, "revoked": [kid_text(issued[0].kid)]}
    with pytest.raises(KeyRevokedError):
        unlock(release, issued[0].license_key, lock=lock)


def test_a_forged_secret_costs_one_kdf_then_is_not_valid(
    sealed: SealedRelease, issued: list[IssuedKey], unlock: Unlock, argon2_calls: list[int]
) -> None:
    """Row 12: an issued kid with a made-up secret and a recomputed checksum."""
    forged = format_license_key(issued[0].kid, b"\x00" * 15)
    with pytest.raises(KeyNotValidError, match="not valid for module03 v7"):
        unlock(sealed, forged)
    assert argon2_calls == [8192]


def _flip(blob: bytes, bit: int) -> bytes:
    flipped = bytearray(blob)
    flipped[bit // 8] ^= 1 << (bit % 8)
    return bytes(flipped)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bit=st.integers(min_value=0, max_value=64 * 8 - 1))
def test_any_single_bit_flip_in_a_slot_is_not_valid(
    bit: int, sealed: SealedRelease, issued: list[IssuedKey], unlock: Unlock
) -> None:
    """Row 20: salt (bits 0..127), wrapped key or tag; damage looks like a wrong key."""
    kid = kid_text(issued[0].kid)
    keyslots = copy.deepcopy(sealed.keyslots)
    slots = keyslots["slots"]
    assert isinstance(slots, dict)
    slots[kid] = base64.b64encode(_flip(base64.b64decode(slots[kid]), bit)).decode()
    with pytest.raises(KeyNotValidError, match="not valid for module03 v7"):
        unlock(sealed, issued[0].license_key, keyslots=keyslots)


@pytest.mark.parametrize("bit", range(256))
def test_any_single_bit_flip_in_the_commit_is_corruption(
    bit: int, sealed: SealedRelease, issued: list[IssuedKey], unlock: Unlock
) -> None:
    """Row 20: commit."""
    commit = base64.b64decode(str(sealed.lock["commit"]))
    lock = {**sealed.lock, "commit": base64.b64encode(_flip(commit, bit)).decode()}
    with pytest.raises(DeckCorruptedError, match=r"lock\.commit"):
        unlock(sealed, issued[0].license_key, lock=lock)


def test_slots_from_another_release_do_not_open_this_one(
    seal: Callable[..., SealedRelease],
    make_answers: Callable[[int], list[tuple[str, str, bytes]]],
    sealed: SealedRelease,
    issued: list[IssuedKey],
    unlock: Unlock,
) -> None:
    v6 = seal(make_answers(6), 6)
    keyslots = {**v6.keyslots, "version": 7}
    with pytest.raises(KeyNotValidError):
        unlock(sealed, issued[0].license_key, keyslots=keyslots)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"memory_kib": 1024}, DeckCorruptedError, "memory_kib is 1024"),  # row 24
        ({"iterations": 100}, DeckCorruptedError, "iterations is 100"),
    ],
)
def test_kdf_params_below_the_floor_are_rejected_in_the_header(
    change: dict[str, object], error: type[Exception], message: str, sealed: SealedRelease
) -> None:
    lock = {**sealed.lock, "kdf": {**TEST_KDF_PARAMS.as_dict(), **change}}
    with pytest.raises(error, match=message):
        parse_lock_header(lock, deck_id="module03")


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"format": "infracards-seal/v3"}, SealError, "needs a newer infracards"),  # row 25
        ({"format": "infracards-seal/v3", "kdf": "scrypt", "new": 1}, SealError, "needs a newer"),
        ({"format": "infracards-seal/v1"}, SealError, "sealed by an older infracards"),
        ({"format": "infracards-seal/v0"}, SealError, "sealed by an older infracards"),
        ({"format": "other"}, DeckCorruptedError, "expected 'infracards-seal/v2'"),
        ({"format": None}, DeckCorruptedError, "lock.format is None"),
        ({"aead": "chacha20-poly1305"}, DeckCorruptedError, "lock.aead is 'chacha20-poly1305'"),
        ({"commit": "QR=="}, DeckCorruptedError, "not canonical base64"),
        ({"commit": "QQ=="}, DeckCorruptedError, "lock.commit is 1 bytes; expected 32"),
        ({"commit": 7}, DeckCorruptedError, "not base64 text"),
        ({"revoked": "7K3Q"}, DeckCorruptedError, "list of quoted key ids"),
        ({"revoked": [1234]}, DeckCorruptedError, "list of quoted key ids"),  # YAML `- 1234`
        ({"revoked": ["7K3U"]}, DeckCorruptedError, "'7K3U', not a 4-symbol key id"),
        ({"extra": True}, DeckCorruptedError, "exactly the fields"),
        ({"sealed": "q03"}, DeckCorruptedError, "lock.sealed must be a list of card ids"),
        ({"free": [3]}, DeckCorruptedError, "lock.free must be a list of card ids"),
        ({"free": ["q01", "q01"]}, DeckCorruptedError, "lists a card twice"),
        ({"free": ["q03"]}, DeckCorruptedError, "'q03' as both sealed and free"),
    ],
)
def test_lock_header_validation(
    change: dict[str, object], error: type[Exception], message: str, sealed: SealedRelease
) -> None:
    with pytest.raises(error, match=message):
        parse_lock_header({**sealed.lock, **change}, deck_id="module03")


def test_lock_header_must_be_a_mapping() -> None:
    with pytest.raises(DeckCorruptedError, match="not a mapping"):
        parse_lock_header(["format"], deck_id="module03")


def _keyslots(sealed: SealedRelease, **change: object) -> bytes:
    return json.dumps({**sealed.keyslots, **change}).encode()


@pytest.mark.parametrize(
    ("data", "error", "message"),
    [
        (b'{"format": NaN}', DeckCorruptedError, "NaN is not allowed"),  # row 34
        (b"[" * 100_000 + b"]" * 100_000, DeckCorruptedError, "nested too deeply"),
        (b'{"slots": {"0000": "a", "0000": "b"}}', DeckCorruptedError, "duplicate JSON key '0000'"),
        (b"\xff\xfe{", DeckCorruptedError, "not valid JSON"),
        (b"[]", DeckCorruptedError, "not a JSON object"),
        (b" " * (16 * 1024 * 1024 + 1), DeckCorruptedError, "at most 16 MiB"),
    ],
)
def test_hostile_keyslots_json_is_rejected(
    data: bytes, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        parse_keyslots(data, deck_id="module03", release=7)


def test_a_million_slots_are_rejected() -> None:
    """Row 34: 10⁶ slots (about 15 MB, under the byte cap) trip the 131,072-slot cap."""
    slots = ",".join(f'"{n:05d}":0' for n in range(1_000_000))
    data = (
        f'{{"format":"infracards-keyslots/v1","deck":"module03","version":7,"slots":{{{slots}}}}}'
    )
    with pytest.raises(DeckCorruptedError, match="at most 131072 entries"):
        parse_keyslots(data.encode(), deck_id="module03", release=7)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"format": "infracards-keyslots/v3"}, SealError, "needs a newer infracards"),
        ({"format": "infracards-seal/v1"}, DeckCorruptedError, "expected 'infracards-keyslots/v1'"),
        ({"deck": "module04"}, DeckCorruptedError, "is for 'module04' v7, not module03 v7"),
        ({"version": 6}, DeckCorruptedError, "v6, not module03 v7"),
        ({"version": 7.0}, DeckCorruptedError, "v7.0, not module03 v7"),
        ({"version": "7"}, DeckCorruptedError, "not module03 v7"),
        ({"slots": []}, DeckCorruptedError, "slots must be an object"),
        ({"slots": {"7K3Q": "QQ=="}}, DeckCorruptedError, "slot '7K3Q' is 1 bytes, not 64"),
        ({"slots": {"7K3Q": base64.b64encode(bytes(65)).decode()}}, DeckCorruptedError, "65 bytes"),
        ({"slots": {"7K3Q": "QR=="}}, DeckCorruptedError, "not canonical base64"),
        (
            {"slots": {"7k3q": base64.b64encode(bytes(64)).decode()}},
            DeckCorruptedError,
            "4-symbol key id",
        ),
        (
            {"slots": {"7K3QZ": base64.b64encode(bytes(64)).decode()}},
            DeckCorruptedError,
            "4-symbol",
        ),
        ({"extra": 1}, DeckCorruptedError, "exactly the fields"),
    ],
)
def test_keyslots_document_validation(
    change: dict[str, object], error: type[Exception], message: str, sealed: SealedRelease
) -> None:
    with pytest.raises(error, match=message):
        parse_keyslots(_keyslots(sealed, **change), deck_id="module03", release=7)


def test_keyslots_parse_to_64_byte_slots_by_kid(
    sealed: SealedRelease, issued: list[IssuedKey]
) -> None:
    slots = parse_keyslots(_keyslots(sealed), deck_id="module03", release=7)
    assert set(slots) == {issued[0].kid, issued[1].kid}
    assert {len(slot) for slot in slots.values()} == {64}


def test_issued_keys_have_random_distinct_kids_and_valid_checksums(master: bytes) -> None:
    keys = issue_license_keys(
        master=master,
        deck_id="module03",
        count=20,
        taken_kids={1, 2, 3},
        params=TEST_KDF_PARAMS,
        test_params=True,
    )
    kids = [key.kid for key in keys]
    assert len(set(kids)) == 20 and not {1, 2, 3} & set(kids)
    assert kids != sorted(kids)
    assert all(parse_license_key(key.license_key).kid == key.kid for key in keys)
    assert keys[0].kek.hex() not in repr(keys[0])
    assert keys[0].license_key not in repr(keys[0])


def test_issuing_skips_taken_kids(master: bytes) -> None:
    class Repeating:
        def __init__(self) -> None:
            self.values = iter([5, 5, 6, 7])

        def randbelow(self, exclusive_upper_bound: int, /) -> int:
            return next(self.values)

    keys = issue_license_keys(
        master=master,
        deck_id="module03",
        count=2,
        taken_kids={6},
        params=TEST_KDF_PARAMS,
        rng=Repeating(),
        test_params=True,
    )
    assert [key.kid for key in keys] == [5, 7]


def test_publisher_refuses_weak_kdf_params_without_test_params(master: bytes) -> None:
    with pytest.raises(SealError, match="below the OWASP minimum"):
        issue_license_keys(
            master=master, deck_id="module03", count=1, taken_kids=set(), params=TEST_KDF_PARAMS
        )
    with pytest.raises(SealError, match="below the OWASP minimum"):
        seal_release(
            master=master,
            deck_id="module03",
            release=1,
            answers=[],
            keks={},
            revoked=set(),
            params=TEST_KDF_PARAMS,
        )
    weak_for_clients = KdfParams(alg="argon2id", memory_kib=4096, iterations=10, lanes=1)
    with pytest.raises(DeckCorruptedError, match="memory_kib is 4096"):
        seal_release(
            master=master,
            deck_id="module03",
            release=1,
            answers=[],
            keks={},
            revoked=set(),
            params=weak_for_clients,
            test_params=True,
        )
    release = seal_release(
        master=master,
        deck_id="module03",
        release=1,
        answers=[],
        keks={},
        revoked=set(),
        params=PRODUCTION_KDF_PARAMS,
    )
    assert release.lock["kdf"] == {
        "alg": "argon2id",
        "memory_kib": 65536,
        "iterations": 3,
        "lanes": 1,
    }


def test_publisher_refuses_duplicate_cards_and_bad_release_numbers(master: bytes) -> None:
    seal = functools.partial(
        seal_release,
        master=master,
        deck_id="module03",
        keks={},
        revoked=set(),
        params=TEST_KDF_PARAMS,
        test_params=True,
    )
    with pytest.raises(SealError, match="q05 appears twice"):
        seal(release=1, answers=[("q05", "p", b"a"), ("q05", "p", b"b")])
    for bad in (0, -1, True):
        with pytest.raises(SealError, match="release must be a positive integer"):
            seal(release=bad, answers=[])
