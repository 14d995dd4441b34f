"""Unlocking end to end: publisher source → sealed deck → `infracards unlock` → answers shown.

Each bad key or tampered deck gets its own message, exit code 1, and no change on disk.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from infracards.cli import main
from infracards.seal import format_license_key, license_path
from infracards.services.publish import revoke_key
from tests.conftest import SOURCE_DECK, answer, seal, snapshot


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_unlock_then_show_a_sealed_answer(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str], home: Path
) -> None:
    assert cli(capsys, "show", "q02", "--deck", "demo") == (
        1,
        "",
        "infracards: the answer to q02 is sealed; unlock deck demo with"
        " `infracards unlock --deck demo` and your card key (卡密)\n",
    )
    code, out, err = cli(capsys, "unlock", "--deck", "demo", keys[0].lower().replace("-", " "))
    assert (code, err) == (0, "")
    assert out.startswith("Unlocked demo v1 with card key") and "2 answers open" in out
    assert (license_path(home).stat().st_mode & 0o777) == 0o600
    stored = json.loads(license_path(home).read_text())["keys"]["demo"]
    assert stored == keys[0].replace("-", "")
    code, out, _ = cli(capsys, "show", "q02", "--deck", "demo")
    assert code == 0 and "SECRET-1F1B 先 warm-up" in out and "## 要点\n\n- 要点 SECRET-1F1B" in out
    assert cli(capsys, "unlock", "--status")[1] == "demo\tunlocked\nmodule03\tlocked\n"


def test_plaintext_never_reaches_the_database(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str], home: Path
) -> None:
    cli(capsys, "unlock", "--deck", "demo", keys[0])
    cli(capsys, "show", "q03", "--deck", "demo")
    for path in home.iterdir():
        assert b"SECRET-" not in path.read_bytes(), path.name


def swap_first_distinct_neighbours(key: str) -> str:
    """An adjacent transposition that really changes the key (keys are random per test)."""
    i = next(i for i in range(len(key) - 1) if "-" not in key[i : i + 2] and key[i] != key[i + 1])
    return key[:i] + key[i + 1] + key[i] + key[i + 2 :]


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda k: k[:-1] + ("0" if k[-1] != "0" else "1"), "typo"),
        (swap_first_distinct_neighbours, "typo"),
        (lambda k: k[:-6], "needs 30"),
        (lambda k: "", "needs 30"),
        (lambda k: k.replace(k[10], "U", 1), "not allowed"),
    ],
)
def test_malformed_keys_are_refused_before_any_work(
    capsys: pytest.CaptureFixture[str],
    sealed_deck: Path,
    keys: list[str],
    home: Path,
    mangle,
    message: str,  # type: ignore[no-untyped-def]
) -> None:
    before = snapshot(home)
    code, out, err = cli(capsys, "unlock", "--deck", "demo", mangle(keys[0]) or "-")
    assert code == 1 and out == "" and message in err and len(err.splitlines()) == 1
    assert snapshot(home) == before


def test_a_key_with_an_unknown_id_is_not_valid(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, home: Path
) -> None:
    before = snapshot(home)
    forged = format_license_key(12345, bytes(15))
    code, _, err = cli(capsys, "unlock", "--deck", "demo", forged)
    assert code == 1 and "not valid for demo v1" in err
    assert snapshot(home) == before


def test_revocation_takes_effect_in_the_next_release(
    capsys: pytest.CaptureFixture[str],
    publisher: Path,
    sealed_deck: Path,
    keys: list[str],
    home: Path,
    tmp_path: Path,
) -> None:
    assert cli(capsys, "unlock", "--deck", "demo", keys[0])[0] == 0
    license_bytes = license_path(home).read_bytes()
    revoke_key(publisher, kid=keys[0][:4])
    (publisher / "deck.yaml").write_text(
        SOURCE_DECK.replace("version: 1", "version: 2"), encoding="utf-8"
    )
    new_release = seal(publisher, tmp_path / "v2")
    assert cli(capsys, "deck", "add", str(new_release))[0] == 0

    assert cli(capsys, "unlock", "--status")[1].startswith("demo\trevoked")
    code, out, err = cli(capsys, "show", "q02", "--deck", "demo")
    assert (code, out) == (1, "") and "revoked" in err.splitlines()[0]
    assert err.splitlines()[1].startswith("infracards: the answer to q02 is sealed")
    assert license_path(home).read_bytes() == license_bytes  # left as it was
    code, _, err = cli(capsys, "unlock", "--deck", "demo", keys[0])
    assert code == 1 and "revoked" in err
    assert (
        cli(capsys, "unlock", "--deck", "demo", keys[1])[0] == 0
    )  # the other buyer's key still works


def test_a_tampered_answer_is_reported_and_nothing_is_written(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str], home: Path
) -> None:
    text = sealed_deck.read_text(encoding="utf-8")
    blob_start = text.index("sealed: ", text.index("id: q03")) + len("sealed: ")
    flipped = "B" if text[blob_start + 20] != "B" else "C"
    sealed_deck.write_text(
        text[: blob_start + 20] + flipped + text[blob_start + 21 :], encoding="utf-8"
    )
    assert cli(capsys, "deck", "add", str(sealed_deck))[0] == 0
    before = snapshot(home)
    code, _, err = cli(capsys, "unlock", "--deck", "demo", keys[0])
    assert code == 1 and "deck corrupted at q03" in err
    assert snapshot(home) == before and not license_path(home).exists()


def test_sealing_is_reproducible_and_an_edit_changes_one_blob(
    publisher: Path, keys: list[str], tmp_path: Path
) -> None:
    first = seal(publisher, tmp_path / "a").read_bytes()
    assert seal(publisher, tmp_path / "b").read_bytes() == first
    (publisher / "q03.md").write_text(answer("SECRET-ZERO3 改过的答案"), encoding="utf-8")
    edited = seal(publisher, tmp_path / "c").read_text(encoding="utf-8")
    changed = [
        a for a, b in zip(first.decode().splitlines(), edited.splitlines(), strict=True) if a != b
    ]
    assert len(changed) == 1 and changed[0].lstrip().startswith("sealed:")


def test_lock_forgets_the_key(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str]
) -> None:
    cli(capsys, "unlock", "--deck", "demo", keys[0])
    assert cli(capsys, "lock", "--deck", "demo")[0] == 0
    assert cli(capsys, "unlock", "--status")[1].startswith("demo\tlocked")


def test_unlock_without_a_key_and_without_a_terminal_explains(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, _, err = cli(capsys, "unlock", "--deck", "demo")
    assert code == 1 and "pass KEY, use --stdin" in err


def test_no_sealed_text_reaches_the_store_exports_or_output_after_practice(
    capsys: pytest.CaptureFixture[str],
    sealed_deck: Path,
    keys: list[str],
    home: Path,
    tmp_path: Path,
) -> None:
    """A mock interview and reviews of unlocked sealed cards, with key points ticked, notes
    typed and questions counted as reviews, then every export and report: the database (and
    its log files), the exports and what the commands print hold no sealed answer or key
    point, only indexes and fingerprints."""
    import random
    from datetime import datetime

    from infracards.services.answers import AnswerBook
    from infracards.services.mock import MockInterview
    from infracards.services.review import ReviewSession
    from infracards.services.unlock import open_saved_keys
    from infracards.store.db import open_store

    assert cli(capsys, "unlock", "--deck", "demo", keys[0])[0] == 0
    engine = open_store(home)
    opened, _ = open_saved_keys(engine, home)
    answers = AnswerBook(opened)
    clock = datetime.now().astimezone
    ticks = iter(float(n) for n in range(0, 1000, 7))
    mock = MockInterview(
        engine,
        deck_id="demo",
        clock=clock,
        timer=lambda: next(ticks),
        answers=answers,
        questions=3,
        rng=random.Random(2),
    )
    mock.start()
    seen = []
    while mock.card is not None:
        check = mock.reveal()
        assert check is not None  # unlocked: every card has its checklist
        seen.extend(check.key_points)
        mock.toggle_point(0)
        mock.notes = "my own words about pipelines"
        if mock.card.card_id == "q02":
            mock.count_as_review(4)
        mock.next()
    mock.finish()
    review = ReviewSession(engine, deck_id="demo", clock=clock, answers=answers)
    review.start()
    while review.card is not None:
        review.reveal()
        review.toggle_point(0)
        review.grade(review.suggested_grade or 0)
    engine.dispose()
    assert any("SECRET-" in point for point in seen)  # the sealed key points were shown

    outputs = [
        cli(capsys, *argv)[1]
        for argv in (
            ("mock", "--report", "--json"),
            ("mock", "--report"),
            ("stats", "--json"),
            ("stats",),
            ("status", "--json"),
        )
    ]
    for fmt in ("json", "csv", "md"):
        target = tmp_path / f"out.{fmt}"
        assert main(["export", "--format", fmt, "-o", str(target)]) == 0
        outputs.append(target.read_text(encoding="utf-8"))
    capsys.readouterr()
    assert '"fingerprint"' in outputs[-3] and '"recalled": [0]' in outputs[-3]
    for text in outputs:
        assert "SECRET-" not in text
    stored = [path.read_bytes() for path in home.iterdir() if path.is_file()]
    assert any(b"my own words about pipelines" in data for data in stored)  # the scan sees it
    for path, data in zip([p for p in home.iterdir() if p.is_file()], stored, strict=True):
        assert b"SECRET-" not in data, path.name


def test_with_study_locked_no_an_unlocked_decks_sealed_cards_are_studied(
    capsys: pytest.CaptureFixture[str], sealed_deck: Path, keys: list[str], home: Path
) -> None:
    """`study-locked no` leaves out cards whose deck is still locked, not every sealed card."""
    from datetime import datetime

    from infracards.services.review import ReviewSession
    from infracards.store.db import open_store

    def demo() -> dict[str, object]:
        out = cli(capsys, "status", "--json")[1]
        return next(deck for deck in json.loads(out)["decks"] if deck["id"] == "demo")

    def queued() -> int:
        engine = open_store(home)
        try:
            review = ReviewSession(
                engine, deck_id="demo", clock=lambda: datetime.now().astimezone(), home=home
            )
            review.start()
            review.end()
            return review.progress.remaining
        finally:
            engine.dispose()

    assert cli(capsys, "config", "study-locked", "no")[0] == 0
    assert (demo()["new_today"], queued()) == (1, 1)  # only the free q01
    assert cli(capsys, "unlock", "--deck", "demo", keys[0])[0] == 0
    assert (demo()["new_today"], queued()) == (3, 3)
    assert cli(capsys, "lock", "--deck", "demo")[0] == 0
    assert (demo()["new_today"], queued()) == (1, 1)
