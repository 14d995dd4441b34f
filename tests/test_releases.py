"""Releases and keys (issue 19, items 9–12): new key slots are taken in, a relabelled card is
"deck corrupted", an opened payload is checked like a free card, and `status` says what is
true about a stored key."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infracards.cli import main
from infracards.paths import database_path
from infracards.seal import format_license_key, license_path, save_license, seal_answer
from infracards.seal.crypto import derive_release_key
from infracards.seal.encoding import encode_b64
from infracards.services.publish import issue_keys, read_secret
from tests.conftest import seal, snapshot

ROOT = Path(__file__).resolve().parents[1]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def issue(publisher: Path) -> str:
    [key] = issue_keys(
        publisher, secret=read_secret(publisher / "secret.json"), count=1, test_params=True
    )
    return key.license_key


# --- item 9: a card key issued for the release already loaded ---------------------------------


def test_a_key_issued_for_the_same_release_opens_an_existing_home(
    capsys: pytest.CaptureFixture[str],
    publisher: Path,
    sealed_deck: Path,
    keys: list[str],
    tmp_path: Path,
) -> None:
    before = sealed_deck.read_bytes()
    new_key = issue(publisher)
    assert seal(publisher, sealed_deck.parent).read_bytes() == before  # only the slots changed
    code, out, _ = cli(capsys, "deck", "add", str(sealed_deck))
    assert code == 0 and "New key slots" in out and "Progress kept" in out
    code, out, err = cli(capsys, "unlock", "--deck", "demo", new_key)
    assert (code, err) == (0, "") and "Unlocked demo v1" in out
    assert "already up to date" in cli(capsys, "deck", "add", str(sealed_deck))[1]


def test_the_builtin_deck_takes_in_new_key_slots(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped deck is loaded by every start; a changed slot file must be noticed too."""
    source = tmp_path / "source"
    shutil.copytree(ROOT / "deck" / "source" / "module03", source)
    secret = read_secret(source / "DEMO-publisher-secret.json")
    from infracards.services.publish import seal_source

    shipped = seal_source(source, secret=secret, out_dir=tmp_path / "shipped")
    monkeypatch.setattr("infracards.services.library.builtin_deck_path", lambda: shipped)
    assert cli(capsys, "status")[0] == 0
    [new_key] = issue_keys(source, secret=secret, count=1)
    seal_source(source, secret=secret, out_dir=tmp_path / "shipped")
    code, out, err = cli(capsys, "unlock", new_key.license_key)
    assert (code, err) == (0, "") and "Unlocked module03 v1" in out


# --- item 10: the lock header commits to which cards are sealed and which are free -----------


def relabel(deck: Path, card_id: str, *, header_too: bool) -> None:
    """Replace a sealed answer by a fake free one, as an attacker editing the file would."""
    text = deck.read_text(encoding="utf-8")
    start = text.index(f"- id: {card_id}")
    blob = text.index("sealed: ", start)
    end = text.index("\n", blob)
    text = text[:blob] + "answer: FAKE ANSWER" + text[end:]
    if header_too:
        text = text.replace(f"  - {card_id}\n", "", 1).replace(
            "  free:\n", f"  free:\n  - {card_id}\n"
        )
    deck.write_text(text, encoding="utf-8")


def test_a_sealed_card_relabelled_as_free_is_refused_when_added(
    capsys: pytest.CaptureFixture[str], publisher: Path, keys: list[str], tmp_path: Path
) -> None:
    deck = seal(publisher, tmp_path / "out")
    relabel(deck, "q02", header_too=False)
    code, _, err = cli(capsys, "deck", "add", str(deck))
    assert code == 1 and "deck corrupted" in err
    assert "'q02' is free in the deck but sealed in its lock header" in err


def test_a_relabelling_that_edits_the_header_too_fails_the_key_check(
    capsys: pytest.CaptureFixture[str], publisher: Path, keys: list[str], tmp_path: Path, home: Path
) -> None:
    """The header's lists can be edited, its commit cannot be recomputed without the key."""
    deck = seal(publisher, tmp_path / "out")
    relabel(deck, "q02", header_too=True)
    assert cli(capsys, "deck", "add", str(deck))[0] == 0
    before = snapshot(home)
    code, out, err = cli(capsys, "unlock", "--deck", "demo", keys[0])
    assert (code, out) == (1, "") and "deck corrupted" in err and "lock.commit" in err
    assert snapshot(home) == before and not license_path(home).exists()


def test_a_card_relabelled_in_the_store_is_caught_when_the_release_is_opened(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str], home: Path
) -> None:
    assert cli(capsys, "unlock", "--deck", "demo", keys[0])[0] == 0
    with closing(sqlite3.connect(database_path(home))) as db, db:
        db.execute("UPDATE card SET answer = 'FAKE', sealed = NULL WHERE card_id = 'q03'")
    code, out, err = cli(capsys, "show", "q02", "--deck", "demo")
    assert (code, out) == (1, "")  # a sealed answer that cannot be opened: issue 18's exit 1
    assert "stays locked" in err and "deck corrupted" in err and "q02 is sealed" in err
    assert "demo\tdeck corrupted" in cli(capsys, "unlock", "--status")[1]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.sets(st.sampled_from(["q02", "q03"]), min_size=1), st.booleans())
def test_no_relabelling_ever_shows_a_fake_answer(
    capsys: pytest.CaptureFixture[str],
    publisher: Path,
    keys: list[str],
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    relabelled: set[str],
    header_too: bool,
) -> None:
    monkeypatch.setenv("INFRACARDS_HOME", str(tmp_path_factory.mktemp("home")))
    deck = seal(publisher, tmp_path_factory.mktemp("out"))
    for card_id in sorted(relabelled):
        relabel(deck, card_id, header_too=header_too)
    code, _, err = cli(capsys, "deck", "add", str(deck))
    if code == 0:  # the header was edited to match: only the key check can tell
        assert header_too
        code, _, err = cli(capsys, "unlock", "--deck", "demo", keys[0])
        assert code == 1 and "deck corrupted" in err
    else:
        assert code == 1 and len(err.splitlines()) == 1


# --- item 11: what an opened sealed answer holds is checked ------------------------------------


def reseal_payload(deck: Path, publisher: Path, card_id: str, payload: bytes) -> None:
    """Seal any bytes validly as ``card_id``'s answer, with the release's real key."""
    from infracards.deck import load_deck

    master = read_secret(publisher / "secret.json")
    [prompt] = [card.prompt for card in load_deck(deck).cards if card.card_id == card_id]
    text = deck.read_text(encoding="utf-8")
    start = text.index(f"- id: {card_id}")
    blob = encode_b64(
        seal_answer(derive_release_key(master, "demo", 1), "demo", 1, card_id, prompt, payload)
    )
    begin = text.index("sealed: ", start) + len("sealed: ")
    deck.write_text(text[:begin] + blob + text[text.index("\n", begin) :], encoding="utf-8")


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (b'{"answer": 123, "key_points": []}', "answer that is not valid: expected text"),
        (b'{"answer": "ok", "key_points": [1]}', "key_points[0] not valid"),
        (b'{"answer": "ok", "key_points": "x"}', "key_points as a list"),
        (b'{"answer": "ok"}', "exactly answer and key_points"),
        (b'{"answer": "\\u001b[2J", "key_points": []}', "control characters"),
        (b'{"answer": "a", "answer": "b", "key_points": []}', "not valid JSON"),
        (b"\xff", "not valid JSON"),
    ],
)
def test_a_validly_sealed_bad_payload_is_refused_at_unlock(
    capsys: pytest.CaptureFixture[str],
    publisher: Path,
    keys: list[str],
    tmp_path: Path,
    home: Path,
    payload: bytes,
    why: str,
) -> None:
    deck = seal(publisher, tmp_path / "out")
    reseal_payload(deck, publisher, "q02", payload)
    assert cli(capsys, "deck", "add", str(deck))[0] == 0
    code, out, err = cli(capsys, "unlock", "--deck", "demo", keys[0])
    assert (code, out) == (1, "") and "deck corrupted at q02" in err and why in err
    assert not license_path(home).exists()
    save_license(home, {"demo": keys[0]})  # a key stored before: showing the card says why
    code, out, err = cli(capsys, "show", "q02", "--deck", "demo")
    assert code == 1 and "deck corrupted at q02" in err and len(err.splitlines()) == 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(json_values | st.fixed_dictionaries({"answer": json_values, "key_points": json_values}))
def test_any_sealed_payload_opens_or_is_deck_corrupted(
    capsys: pytest.CaptureFixture[str],
    publisher: Path,
    keys: list[str],
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    payload: object,
) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("INFRACARDS_HOME", str(home))
    deck = seal(publisher, tmp_path_factory.mktemp("out"))
    reseal_payload(deck, publisher, "q02", json.dumps(payload).encode())
    assert cli(capsys, "deck", "add", str(deck))[0] == 0
    save_license(home, {"demo": keys[0]})
    code, _, err = cli(capsys, "show", "q02", "--deck", "demo")
    assert code in (0, 1) and "Traceback" not in err
    assert (code == 1) == ("deck corrupted at q02" in err)


# --- item 12: status says what is true --------------------------------------------------------


def wrong_secret(key: str) -> str:
    """A checksum-valid card key with the right key id and another secret."""
    from infracards.seal import parse_license_key

    real = parse_license_key(key)
    return format_license_key(real.kid, bytes(15) if real.secret != bytes(15) else bytes([1] * 15))


def test_a_stored_key_that_does_not_open_the_release_is_not_reported_unlocked(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str], home: Path
) -> None:
    save_license(home, {"demo": wrong_secret(keys[0])})
    [demo] = [
        d for d in json.loads(cli(capsys, "status", "--json")[1])["decks"] if d["id"] == "demo"
    ]
    assert (demo["unlocked"], demo["key_stored"]) == (False, True)
    assert cli(capsys, "unlock", "--status")[1].startswith(
        "demo\tnot valid: a card key is stored but does not open v1\n"
    )
    code, out, err = cli(capsys, "show", "q02", "--deck", "demo")
    assert (code, out) == (1, "") and "q02 is sealed" in err
    assert "stays locked" in err and "not valid for demo v1" in err


def test_a_tampered_release_is_not_reported_unlocked(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str], home: Path
) -> None:
    assert cli(capsys, "unlock", "--deck", "demo", keys[0])[0] == 0
    assert "demo\tunlocked" in cli(capsys, "unlock", "--status")[1]
    with closing(sqlite3.connect(database_path(home))) as db, db:
        [lock] = db.execute("SELECT lock_header FROM deck WHERE id = 'demo'").fetchone()
        header = json.loads(lock)
        header["commit"] = encode_b64(bytes(32))
        db.execute("UPDATE deck SET lock_header = ? WHERE id = 'demo'", (json.dumps(header),))
    out = cli(capsys, "status")[1]
    assert "(deck corrupted: a card key is stored but does not open v1)" in out


def test_status_learns_from_the_last_opening_and_runs_no_kdf_again(
    capsys: pytest.CaptureFixture[str],
    sealed_deck: Path,
    keys: list[str],
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cryptography.hazmat.primitives.kdf import argon2

    real = argon2.Argon2id
    calls: list[int] = []
    monkeypatch.setattr(argon2, "Argon2id", lambda **kw: calls.append(1) or real(**kw))
    assert cli(capsys, "unlock", "--deck", "demo", keys[0])[0] == 0  # one KDF, and noted
    assert cli(capsys, "show", "q02", "--deck", "demo")[0] == 0  # one more, as the app does
    calls.clear()
    assert "demo\tunlocked" in cli(capsys, "unlock", "--status")[1]
    assert json.loads(cli(capsys, "status", "--json")[1])["decks"][0]["unlocked"] is True
    assert calls == []
