"""The calculator panel's decisions without Textual: models per card, prefill, inline errors."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from infracards.calc import MODELS
from infracards.records import CardRecord
from infracards.scheduler import SM2State
from infracards.services.answers import AnswerBook
from infracards.services.calculator import EMPTY_OUTPUT, card_sheets, evaluate
from infracards.services.library import add_deck, notation_page
from infracards.services.publish import load_source
from infracards.store.db import transaction
from infracards.store.reads import find_card
from tests.calc_deck import calc_store


@pytest.fixture
def calc_engine(home: Path, tmp_path: Path) -> Iterator[Engine]:
    engine = calc_store(home, tmp_path / "calc-decks")
    yield engine
    engine.dispose()


def card(engine: Engine, card_id: str) -> CardRecord:
    with transaction(engine) as session:
        [found] = find_card(session, card_id=card_id, deck_id="calcdemo")
    return found


def outputs(model: str, texts: dict[str, str]) -> dict[str, str]:
    return {row.key: row.text for row in evaluate(model, texts).outputs}


def test_a_card_offers_the_calculators_it_names_in_its_order(calc_engine: Engine) -> None:
    sheets = card_sheets(card(calc_engine, "q01"), AnswerBook(), answer_shown=True)
    assert [s.model for s in sheets] == ["memory", "bubble"]
    assert card_sheets(card(calc_engine, "q02"), AnswerBook(), answer_shown=True) == ()


def test_a_locked_card_offers_its_calculators_with_the_defaults(calc_engine: Engine) -> None:
    locked = card(calc_engine, "q03")
    assert locked.locked
    [sheet] = card_sheets(locked, AnswerBook(), answer_shown=True)
    assert sheet.model == "train-time"
    assert all(f.text == "" for f in sheet.fields)
    placeholders = {f.flag: f.placeholder for f in sheet.fields}
    assert placeholders["params"] == "required"
    assert placeholders["mfu"] == "default 40%"
    assert placeholders["recompute"] == "default none"
    assert placeholders["tflops"] == "unset"
    shown = evaluate(sheet.model, sheet.texts())
    assert shown.missing == ("params", "tokens", "gpus") and not shown.computed
    assert {row.text for row in shown.outputs} == {EMPTY_OUTPUT}


def test_the_form_is_prefilled_with_the_first_worked_example_of_its_model(
    calc_engine: Engine,
) -> None:
    memory, bubble = card_sheets(card(calc_engine, "q01"), AnswerBook(), answer_shown=True)
    texts = memory.texts()
    assert (texts["params"], texts["dp"], texts["zero"]) == ("7.5e9", "64", "1")  # not zero: 3
    assert texts["tp"] == ""  # not in the example: its default applies
    assert "worked example" in memory.origin
    assert outputs("memory", texts)["per_gpu_gb"] == "31.41 GB"
    assert all(f.text == "" for f in bubble.fields)  # the answer has no bubble example


def test_before_the_answer_is_shown_its_example_is_not_given_away(calc_engine: Engine) -> None:
    memory, _ = card_sheets(card(calc_engine, "q01"), AnswerBook(), answer_shown=False)
    assert all(f.text == "" for f in memory.fields)
    assert "worked example" not in memory.origin


def test_editing_one_input_changes_the_outputs() -> None:
    texts = {"params": "7.5e9", "dp": "64", "zero": "1"}
    assert outputs("memory", texts)["per_gpu_gb"] == "31.41 GB"
    assert outputs("memory", {**texts, "zero": "2"})["per_gpu_gb"] == "16.64 GB"
    assert outputs("memory", {**texts, "zero": "0"})["per_gpu_gb"] == "120 GB"


def test_a_bad_input_gives_its_field_the_message_and_leaves_the_others_alone() -> None:
    shown = evaluate("memory", {"params": "7.5e9", "dp": "0", "zero": "4", "tp": "8"})
    assert set(shown.errors) == {"dp", "zero"}
    assert shown.errors["dp"] == "--dp: must be a whole number from 1 to 1e7, got '0'"
    assert "one of 0, 1, 2, 3" in shown.errors["zero"]
    assert not shown.computed and {row.text for row in shown.outputs} == {EMPTY_OUTPUT}


def test_a_rule_between_fields_marks_the_field_it_names() -> None:
    shown = evaluate("memory", {"params": "7e9", "dp": "64", "replicas": "3"})
    assert (
        list(shown.errors) == ["replicas"] and "must divide --dp (64)" in shown.errors["replicas"]
    )
    shown = evaluate(
        "train-time", {"params": "7e9", "tokens": "2e12", "gpus": "8", "attention": "causal"}
    )
    assert "is required with --attention causal" in shown.errors["layers"]


def test_a_percentage_is_read_as_a_fraction() -> None:
    base = {"params": "7e9", "tokens": "2e12", "gpus": "1024"}
    assert outputs("train-time", {**base, "mfu": "40%"}) == outputs(
        "train-time", {**base, "mfu": "0.4"}
    )


def test_every_field_has_a_hint_with_its_symbol_and_rule(calc_engine: Engine) -> None:
    memory, _ = card_sheets(card(calc_engine, "q01"), AnswerBook(), answer_shown=False)
    dp = next(f for f in memory.fields if f.flag == "dp")
    assert dp.hint.startswith("--dp: N_d · ") and "a whole number from 1" in dp.hint


def test_calculators_this_version_lacks_are_left_out(calc_engine: Engine) -> None:
    future = replace(card(calc_engine, "q01"), calculators=("kv-cache", "memory"))
    assert [s.model for s in card_sheets(future, AnswerBook(), answer_shown=True)] == ["memory"]


def test_the_notation_page_of_a_deck_and_of_one_without(
    calc_engine: Engine, sample_deck: Path
) -> None:
    add_deck(calc_engine, sample_deck)
    page = notation_page(calc_engine, deck_id="calcdemo")
    assert page is not None and page.startswith("# 记号与常数") and "| Ψ | 模型参数量 |" in page
    assert notation_page(calc_engine, deck_id="sample") is None


@settings(max_examples=300, deadline=None)
@given(
    model=st.sampled_from(sorted(MODELS)),
    data=st.data(),
)
def test_any_typed_text_computes_or_marks_a_field(model: str, data: st.DataObject) -> None:
    flags = [param.flag for param in MODELS[model].params]
    texts = data.draw(
        st.dictionaries(
            st.sampled_from(flags),
            st.one_of(
                st.text(max_size=8),
                st.floats(allow_nan=True).map(str),
                st.integers(-10, 10**6).map(str),
                st.sampled_from(["1f1b", "full", "ring", "hsdp", "3", "40%", "on"]),
            ),
        )
    )
    shown = evaluate(model, texts)
    assert set(shown.errors) <= set(flags) and set(shown.missing) <= set(flags)
    if shown.computed:
        values = MODELS[model].run({f: t for f, t in texts.items() if t.strip()}).values
        assert all(math.isfinite(v) and v >= 0 for v in values.values())
    else:
        assert {row.text for row in shown.outputs} == {EMPTY_OUTPUT}
        assert shown.errors or shown.missing or shown.problem


SOURCE = Path(__file__).resolve().parents[2] / "deck" / "source" / "module03"


def test_every_calculator_of_the_shipped_deck_opens_on_its_worked_example() -> None:
    """Each card of Module 03 with calculators, its answer open: every form starts computed."""
    offered = {}
    for source in load_source(SOURCE).cards:
        if not source.calculators:
            continue
        record = CardRecord(
            pk=1, deck_id="module03", card_id=source.card_id, prompt=source.prompt, tags=(),
            key_points=(), answer=source.answer, sealed=None, state=SM2State(), due=None,
            language="zh-CN", calculators=source.calculators,
        )  # fmt: skip
        sheets = card_sheets(record, AnswerBook(), answer_shown=True)
        offered[source.card_id] = [sheet.model for sheet in sheets]
        for sheet in sheets:
            assert sheet.origin == "the answer's worked example", (source.card_id, sheet.model)
            shown = evaluate(sheet.model, sheet.texts())
            assert shown.computed, (source.card_id, sheet.model, shown)
    assert offered == {
        "q03": ["collective", "bubble"], "q04": ["memory"], "q05": ["collective"],
        "q06": ["collective"], "q09": ["activations"], "q12": ["bubble"], "q13": ["bubble"],
        "q14": ["activations", "memory"], "q16": ["train-time", "dp-comm"],
        "q17": ["memory", "activations"], "q19": ["collective"], "q20": ["collective"],
        "q22": ["dp-comm", "memory"], "q23": ["dp-comm", "memory"], "q25": ["collective"],
    }  # fmt: skip
