"""License and key-slot files (issue 19, items 6 and 7).

The license is checked on the descriptor it is read from (a FIFO swapped in after a check
cannot block), the key-slot file is read without following links and checked when the deck is
added, and an unlock never discards another deck's stored key silently.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest

from infracards.cli import main
from infracards.errors import LicenseError
from infracards.paths import database_path
from infracards.seal import format_license_key, license_path, load_license, save_license
from tests.conftest import seal

OTHER_KEYS = {
    "alpha": format_license_key(0x1234, bytes(range(15))),
    "beta": format_license_key(0x4321, bytes(range(1, 16))),
}


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- item 6: the license and key-slot files are opened safely ---------------------------------


def test_a_fifo_swapped_in_after_the_check_does_not_block(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever a check of the path said, what is read is the descriptor's own file."""
    save_license(home, OTHER_KEYS)
    regular = os.stat(license_path(home))
    license_path(home).unlink()
    os.mkfifo(license_path(home), 0o600)
    # The check saw a regular file, then the FIFO took its place.
    monkeypatch.setattr(os, "lstat", lambda path, *a, **k: regular)
    outcome: list[object] = []
    reader = threading.Thread(target=lambda: outcome.append(_try(load_license, home)))
    reader.start()
    reader.join(timeout=10)
    if reader.is_alive():  # blocked in open(): a writer lets it go, then the test fails
        with open(license_path(home), "wb"):
            pass
        reader.join()
        pytest.fail("load_license blocked on a FIFO")
    [error] = outcome
    assert isinstance(error, LicenseError) and "not a regular file" in str(error)


def _try(function, *args):  # type: ignore[no-untyped-def]
    try:
        return function(*args)
    except LicenseError as error:
        return error


def test_a_key_slot_file_behind_a_link_is_refused_at_deck_add(
    capsys: pytest.CaptureFixture[str],
    publisher: Path,
    keys: list[str],
    tmp_path: Path,
    home: Path,
) -> None:
    """Before, a private file's text behind the link was copied into the database."""
    deck = seal(publisher, tmp_path / "shared")
    slots = deck.with_name("demo.keyslots.json")
    private = tmp_path / "private.json"
    private.write_text(slots.read_text(encoding="utf-8").replace("}", ', "x": "PRIVATE"}', 1))
    slots.unlink()
    slots.symlink_to(private)
    code, _, err = cli(capsys, "deck", "add", str(deck))
    assert code == 1 and "is a symbolic link" in err and len(err.splitlines()) == 1
    assert b"PRIVATE" not in database_path(home).read_bytes()
    with closing(sqlite3.connect(database_path(home))) as db:
        assert db.execute("SELECT count(*) FROM deck WHERE id = 'demo'").fetchone() == (0,)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text[: len(text) // 2], "is not valid JSON"),
        (
            lambda text: text.replace('"version": 1', '"version": 7'),
            "is for 'demo' v7, not demo v1",
        ),
        (lambda text: text.replace('"deck": "demo"', '"deck": "other"'), "is for 'other' v1"),
        (
            lambda text: json.dumps({**json.loads(text), "slots": {"7K3Q": "QQ=="}}),
            "is 1 bytes, not 64",
        ),
        (lambda text: "[]", "is not a JSON object"),
    ],
)
def test_a_damaged_key_slot_file_is_refused_when_the_deck_is_added(
    capsys: pytest.CaptureFixture[str],
    publisher: Path,
    keys: list[str],
    tmp_path: Path,
    damage,  # type: ignore[no-untyped-def]
    message: str,
) -> None:
    deck = seal(publisher, tmp_path / "out")
    slots = deck.with_name("demo.keyslots.json")
    slots.write_text(damage(slots.read_text(encoding="utf-8")), encoding="utf-8")
    code, out, err = cli(capsys, "deck", "add", str(deck))
    assert (code, out) == (1, "") and message in err and len(err.splitlines()) == 1


# --- item 7: unlock keeps every other deck's key -----------------------------------------------


def unreadable_license(
    home: Path, how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    """A license holding keys for two other decks, made unreadable; the fix its message gives."""
    save_license(home, OTHER_KEYS)
    path = license_path(home)
    if how == "mode":
        path.chmod(0o644)
        return "chmod 600"
    if how == "owner":
        monkeypatch.setattr(os, "getuid", lambda: path.stat().st_uid + 1)
        return "chown"
    if how == "link":
        target = tmp_path / "elsewhere.json"
        os.replace(path, target)
        path.symlink_to(target)
        return "symbolic link"
    path.write_bytes(path.read_bytes()[:-10])  # damaged
    return "is damaged"


@pytest.mark.parametrize("how", ["mode", "owner", "link", "damaged"])
def test_unlock_refuses_a_license_it_cannot_read_instead_of_dropping_its_keys(
    capsys: pytest.CaptureFixture[str],
    sealed_deck: Path,
    keys: list[str],
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    fix = unreadable_license(home, how, tmp_path, monkeypatch)
    stored = license_path(home).resolve().read_bytes()
    code, out, err = cli(capsys, "unlock", "--deck", "demo", keys[0])
    assert (code, out) == (1, "") and fix in err and len(err.splitlines()) == 1
    assert license_path(home).resolve().read_bytes() == stored  # both other keys still there


def test_unlock_keeps_the_readable_keys_and_names_the_one_it_dropped(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str], home: Path
) -> None:
    save_license(home, OTHER_KEYS)
    path = license_path(home)
    beta = OTHER_KEYS["beta"].replace("-", "")
    typo = beta[:10] + ("0" if beta[10] != "0" else "1") + beta[11:]
    path.write_bytes(path.read_bytes().replace(beta.encode(), typo.encode()))
    code, out, err = cli(capsys, "unlock", "--deck", "demo", keys[0])
    assert code == 0 and "Unlocked demo v1" in out
    assert "key for beta was unreadable" in err and "unlock that deck again" in err
    assert load_license(home) == {
        "alpha": OTHER_KEYS["alpha"].replace("-", ""),
        "demo": keys[0].replace("-", ""),
    }


def test_a_license_entry_that_is_not_text_is_dropped_and_named(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str], home: Path
) -> None:
    save_license(home, OTHER_KEYS)
    path = license_path(home)
    path.write_bytes(path.read_bytes().replace(b'"beta"', b'"\\ud800"'))  # a JSON escape
    code, _, err = cli(capsys, "unlock", "--deck", "demo", keys[0])
    assert code == 0 and "key for \\ud800 was unreadable" in err
    assert set(load_license(home)) == {"alpha", "demo"}


def test_unlock_of_one_deck_keeps_the_others(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str], home: Path
) -> None:
    save_license(home, OTHER_KEYS)
    assert cli(capsys, "unlock", "--deck", "demo", keys[0])[0] == 0
    assert set(load_license(home)) == {"alpha", "beta", "demo"}
