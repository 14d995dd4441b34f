"""The deck's worked examples, as ``calc`` blocks, are recomputed by the models."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from rich.cells import cell_len

from infracards.calc import find_examples, parse_example
from infracards.errors import CalcError
from infracards.services.publish import load_source
from tools.kernels.blocks import FENCE

SOURCE = Path(__file__).resolve().parents[2] / "deck" / "source" / "module03"
CARDS = load_source(SOURCE).cards
WITH_EXAMPLES = {
    "q03", "q04", "q05", "q06", "q09", "q12", "q13", "q14", "q16", "q17", "q19", "q20", "q22", "q23",
    "q25",
}  # fmt: skip
"""Cards whose worked examples a model covers: each must carry its blocks."""

ZERO = """\
# ZeRO Fig. 1, P_os
model: memory
params: 7.5e9
dp: 64
zero: 1
expect: per_gpu_gb = 31.4 ± 0.05
expect: bytes_per_param = 4.19 ± 1%
"""


def test_a_block_is_parsed_and_recomputed() -> None:
    example = parse_example(ZERO)
    assert example.model.name == "memory"
    assert example.inputs == (("params", "7.5e9"), ("dp", "64"), ("zero", "1"))
    assert [str(e) for e in example.expectations] == [
        "per_gpu_gb = 31.4 ± 0.05",
        "bytes_per_param = 4.19 ± 1%",
    ]
    assert example.misses(example.run()) == []


def test_a_line_may_hold_several_items() -> None:
    compact = parse_example(
        "model: memory\nparams: 7.5e9; dp: 64; zero: 1\nexpect: per_gpu_gb = 31.4 ± 0.05\n"
    )
    assert compact.inputs == parse_example(ZERO).inputs
    assert compact.run().values == parse_example(ZERO).run().values


def test_a_wrong_number_is_a_miss_naming_its_line() -> None:
    example = parse_example(ZERO.replace("31.4 ± 0.05", "31.5 ± 0.05"))
    assert example.misses(example.run()) == [
        "line 6: expected per_gpu_gb = 31.5 ± 0.05, computed 31.41"
    ]


def test_blocks_are_found_in_markdown_with_their_lines() -> None:
    markdown = "# title\n\n- item\n\n  ```calc\n" + textwrap.indent(ZERO, "  ") + "  ```\n"
    (example,) = find_examples(markdown)
    assert example.line == 5
    assert example.expectations[0].line == 11
    assert find_examples("```python\nmodel: memory\n```\n") == []


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (ZERO.replace("model: memory", "model: memroy"), "line 2: no calculator 'memroy'"),
        (ZERO.replace("dp: 64", "dps: 64"), "line 4: --dps: not a parameter of memory"),
        (ZERO.replace("dp: 64", "dp: 6.4"), "line 4: --dp: must be a whole number"),
        (ZERO.replace("dp: 64", "dp:"), "line 4: expected 'name: value'"),
        (ZERO.replace("zero: 1", "dp: 8"), "line 5: dp is given twice"),
        (ZERO.replace("per_gpu_gb", "per_gpu"), "line 6: memory has no output 'per_gpu'"),
        (ZERO.replace("31.4 ± 0.05", "31.4"), "line 6: expect must read"),
        (ZERO.replace("± 0.05", "± -1"), "line 6: the rounding cannot be negative"),
        (ZERO.replace("31.4 ±", "nan ±"), "line 6: the expected value must be a finite"),
        ("params: 7e9\nmodel: memory\n", "line 1: a calc block starts with 'model: NAME'"),
        ("model: memory\nparams: 7e9\n", "line 1: a calc block states at least one"),
        ("# only a comment\n", "line 1: an empty calc block"),
        ("model: memory\nexpect: per_gpu_gb = 1 ± 1\n", "line 1: --params: is required"),
    ],
)
def test_a_malformed_block_is_one_error_naming_its_line(block: str, message: str) -> None:
    with pytest.raises(CalcError) as caught:
        parse_example(block)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize("card", CARDS, ids=lambda card: card.card_id)
def test_every_worked_example_in_the_answers_is_recomputed(card) -> None:  # type: ignore[no-untyped-def]
    path = f"{card.card_id}.md"
    try:
        examples = find_examples(card.answer)
    except CalcError as error:
        pytest.fail(f"{path} (answer body) {error}")
    if card.card_id in WITH_EXAMPLES:
        assert examples, f"{path}: its worked examples carry no calc block"
    misses = [f"{path} {miss}" for example in examples for miss in example.misses(example.run())]
    assert misses == []


@pytest.mark.parametrize("card", CARDS, ids=lambda card: card.card_id)
def test_calc_blocks_fit_a_narrow_terminal(card) -> None:  # type: ignore[no-untyped-def]
    """76 terminal cells at most (a CJK character takes two), indentation included."""
    rows = card.answer.splitlines()
    for example in find_examples(card.answer):
        body = rows[example.line :]
        for line in body[: next(i for i, row in enumerate(body) if row.strip() == "```")]:
            assert cell_len(line) <= 76, f"{card.card_id}: {line}"


@pytest.mark.parametrize("card", CARDS, ids=lambda card: card.card_id)
def test_the_calc_parser_and_the_answers_fence_rule_see_the_same_blocks(card) -> None:  # type: ignore[no-untyped-def]
    """The app finds calc blocks with its own pattern; the answer tests cut every fenced block
    with FENCE. A block one sees and the other misses would go unchecked or render as prose."""
    rows = card.answer.splitlines()
    fenced = [
        card.answer.count("\n", 0, match.start()) + 1
        for match in FENCE.finditer(card.answer)
        if match.group(2) == "calc"
    ]
    assert fenced == [example.line for example in find_examples(card.answer)]
    assert all(rows[line - 1].strip() == "```calc" for line in fenced)
