"""A deck's memory is bounded by a stated factor of its file size, for any card shape
(issue 19, item 5): cards are checked and kept compact as they are read, an unknown field is
refused before its value is read, and the 250,001st card is refused on sight."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from infracards.deck import MAX_CARD_VALUES, MAX_CARDS, MAX_HEADER_VALUES, parse_deck
from infracards.errors import DeckError

HEADER = "format: infracards-deck/v1\nid: big\ntitle: Big\nversion: 1\nlanguage: en\ncards:\n"
FACTOR = {"check": 10, "add": 14}
"""Peak memory above an empty run's, per byte of deck file: what the README states."""


def error(text: str) -> str:
    with pytest.raises(DeckError) as refused:
        parse_deck(text.encode(), path=Path("d.yaml"))
    return str(refused.value)


def test_too_many_tags_or_key_points_are_refused() -> None:
    tags = ", ".join(f"t{n}" for n in range(33))
    assert "cards[0].tags: more than 32 in one card" in error(
        f"{HEADER}- {{id: a, prompt: p, answer: x, tags: [{tags}]}}\n"
    )
    points = ", ".join(f"k{n}" for n in range(65))
    assert "cards[0].key_points: more than 64 in one card" in error(
        f"{HEADER}- {{id: a, prompt: p, answer: x, key_points: [{points}]}}\n"
    )


def test_a_card_that_holds_too_many_values_is_refused_while_it_is_read() -> None:
    values = ", ".join(["x"] * (MAX_CARD_VALUES + 1))
    message = error(f"{HEADER}- {{id: a, prompt: [[{values}]], answer: x}}\n")
    assert f"cards[0]: a card holds at most {MAX_CARD_VALUES:,} values" in message


def test_the_header_holds_a_bounded_number_of_values() -> None:
    revoked = ", ".join(["AAAA"] * (MAX_HEADER_VALUES + 1))
    message = error(f"{HEADER}- {{id: a, prompt: p, answer: x}}\nlock: {{revoked: [{revoked}]}}\n")
    assert f"more than {MAX_HEADER_VALUES:,} values outside the card list" in message


def test_an_unknown_field_is_refused_before_its_value_is_read() -> None:
    message = error("junk: [" + "a, " * 100_000 + "]\n" + HEADER)
    assert (
        message == "d.yaml:1: deck: unknown field 'junk' "
        "(expected cards, format, id, language, lock, notation, title, version)"
    )


def test_the_card_past_the_limit_is_refused_on_sight(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the whole list was built first (a 500 MiB deck: MemoryError after 57 s)."""
    monkeypatch.setattr("infracards.deck.MAX_CARDS", 3)
    cards = "".join(f"- {{id: c{n}, prompt: p, answer: a}}\n" for n in range(4))
    assert error(HEADER + cards + "- {id: [bad}\n") == (
        "d.yaml:7: cards: more than 3 cards in one deck"
    )


def test_duplicate_cards_on_one_line_are_still_found() -> None:
    assert "duplicate card id 'a'" in error(
        HEADER.replace(
            "cards:\n", "cards: [{id: a, prompt: p, answer: x}, {id: a, prompt: q, answer: y}]\n"
        )
    )


# --- peak memory, measured in a child process --------------------------------------------------

PEAK = textwrap.dedent(
    """
    import re, sys
    from infracards.cli import main
    code = main(["deck", sys.argv[1], sys.argv[2]])
    peak = re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1)
    print(code, peak)
    """
)


def peak_mib(command: str, path: Path, home: Path) -> tuple[int, float, str]:
    """(exit code, peak RSS in MiB, standard error) of `infracards deck COMMAND PATH`."""
    result = subprocess.run(
        [sys.executable, "-c", PEAK, command, str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "INFRACARDS_HOME": str(home)},
        check=True,
    )
    code, peak_kib = result.stdout.split()[-2:]
    return int(code), int(peak_kib) / 1024, result.stderr


def tiny_cards(count: int) -> str:
    """The smallest cards a deck can hold: the most objects per byte of file."""
    return HEADER + "".join(f"- {{id: c{n}, prompt: p, answer: a}}\n" for n in range(count))


def short_lists(count: int) -> str:
    """Small cards with the most tags and key points: many short texts per card."""
    points = ", ".join(f"k{n}" for n in range(64))
    tags = ", ".join(f"t{n}" for n in range(32))
    return HEADER + "".join(
        f"- {{id: c{n}, prompt: p, answer: a, tags: [{tags}], key_points: [{points}]}}\n"
        for n in range(count)
    )


def real_sized_cards(count: int) -> str:
    """Cards the size of real ones: a Chinese prompt, a ~1.5k-character Markdown answer."""
    answer = "".join(
        f"    {'Ring All-Reduce 每卡发送 2(N-1)/N·S 字节' * 3} {i}\n" for i in range(12)
    )
    return HEADER + "".join(
        f'- id: c{n}\n  prompt: "{"在 1024 张 H100 上如何切分并估算通信量？" * 2} {n}"\n'
        f"  tags: [pipeline, memory]\n  answer: |\n{answer}"
        for n in range(count)
    )


@pytest.mark.slow
@pytest.mark.parametrize("command", ["check", "add"])
@pytest.mark.parametrize(
    ("shape", "cards"),
    [(tiny_cards, 150_000), (short_lists, 12_000), (real_sized_cards, 12_000)],
    ids=["tiny cards", "many short key points", "real-sized cards"],
)
def test_peak_memory_is_a_bounded_multiple_of_the_file(
    tmp_path: Path,
    command: str,
    shape,
    cards: int,  # type: ignore[no-untyped-def]
) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text(tiny_cards(1), encoding="utf-8")
    deck = tmp_path / "big.yaml"
    deck.write_text(shape(cards), encoding="utf-8")
    size_mib = deck.stat().st_size / 2**20
    assert peak_mib(command, empty, tmp_path / "home-0")[0] == 0
    baseline = peak_mib(command, empty, tmp_path / "home-1")[1]
    code, peak, _ = peak_mib(command, deck, tmp_path / "home-2")
    assert code == 0
    assert peak - baseline <= FACTOR[command] * size_mib, (peak, baseline, size_mib)


@pytest.mark.slow
def test_a_deck_of_too_many_tiny_cards_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """A file several times past the card limit costs no more than one at the limit."""
    deck = tmp_path / "big.yaml"
    deck.write_text(tiny_cards(3 * MAX_CARDS), encoding="utf-8")
    code, peak, err = peak_mib("check", deck, tmp_path / "home")
    assert code == 1 and "cards: more than 250,000 cards in one deck" in err
    assert peak < 160, peak  # ~100 MiB: 250,000 tiny cards and the file's own bytes
