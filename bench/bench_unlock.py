"""Print the cost of one production unlock and of opening 31 answers afterwards.

Run: PYTHONPATH=src python bench/bench_unlock.py   (prints numbers; asserts nothing)
"""

from __future__ import annotations

import base64
import json
import secrets
import time

from infracards.seal import (
    PRODUCTION_KDF_PARAMS,
    issue_license_keys,
    open_answer,
    open_release,
    parse_keyslots,
    parse_license_key,
    parse_lock_header,
    seal_release,
)

DECK = "module03"
RELEASE = 7


def main() -> None:
    """Seal 31 answers of ~3 KB under a throwaway secret, then time the learner's side."""
    master = secrets.token_bytes(32)  # throwaway: nothing here is ever written to disk
    started = time.perf_counter()
    [issued] = issue_license_keys(
        master=master, deck_id=DECK, count=1, taken_kids=set(), params=PRODUCTION_KDF_PARAMS
    )
    issue_seconds = time.perf_counter() - started
    answers = [
        (f"q{n:02d}", f"Question {n}", (f"answer {n}: " + "reduce-scatter " * 200)[:3000].encode())
        for n in range(3, 34)
    ]
    release = seal_release(
        master=master,
        deck_id=DECK,
        release=RELEASE,
        answers=answers,
        keks={issued.kid: issued.kek},
        revoked=set(),
        params=PRODUCTION_KDF_PARAMS,
    )
    keyslots = json.dumps(release.keyslots).encode()
    prompts = {card_id: prompt for card_id, prompt, _ in answers}
    blobs = {card_id: base64.b64decode(blob) for card_id, blob in release.sealed.items()}

    started = time.perf_counter()
    release_key = open_release(
        header=parse_lock_header(release.lock, deck_id=DECK),
        slots=parse_keyslots(keyslots, deck_id=DECK, release=RELEASE),
        deck_id=DECK,
        release=RELEASE,
        license_key=parse_license_key(issued.license_key),
    )
    unlock_seconds = time.perf_counter() - started

    started = time.perf_counter()
    for card_id, blob in blobs.items():
        open_answer(release_key, DECK, RELEASE, card_id, prompts[card_id], blob)
    open_seconds = time.perf_counter() - started

    kdf = PRODUCTION_KDF_PARAMS
    print(f"KDF: argon2id m={kdf.memory_kib} KiB t={kdf.iterations} p={kdf.lanes}")
    print(f"issue one card key (publisher, one KDF): {issue_seconds * 1000:8.1f} ms")
    print(f"unlock (parse header+slots, one KDF, unwrap, commit): {unlock_seconds * 1000:8.1f} ms")
    print(f"open {len(blobs)} answers of ~3 KB after unlock: {open_seconds * 1000:8.2f} ms")


if __name__ == "__main__":
    main()
