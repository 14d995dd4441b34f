"""Deck validation: every bad input gets one message naming file:line and the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from infracards.deck import MAX_DECK_BYTES, load_deck
from infracards.errors import DeckError
from infracards.paths import builtin_deck_path

HEADER = "format: infracards-deck/v1\nid: demo\ntitle: Demo\nversion: 1\nlanguage: zh-CN\n"
CARD = "cards:\n  - id: q01\n    prompt: 问题\n    answer: 答案\n"


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "deck.yaml"
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


def error_for(tmp_path: Path, text: str | bytes) -> str:
    path = write(tmp_path, text)
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    return message


def test_a_valid_deck_loads(sample_deck: Path) -> None:
    deck = load_deck(sample_deck)
    assert deck.deck_id == "sample" and deck.version == 1
    assert [card.card_id for card in deck.cards] == ["q01", "q02", "q03", "q04"]
    assert deck.cards[0].key_points == ("等价于 Reduce-Scatter + All-Gather", "每卡发送 2(N-1)/N·S")
    assert deck.cards[2].locked and deck.cards[2].answer is None
    assert deck.lock is not None and deck.lock["kdf"]["memory_kib"] == 8192


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            HEADER + "cards:\n  - id: q01\n    prompt: [a\n",
            r":8: this '\[' is never closed \(the file ends first\)",
        ),
        (
            HEADER + "cards:\n  - id: q01\n    prompt: [a\n    answer: y\n",
            r":8: this '\[' is never closed \(by line 9: (did not find )?expected ',' or '\]'\)",
        ),
        (
            HEADER + CARD + "  - id: q01\n    prompt: 二\n    answer: 二\n",
            r":10: cards\[1\]\.id: duplicate card id 'q01' \(first on line 7\)",
        ),
        (
            HEADER + "cards:\n  - id: q01\n    id: q02\n    prompt: x\n    answer: y\n",
            r":8: duplicate key 'id' \(first on line 7\)",
        ),
        (
            HEADER + "cards:\n  - &a {id: q01, prompt: x, answer: y}\n  - *a\n",
            r":7: anchors and aliases are not allowed",
        ),
        (
            HEADER
            + "cards:\n  - id: q01\n    prompt: !!python/object/apply:os.system [echo hi]\n    answer: y\n",
            r":8: YAML tags",
        ),
        (
            HEADER + "cards:\n  - id: q01\n    prompt: !!binary aGVsbG8=\n    answer: y\n",
            r":8: YAML tags",
        ),
        (HEADER + "cards:\n  - id: q01\n    prompt: !foo x\n    answer: y\n", r":8: YAML tags"),
        (
            HEADER + "cards:\n  - id: 12\n    prompt: x\n    answer: y\n",
            r":7: cards\[0\]\.id: expected text",
        ),
        (
            HEADER + "cards:\n  - id: 1e3\n    prompt: x\n    answer: y\n",
            r":7: cards\[0\]\.id: '1e3' must match",
        ),
        (
            HEADER.replace("version: 1", "version: 012") + CARD,
            r":4: version: expected a whole number",
        ),
        (
            HEADER.replace("version: 1", "version: 1.5") + CARD,
            r":4: version: expected a whole number",
        ),
        (
            HEADER + "cards:\n  - id: q01\n    prompt: 123\n    answer: y\n",
            r":8: cards\[0\]\.prompt: expected text",
        ),
        (
            HEADER + "cards:\n  - id: q01\n    prompt: x\n    answer: y\n    sealed: AAAA\n",
            r":7: cards\[0\]: a card needs exactly one of",
        ),
        (
            HEADER + "cards:\n  - id: q01\n    prompt: x\n",
            r":7: cards\[0\]: a card needs exactly one of",
        ),
        (
            HEADER + "cards:\n  - id: ../etc\n    prompt: x\n    answer: y\n",
            r":7: cards\[0\]\.id: '\.\./etc' must match",
        ),
        (
            HEADER + "cards:\n  - id: q/1\n    prompt: x\n    answer: y\n",
            r":7: cards\[0\]\.id: 'q/1' must match",
        ),
        (
            HEADER + 'cards:\n  - id: q01\n    prompt: "x\\e[31m"\n    answer: y\n',
            r":8: cards\[0\]\.prompt: contains control characters",
        ),
        (
            HEADER + "cards:\n  - id: q01\n    prompt: x\n    answr: y\n",
            r":7: cards\[0\]: unknown field 'answr' \(did you mean 'answer'\?\)",
        ),
        (
            HEADER + "cards:\n  - id: q01\n    prompt: x\n    answer: y\n    zzz: 1\n",
            r":7: cards\[0\]: unknown field 'zzz' \(expected answer, calculators, id, key_points, prompt, "
            r"sealed, tags\)",
        ),
        (
            HEADER + "cards:\n  - id: q01\n    prompt: x\n    sealed: AAAA\n",
            r":7: cards\[q01\]\.sealed: the deck has no lock header",
        ),
        (HEADER + "cards: []\n", r":6: cards: expected a non-empty list"),
        (
            HEADER.replace("infracards-deck/v1", "infracards-deck/v2") + CARD,
            r":1: format: .*newer infracards",
        ),
        (HEADER.replace("id: demo\n", "") + CARD, r":1: deck: missing field 'id'"),
        (
            HEADER + "cards:\n  - id: q01\n    prompt: x\n    answer: y\n    tags: [Bad Tag]\n",
            r":10: cards\[0\]\.tags\[0\]",
        ),
        (HEADER + "cards:" + "\n  - " + "[" * 20 + "]" * 20 + "\n", r"nested deeper than 16"),
        ("", r":1: the file is empty"),
        (HEADER + CARD + "---\nid: other\n", r":10: only one YAML document is allowed"),
    ],
)
def test_bad_decks_are_rejected_with_file_line_and_field(
    tmp_path: Path, text: str, expected: str
) -> None:
    assert re.search(expected, error_for(tmp_path, text))


def test_yaml_words_stay_text_and_octal_looking_numbers_are_not_numbers(tmp_path: Path) -> None:
    deck = load_deck(
        write(tmp_path, HEADER + "cards:\n  - id: no\n    prompt: yes\n    answer: ~\n")
    )
    assert (deck.cards[0].card_id, deck.cards[0].prompt, deck.cards[0].answer) == ("no", "yes", "~")


def test_python_tags_never_run_code(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    text = (
        HEADER
        + f"cards:\n  - id: q01\n    prompt: !!python/object/apply:os.system ['touch {canary}']\n    answer: y\n"
    )
    error_for(tmp_path, text)
    assert not canary.exists()


def test_billion_laughs_is_refused_before_expansion(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [
        f"a{i}: &a{i} [*a{i - 1},*a{i - 1},*a{i - 1},*a{i - 1},*a{i - 1}]" for i in range(1, 10)
    ]
    assert "anchors and aliases are not allowed" in error_for(tmp_path, "\n".join(lines) + "\n")


def test_deep_nesting_is_a_deck_error_not_a_crash(tmp_path: Path) -> None:
    message = error_for(tmp_path, "[" * 30_000 + "]" * 30_000)
    assert re.fullmatch(r".*deck\.yaml:1: nested deeper than 16 levels", message), message


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ((HEADER + CARD).encode() + b"\xff\xfe", r":10: invalid UTF-8"),
        (b"\xff\xfe" + (HEADER + CARD).encode("utf-16-le"), r":1: the file is UTF-16"),
        (
            (HEADER + "cards:\n  - id: q01\n    prompt: a\x00b\n    answer: y\n").encode(),
            r":8: character #x0000 is not allowed",
        ),
    ],
)
def test_bad_bytes_are_reported_with_their_line(tmp_path: Path, data: bytes, expected: str) -> None:
    assert re.search(expected, error_for(tmp_path, data))


def test_oversized_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + CARD)
    with path.open("r+b") as handle:
        handle.truncate(MAX_DECK_BYTES + 1)  # sparse: costs no disk and no time
    with pytest.raises(DeckError, match=r"larger than the 512 MiB limit for a deck file"):
        load_deck(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="no such file"):
        load_deck(tmp_path / "absent.yaml")
    with pytest.raises(DeckError, match="not a regular file"):
        load_deck(tmp_path)


def test_the_builtin_deck_has_the_seed_questions_verbatim_and_in_order() -> None:
    seed = Path(__file__).resolve().parents[2] / "shared" / "seed" / "module03-page.txt"
    if not seed.exists():
        pytest.skip("the seed page is outside this checkout")
    listing = seed.read_text(encoding="utf-8").split("本模块完整题目列表", 1)[1]
    titles = [
        re.sub(r"（免费）$", "", t.strip()) for t in re.findall(r"^\s+\d+\. (.+)$", listing, re.M)
    ]
    deck = load_deck(builtin_deck_path())
    assert [card.prompt for card in deck.cards] == titles
    assert [card.card_id for card in deck.cards] == [f"q{n:02d}" for n in range(1, 34)]
    assert [card.locked for card in deck.cards] == [False, False] + [True] * 31
    assert all(card.tags for card in deck.cards)


def test_an_unclosed_bracket_is_named_where_it_opens(tmp_path: Path) -> None:
    """Not at the line after the end of the file, where the parser gave up."""
    lines = [*HEADER.splitlines(), *CARD.splitlines(), "  - id: q02", "    prompt: 二"]
    lines += ["    answer: 二", "    tags: [memory, zero"]
    assert len(lines) == 13
    message = error_for(tmp_path, "\n".join(lines) + "\n")
    assert re.search(r"deck\.yaml:13: this '\[' is never closed", message), message
    message = error_for(tmp_path, HEADER + "cards:\n  - {id: q01, prompt: x\n")
    assert re.search(r"deck\.yaml:7: this '\{' is never closed", message), message


@pytest.mark.parametrize("end", ["\n", "", "\n\n  \n"])
def test_a_file_that_ends_too_early_is_named_on_its_last_line_of_text(
    tmp_path: Path, end: str
) -> None:
    """Not on the line after the end of the file, where the parser gave up (a truncated
    download or a half-saved file)."""
    header = len(HEADER.splitlines())
    message = error_for(tmp_path, HEADER + "cards: [" + end)
    assert f"deck.yaml:{header + 1}: the file ends inside a '[' or '{{'" in message, message
    message = error_for(tmp_path, HEADER + 'cards:\n  - id: q01\n    prompt: "二' + end)
    assert f"deck.yaml:{header + 3}: this quote is never closed (the file ends first)" in message


def test_every_problem_is_reported_up_to_a_limit(tmp_path: Path) -> None:
    bad_cards = "".join(
        f"  - id: Q{n}\n    prompt: x\n    answer: y\n"
        if n % 2
        else f"  - id: q{n}\n    answer: y\n"
        for n in range(30)
    )
    message = error_for(
        tmp_path, HEADER.replace("version: 1", "version: zero") + "cards:\n" + bad_cards
    )
    problems = message.splitlines()
    assert problems[0].endswith(":4: version: expected a whole number such as 3")
    assert problems[1].endswith(":7: cards[0]: missing field 'prompt'")
    assert re.search(r":9: cards\[1\]\.id: 'Q1' must match", problems[2])
    assert len(problems) == 21 and problems[-1] == "… and 11 more problems (31 in all)"
    assert all(line.startswith(str(tmp_path)) for line in problems[:-1])


def test_deck_check_prints_each_problem_on_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from infracards.cli import main

    path = write(tmp_path, HEADER + "cards:\n  - id: q01\n  - prompt: p\n    answer: a\n")
    assert main(["deck", "check", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"infracards: {path}:7: cards[0]: missing field 'prompt'\n"
        f"infracards: {path}:7: cards[0]: a card needs exactly one of 'answer' (free) or"
        " 'sealed' (locked)\n"
        f"infracards: {path}:8: cards[1]: missing field 'id'\n"
    )
