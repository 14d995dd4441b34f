"""Fixtures for the seal layer: one throwaway publisher secret, three issued keys, one release.

Everything is sealed for deck ``module03`` release 7 with ``TEST_KDF_PARAMS`` (8 MiB, t=1).
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable
from typing import Any, Protocol

import pytest
from cryptography.hazmat.primitives.kdf import argon2

from infracards.seal import (
    TEST_KDF_PARAMS,
    CardLabels,
    IssuedKey,
    SealedRelease,
    issue_license_keys,
    open_release,
    parse_keyslots,
    parse_license_key,
    parse_lock_header,
    seal_release,
)

Answers = list[tuple[str, str, bytes]]


class Unlock(Protocol):
    def __call__(
        self,
        release: SealedRelease,
        typed: str,
        *,
        lock: dict[str, object] | None = None,
        keyslots: dict[str, object] | None = None,
    ) -> bytes: ...


class SeededKids:
    """A reproducible stand-in for ``secrets`` so the issued kids are the same every run."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def randbelow(self, exclusive_upper_bound: int, /) -> int:
        return self._random.randrange(exclusive_upper_bound)


def _make_answers(release: int) -> Answers:
    return [
        (
            f"q{n:02d}",
            f"Question {n}: how does ZeRO-{n % 3 + 1} shard optimizer state?",
            (f"CANARY-{n}-v{release} 答案 " + "all-reduce / reduce-scatter. " * 100).encode(),
        )
        for n in range(3, 34)
    ]


@pytest.fixture(scope="session")
def make_answers() -> Callable[[int], Answers]:
    """31 locked answers (q03..q33) of about 3 KB with per-release canaries; prompts are fixed."""
    return _make_answers


@pytest.fixture(scope="session")
def master() -> bytes:
    return bytes(range(32))


@pytest.fixture(scope="session")
def issued(master: bytes) -> list[IssuedKey]:
    """Three keys; the third one is revoked by ``seal``."""
    return issue_license_keys(
        master=master,
        deck_id="module03",
        count=3,
        taken_kids=set(),
        params=TEST_KDF_PARAMS,
        rng=SeededKids(1234),
        test_params=True,
    )


@pytest.fixture(scope="session")
def seal(master: bytes, issued: list[IssuedKey]) -> Callable[[Answers, int], SealedRelease]:
    """Seal ``answers`` as module03 ``release``; slots for all issued keys but the third."""

    def seal_answers(answers: Answers, release: int) -> SealedRelease:
        return seal_release(
            master=master,
            deck_id="module03",
            release=release,
            answers=answers,
            keks={key.kid: key.kek for key in issued},
            revoked={issued[2].kid},
            params=TEST_KDF_PARAMS,
            test_params=True,
        )

    return seal_answers


@pytest.fixture(scope="session")
def sealed(seal: Callable[[Answers, int], SealedRelease]) -> SealedRelease:
    return seal(_make_answers(7), 7)


@pytest.fixture(scope="session")
def cards(sealed: SealedRelease) -> list[tuple[str, str, bytes]]:
    """(card id, prompt, sealed bytes) of release 7, as the deck layer hands them over."""
    prompts = {card_id: prompt for card_id, prompt, _ in _make_answers(7)}
    return [
        (card_id, prompts[card_id], base64.b64decode(b)) for card_id, b in sealed.sealed.items()
    ]


@pytest.fixture(scope="session")
def unlock() -> Unlock:
    """The layer's part of §1.6: normalize, checksum, parse header and slots, open the release."""

    def run(
        release: SealedRelease,
        typed: str,
        *,
        lock: dict[str, object] | None = None,
        keyslots: dict[str, object] | None = None,
    ) -> bytes:
        license_key = parse_license_key(typed)
        header = parse_lock_header(release.lock if lock is None else lock, deck_id="module03")
        data = json.dumps(release.keyslots if keyslots is None else keyslots).encode()
        slots = parse_keyslots(data, deck_id="module03", release=release.release)
        return open_release(
            header=header,
            slots=slots,
            deck_id="module03",
            release=release.release,
            license_key=license_key,
            labels=CardLabels(sealed=frozenset(release.sealed), free=frozenset()),
        )

    return run


@pytest.fixture
def argon2_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts Argon2id derivations (by memory cost) while still running them."""
    real = argon2.Argon2id
    calls: list[int] = []

    def counting(**kwargs: Any) -> argon2.Argon2id:
        calls.append(kwargs["memory_cost"])
        return real(**kwargs)

    monkeypatch.setattr(argon2, "Argon2id", counting)
    return calls


@pytest.fixture
def forbid_argon2(monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes any Argon2id use fail the test."""

    def refuse(**_kwargs: Any) -> argon2.Argon2id:
        raise AssertionError("Argon2id must not run here")

    monkeypatch.setattr(argon2, "Argon2id", refuse)
