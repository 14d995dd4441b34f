"""The Module 03 answers: structure, runnable code, and a shipped deck in step with its source."""

from __future__ import annotations

import json
import re
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from infracards.deck import load_deck
from infracards.records import Answer
from infracards.seal import open_answer, parse_license_key
from infracards.seal.encoding import decode_b64
from infracards.services.library import deck_labels
from infracards.services.publish import load_source, sealed_plaintext
from infracards.services.unlock import open_sealed
from infracards.tui.line_breaks import enable_cjk_line_breaks
from infracards.tui.widgets.card_view import lines_text, render_answer
from infracards.tui.widgets.checklist import point_line
from tools.kernels.blocks import FENCE

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "deck" / "source" / "module03"
SHIPPED = ROOT / "deck" / "module03.yaml"
DEMO_KEYS = ["GTA13-PAJRP-RFMBW-3P4BP-X5NF6-K0PVN", "4DC8D-Z5Y7V-ZKZY3-4ZTSD-58Z13-VDM4V"]
SECTIONS = ["## 核心回答", "## 推导 / 细节", "## 追问", "## 参考"]

source = load_source(SOURCE)


def section(body: str, heading: str) -> str:
    start = body.index(heading) + len(heading)
    following = body.find("\n## ", start)
    return body[start : following if following != -1 else None]


def prose(body: str) -> str:
    return FENCE.sub("", body)


@pytest.mark.parametrize("card", source.cards, ids=lambda card: card.card_id)
def test_every_answer_has_all_sections_in_order(card) -> None:  # type: ignore[no-untyped-def]
    headings = [line for line in prose(card.answer).splitlines() if line.startswith("## ")]
    required = [h for h in headings if h in SECTIONS]
    assert required == SECTIONS, headings
    assert all(h in [*SECTIONS, "## 代码"] for h in headings), headings
    follow_ups = re.findall(r"^\d+\. \*\*", section(card.answer, "## 追问"), re.M)
    assert len(follow_ups) >= 3
    assert 3 <= len(card.key_points) <= 7
    assert re.search(r"\]\(https?://[^)]+\)", section(card.answer, "## 参考"))


@pytest.mark.parametrize("card", source.cards, ids=lambda card: card.card_id)
def test_answers_render_in_a_terminal(card) -> None:  # type: ignore[no-untyped-def]
    text = prose(card.answer)
    assert not re.search(r"\$[^$\n]+\$|\\frac|\\sum|\\cdot|\\times", text), "LaTeX does not render"
    for _indent, block_lang, block in FENCE.findall(card.answer):
        for line in block.splitlines():
            assert len(line) <= 100, f"{block_lang} line too wide for the card view: {line}"


def laid_out_text(card, *, width: int) -> Counter[str]:  # type: ignore[no-untyped-def]
    """The characters an answer shows at ``width``: no spaces, table rules or ↪ marks."""
    rendered = render_answer(Answer(card.answer, tuple(card.key_points)), width=width)
    return Counter(
        char
        for line in lines_text(rendered)
        for char in line
        if not char.isspace() and not "\u2500" <= char <= "\u257f" and char != "↪"
    )


@pytest.mark.parametrize("card", source.cards, ids=lambda card: card.card_id)
def test_answers_keep_all_their_text_in_a_narrow_terminal(card) -> None:  # type: ignore[no-untyped-def]
    """Table cells too narrow for a word wrap it instead of cutting it off with an ellipsis."""
    enable_cjk_line_breaks()
    assert laid_out_text(card, width=40) == laid_out_text(card, width=200)


PYTHON_BLOCKS = [
    pytest.param(textwrap.dedent(code), id=f"{card.card_id}-{index}")
    for card in source.cards
    for index, (_indent, lang, code) in enumerate(FENCE.findall(card.answer))
    if lang == "python"
]


@pytest.mark.parametrize("code", PYTHON_BLOCKS)
def test_python_blocks_run_and_their_asserts_pass(code: str) -> None:
    if re.search(r"^(import|from) torch\b", code, re.M):
        pytest.importorskip("torch", reason="this block needs torch (pip install -e '.[kernels]')")
    exec(compile(code, "<answer>", "exec"), {"__name__": "__answer__"})


def test_shipped_deck_matches_its_source() -> None:
    """Fails when someone edits an answer and forgets `infracards publish seal`."""
    deck = load_deck(SHIPPED)
    assert (deck.deck_id, deck.version) == (source.deck_id, source.release)
    assert [(c.card_id, c.prompt, c.tags) for c in deck.cards] == [
        (c.card_id, c.prompt, c.tags) for c in source.cards
    ]
    assert [c.card_id for c in deck.cards if not c.locked] == ["q01", "q02"]
    release_key = open_sealed(
        deck_id=deck.deck_id,
        release=deck.version,
        lock=deck.lock,
        keyslots=deck.keyslots_path.read_bytes(),
        key=parse_license_key(DEMO_KEYS[0]),
        labels=deck_labels(deck),
    ).release_key
    for shipped, written in zip(deck.cards, source.cards, strict=True):
        if shipped.locked:
            assert shipped.sealed is not None
            plaintext = open_answer(
                release_key,
                deck.deck_id,
                deck.version,
                shipped.card_id,
                shipped.prompt,
                decode_b64(shipped.sealed, what=shipped.card_id),
            )
            assert plaintext == sealed_plaintext(written), shipped.card_id
            assert json.loads(plaintext)["key_points"] == list(written.key_points)
        else:
            assert (shipped.answer, shipped.key_points) == (written.answer, written.key_points)


ANSWER_WIDTHS = {"80 columns": 74, "60 columns": 54}
"""What the card view leaves an answer in a terminal this wide (padding and scrollbar off)."""


def code_lines_shown(code: str, lang: str, width: int) -> list[str]:
    """A code block as the card view lays it out: its lines, without the block's padding."""
    rendered = render_answer(Answer(f"```{lang}\n{code}\n```", ()), width=width)
    lines = [line[1:].rstrip() for line in lines_text(rendered)]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


@pytest.mark.parametrize("width", ANSWER_WIDTHS.values(), ids=ANSWER_WIDTHS.keys())
@pytest.mark.parametrize("card", source.cards, ids=lambda card: card.card_id)
def test_long_code_lines_wrap_with_a_mark_and_a_hanging_indent(card, width: int) -> None:  # type: ignore[no-untyped-def]
    """No continuation starts at column 0: each one starts at its line's indent with ↪, and
    joined back they are the code exactly."""
    enable_cjk_line_breaks()
    for indent, lang, block in FENCE.findall(card.answer):
        code = textwrap.dedent(block).rstrip("\n")
        shown = code_lines_shown(code, lang, width - len(indent))
        assert max(cell_len(line) for line in shown) <= width - len(indent) - 2
        joined: list[str] = []
        for line in shown:
            if line.lstrip().startswith("↪ "):
                original = joined[-1]
                hang = len(line) - len(line.lstrip())
                assert hang == min(len(original) - len(original.lstrip()), (width - 2) // 2)
                joined[-1] += line.lstrip()[2:]  # the spaces at a break are not shown
            else:
                joined.append(line)
        assert [line.replace(" ", "") for line in joined] == [
            line.replace(" ", "") for line in code.splitlines()
        ]


@pytest.mark.parametrize("card", source.cards, ids=lambda card: card.card_id)
def test_key_points_wrap_under_their_first_word(card) -> None:  # type: ignore[no-untyped-def]
    """The checklist's lines (key and box, then the point) at 80 columns."""
    enable_cjk_line_breaks()
    console = Console(width=ANSWER_WIDTHS["80 columns"], legacy_windows=False)
    lines = [
        "".join(segment.text for segment in line).rstrip()
        for point in card.key_points
        for line in console.render_lines(point_line(Text("a ☐ "), point), pad=False)
    ]
    assert all(line.startswith(("a ☐ ", "    ")) for line in lines), lines
    assert "".join(line[4:] for line in lines).replace(" ", "") == "".join(card.key_points).replace(
        " ", ""
    )
