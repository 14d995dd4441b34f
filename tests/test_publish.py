"""The publisher's source is untrusted input too: every malformed source is one `file:line`
error and exit 1; issued keys are written privately; decks carry calculators and a notation page."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from infracards.cli import main
from infracards.deck import load_deck
from infracards.errors import DeckError
from infracards.services.library import add_deck
from infracards.services.publish import load_source
from infracards.store.db import open_store, transaction
from infracards.store.reads import deck_notation, find_card
from tests.conftest import SOURCE_DECK, answer, seal

ERROR_LINE = re.compile(r"infracards: \S+:\d+: .+\n")


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    """The real command in a child process: a traceback or a crash cannot hide."""
    return subprocess.run(
        [sys.executable, "-m", "infracards", *argv], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda src: src.replace("  - id: q02\n", "  - idd: q02\n"), "deck.yaml:11"),
        (lambda src: src.replace("  - id: q02\n", "  - \n"), "deck.yaml:12"),
        (lambda src: src.replace("version: 1", "version: one"), "deck.yaml:4"),
        (lambda src: src.replace("free: [q01]", "free: [q09]"), "deck.yaml:6"),
        (lambda src: src.replace("format: infracards-source/v1", "format: x"), "deck.yaml:1"),
        (lambda src: src + "  - id: q01\n    prompt: again\n", "deck.yaml:"),
        (lambda src: src.replace("cards:", "cards: [[[[[[[[[[[[[[[[[[[["), "deck.yaml:"),
        (
            lambda src: src.replace("title: Demo deck", "title: !!python/name:os.system"),
            "deck.yaml",
        ),
    ],
)
def test_a_malformed_deck_yaml_is_one_error_with_its_line(
    publisher: Path,
    change,
    where: str,  # type: ignore[no-untyped-def]
) -> None:
    source = publisher / "deck.yaml"
    source.write_text(change(SOURCE_DECK), encoding="utf-8")
    result = run("publish", "seal", str(publisher), "--secret", str(publisher / "secret.json"))
    assert result.returncode == 1, result.stderr
    assert ERROR_LINE.fullmatch(result.stderr), result.stderr
    assert where in result.stderr


@pytest.mark.parametrize(
    "text",
    [
        "no front matter at all\n",
        "---\nkey_points: [unclosed\n---\n## 核心回答\n",
        "---\nkey_points: 3\n---\n## 核心回答\n",
        "---\nkeypoints: [a]\n---\n## 核心回答\n",
        "---\nkey_points: [a, [b]]\n---\n## 核心回答\n",
        "---\nkey_points: [a]\n---\n```calc\nmodel: nope\nexpect: x = 1\n```\n",
    ],
)
def test_a_malformed_answer_file_is_one_error_naming_it(publisher: Path, text: str) -> None:
    (publisher / "q02.md").write_text(text, encoding="utf-8")
    result = run("publish", "seal", str(publisher), "--secret", str(publisher / "secret.json"))
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert re.match(rf"infracards: {re.escape(str(publisher / 'q02.md'))}(:\d+)?: ", result.stderr)


def test_a_missing_answer_names_the_card_and_its_line(publisher: Path) -> None:
    (publisher / "q03.md").unlink()
    with pytest.raises(DeckError, match=r"deck\.yaml:14: q03: its answer q03\.md is missing"):
        load_source(publisher)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_mutation_of_the_source_is_loaded_or_refused_with_a_deck_error(
    publisher: Path, data: st.DataObject
) -> None:
    """Like the deck loader's fuzz test: random cuts, duplications and byte flips of deck.yaml
    and of an answer's front matter never raise anything but a DeckError."""
    original = SOURCE_DECK.encode()
    target = data.draw(st.sampled_from(["deck.yaml", "q02.md"]))
    raw = original if target == "deck.yaml" else answer("SECRET-1F1B 先 warm-up").encode()
    position = data.draw(st.integers(0, len(raw)))
    insert = data.draw(
        st.binary(max_size=8) | st.sampled_from([b"[", b"{", b":", b"\n  -", b"!!x"])
    )
    cut = data.draw(st.integers(0, 6))
    (publisher / target).write_bytes(raw[:position] + insert + raw[position + cut :])
    try:
        load_source(publisher)
    except DeckError:
        pass
    finally:
        (publisher / target).write_bytes(raw)


def test_issued_keys_are_written_privately_and_never_over_an_existing_file(
    publisher: Path, tmp_path: Path
) -> None:
    csv = tmp_path / "keys.csv"
    argv = [
        "publish",
        "issue",
        str(publisher),
        "-n",
        "2",
        "--secret",
        str(publisher / "secret.json"),
    ]
    assert main([*argv, "--csv", str(csv), "--test-params"]) == 0
    assert stat.S_IMODE(csv.stat().st_mode) == 0o600
    assert len(csv.read_text().splitlines()) == 3
    before = csv.read_bytes()
    assert main([*argv, "--csv", str(csv), "--test-params"]) == 1  # refused: keys already there
    assert csv.read_bytes() == before
    assert main([*argv, "--csv", str(csv), "--test-params", "--force"]) == 0
    assert csv.read_bytes() != before and stat.S_IMODE(csv.stat().st_mode) == 0o600
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".keys.csv")]


def test_calculators_and_the_notation_page_travel_from_source_to_the_store(
    publisher: Path, tmp_path: Path, home: Path
) -> None:
    (publisher / "notation.md").write_text("## 记号\n\n- Ψ：参数量\n", encoding="utf-8")
    (publisher / "deck.yaml").write_text(SOURCE_DECK + "notation: notation.md\n", encoding="utf-8")
    block = "```calc\nmodel: memory\nparams: 7.5e9; dp: 64; zero: 1\nexpect: per_gpu_gb = 31.4 ± 0.05\n```\n"
    (publisher / "q03.md").write_text(answer("ZeRO") + block, encoding="utf-8")
    path = seal(publisher, tmp_path / "out")
    deck = load_deck(path)
    assert deck.notation == "## 记号\n\n- Ψ：参数量\n"
    assert {card.card_id: card.calculators for card in deck.cards}["q03"] == ("memory",)
    assert b"7.5e9" not in path.read_bytes()  # the worked example itself stays sealed
    engine: Engine = open_store(home)
    add_deck(engine, path)
    with transaction(engine) as session:
        [card] = find_card(session, card_id="q03", deck_id="demo")
        assert card.locked and card.calculators == ("memory",)
        assert deck_notation(session, deck_id="demo") == deck.notation
    engine.dispose()


def test_the_notation_file_must_sit_beside_deck_yaml(publisher: Path) -> None:
    (publisher / "deck.yaml").write_text(SOURCE_DECK + "notation: ../secret.md\n", encoding="utf-8")
    with pytest.raises(DeckError, match=r"deck\.yaml:\d+: notation: "):
        load_source(publisher)


def test_a_non_utf8_answer_names_its_line(publisher: Path) -> None:
    (publisher / "q02.md").write_bytes(answer("x").encode() + b"\n\xff\xfe\n")
    with pytest.raises(DeckError, match=r"q02\.md:8: invalid UTF-8"):
        load_source(publisher)


def test_keys_in_the_registry_stay_private(publisher: Path) -> None:
    assert stat.S_IMODE(os.stat(publisher / "secret.json").st_mode) == 0o600


def test_a_publisher_secret_is_written_privately_and_never_over_a_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.json"
    assert main(["publish", "secret", str(path)]) == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    before = path.read_bytes()
    assert main(["publish", "secret", str(path)]) == 1
    assert path.read_bytes() == before
    (tmp_path / "link.json").symlink_to(tmp_path / "elsewhere.json")
    assert main(["publish", "secret", str(tmp_path / "link.json")]) == 1
    assert not (tmp_path / "elsewhere.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "secret.json"]
