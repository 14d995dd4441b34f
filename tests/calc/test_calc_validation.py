"""One validation path: every bad input is one CalcError naming its flag, never another error."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infracards.calc import MODELS, Param, calculate, describe, format_value, get_model
from infracards.errors import CalcError, InfracardsError

GPT3 = {"seq": "2048", "hidden": "12288", "heads": "96", "layers": "96"}


@pytest.mark.parametrize(
    ("model", "inputs", "flag", "words"),
    [
        ("memory", {"params": "7.5e9x"}, "params", "a number from 1 to 1e15"),
        ("memory", {"params": "nan"}, "params", "a number"),
        ("memory", {"params": "inf"}, "params", "a number"),
        ("memory", {"params": "1e30"}, "params", "from 1 to 1e15"),
        ("memory", {"params": "7e9", "dp": "0"}, "dp", "a whole number from 1"),
        ("memory", {"params": "7e9", "dp": "-8"}, "dp", "a whole number from 1"),
        ("memory", {"params": "7e9", "dp": "7.5"}, "dp", "a whole number"),
        ("memory", {"params": "7e9", "zero": "4"}, "zero", "one of 0, 1, 2, 3"),
        ("memory", {"params": "7e9", "dp": "64", "replicas": "3"}, "replicas", "divide --dp"),
        ("memory", {"dp": "8"}, "params", "is required"),
        ("memory", {"params": "7e9", "zeros": "1"}, "zeros", "not a parameter of memory"),
        ("train-time", {"params": "7e9", "tokens": "2e12", "gpus": "0"}, "gpus", "from 1"),
        (
            "train-time",
            {"params": "7e9", "tokens": "2e12", "gpus": "8", "tflops": "100", "mfu": "0.4"},
            "tflops",
            "not both",
        ),
        (
            "train-time",
            {"params": "7e9", "tokens": "2e12", "gpus": "8", "mfu": "0.9", "recompute": "full"},
            "mfu",
            "at most 0.75",
        ),
        (
            "train-time",
            {"params": "7e9", "tokens": "2e12", "gpus": "8", "attention": "causal"},
            "layers",
            "is required with --attention causal",
        ),
        ("activations", {**GPT3, "tp": "7"}, "tp", "divide --heads (96)"),
        ("activations", {**GPT3, "pp": "5"}, "pp", "divide --layers (96)"),
        ("activations", {**GPT3, "pp": "8", "virtual": "5"}, "virtual", "must divide --layers"),
        ("activations", {**GPT3, "schedule": "gpipe"}, "microbatches", "is required"),
        ("activations", {**GPT3, "recompute": "some"}, "recompute", "none, selective, full"),
        ("collective", {"ranks": "12", "bytes": "1e9"}, "ranks", "--gpus-per-node (8)"),
        ("collective", {"ranks": "16", "bytes": "1e9", "algo": "one-shot"}, "algo", "a node"),
        ("collective", {"ranks": "8", "bytes": "1e9", "algo": "bruck"}, "algo", "all-reduce"),
        ("collective", {"ranks": "6", "bytes": "1e9", "algo": "rhd"}, "ranks", "power of two"),
        ("dp-comm", {"params": "7e9", "dp": "64", "replicas": "4"}, "replicas", "hsdp only"),
        (
            "dp-comm",
            {"params": "7e9", "dp": "64", "strategy": "hsdp", "replicas": "3"},
            "replicas",
            "divide --dp",
        ),
        ("bubble", {"pp": "7", "microbatches": "28", "schedule": "dualpipe"}, "pp", "even"),
        ("bubble", {"pp": "8", "microbatches": "8", "schedule": "dualpipe"}, "microbatches", "16"),
        ("bubble", {"pp": "8", "microbatches": "8", "virtual": "2"}, "virtual", "interleaved"),
        (
            "bubble",
            {"pp": "8", "microbatches": "16", "schedule": "dualpipe", "overlapped": "9"},
            "overlapped",
            "F+B+W = 3",
        ),
    ],
)
def test_bad_input_names_the_flag_and_the_rule(
    model: str, inputs: dict[str, str], flag: str, words: str
) -> None:
    with pytest.raises(CalcError) as caught:
        calculate(model, inputs)
    assert caught.value.flag == flag
    assert str(caught.value).startswith(f"--{flag}")
    assert words in str(caught.value)
    assert isinstance(caught.value, InfracardsError)


def test_an_unknown_model_lists_the_models() -> None:
    with pytest.raises(CalcError, match="no calculator 'memroy'; there are memory, activations"):
        get_model("memroy")


def test_text_is_parsed_per_parameter() -> None:
    memory = get_model("memory")
    assert memory.parse("params", " 7.5e9 ") == 7.5e9
    assert memory.parse("dp", "64") == 64 and isinstance(memory.parse("dp", "64"), int)
    assert memory.parse("dp", "1e3") == 1000
    assert memory.parse("zero", "1") == "1"
    assert get_model("train-time").parse("mfu", "40%") == pytest.approx(0.4)
    with pytest.raises(CalcError, match="--mfu"):
        get_model("train-time").parse("mfu", "140%")


def test_numbers_and_text_go_through_the_same_rules() -> None:
    as_text = calculate("memory", {"params": "7.5e9", "dp": "64", "zero": "1"})
    as_numbers = calculate("memory", {"params": 7.5e9, "dp": 64, "zero": 1})
    assert as_text.values == as_numbers.values
    for bad in (True, 64.5, math.nan, [64], "6 4"):
        with pytest.raises(CalcError, match="--dp"):
            calculate("memory", {"params": 7.5e9, "dp": bad})


def test_results_are_frozen_and_json_able() -> None:
    result = calculate("memory", {"params": "7.5e9", "dp": "64", "zero": "1"})
    with pytest.raises(TypeError):
        result.values["per_gpu_gb"] = 0  # type: ignore[index]
    document = json.loads(json.dumps(result.as_dict()))
    assert document["model"] == "memory"
    assert document["per_gpu_gb"] == pytest.approx(31.40625)
    assert document["inputs"]["dp"] == 64


def test_the_contracts_scripts_rely_on() -> None:
    """`calc memory --params --dp --zero` gives per_gpu_gb; `calc train-time ...` gives days."""
    flags = {name: {p.flag for p in model.params} for name, model in MODELS.items()}
    outputs = {name: {o.key for o in model.outputs} for name, model in MODELS.items()}
    assert {"params", "dp", "zero"} <= flags["memory"] and "per_gpu_gb" in outputs["memory"]
    assert {"params", "tokens", "gpus", "tflops", "recompute"} <= flags["train-time"]
    assert "days" in outputs["train-time"]
    plain = calculate("memory", {"params": "7.5e9", "dp": "64", "zero": "0"})
    assert plain["per_gpu_gb"] == 120


def test_every_model_describes_itself_consistently() -> None:
    listing = json.loads(json.dumps(describe()))
    assert [entry["name"] for entry in listing] == list(MODELS)
    for entry in listing:
        model = get_model(entry["name"])
        params = [p["flag"] for p in entry["params"]]
        assert len(params) == len(set(params)), entry["name"]
        keys = [o["key"] for o in entry["outputs"]]
        assert len(keys) == len(set(keys)), entry["name"]
        assert entry["sources"] and entry["help"] and entry["title"]
        for param in model.params:
            if param.default is not None:
                assert param.accept(param.default) == param.default, param.flag
            assert not (param.required and param.default is not None), param.flag
            assert param.choices if param.kind == "choice" else param.low < param.high
            assert param.help, param.flag


def test_format_value() -> None:
    assert format_value(31.40625, "GB") == "31.41 GB"
    assert format_value(1.875, "GB") == "1.875 GB"
    assert format_value(120.0, "GB") == "120 GB"
    assert format_value(8.4e22, "FLOP") == "8.4e22 FLOP"
    assert format_value(0.17949, "ratio") == "17.95%"
    assert format_value(0.0, "ms") == "0 ms"
    assert format_value(33.9084, "days") == "33.91 days"


def test_the_layer_is_pure() -> None:
    code = (
        "import sys, infracards.calc; "
        "print(sorted(m for m in ('textual', 'rich', 'sqlalchemy', 'sqlmodel', 'yaml') "
        "if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


# --- the whole input space: a finite, non-negative result or one CalcError -------------------

JUNK = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["nan", "inf", "-inf", "1e30", "-1", "0", "1e400", "7.5", "40%", "1e-300"]),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)


def sensible(param: Param) -> st.SearchStrategy[object]:
    """Values inside the parameter's own range, as text or numbers, so rules get exercised;
    whole numbers lean to powers of two, which pass divisibility rules more often."""
    if param.kind == "choice":
        return st.sampled_from(param.choices)
    if param.kind == "int":
        low, high = int(param.low), int(param.high)
        powers = [2**k for k in range(40) if low <= 2**k <= high]
        return st.one_of(
            st.sampled_from(powers),
            st.sampled_from(powers).map(str),
            st.integers(min_value=low, max_value=high),
            st.sampled_from([low, high]),
        )
    return st.one_of(
        st.floats(min_value=param.low, max_value=param.high),
        st.floats(min_value=param.low, max_value=param.high).map(repr),
        st.sampled_from([param.low, param.high]),
    )


@st.composite
def raw_inputs(draw: st.DrawFn, model_name: str) -> dict[str, object]:
    """Half the time only in-range values; otherwise junk mixed in and unknown flags."""
    model = get_model(model_name)
    dirty = draw(st.booleans())
    raw: dict[str, object] = {}
    for param in model.params:
        if param.required or draw(st.integers(0, 2)) == 0:
            wild = dirty and draw(st.booleans())
            raw[param.flag] = draw(JUNK if wild else sensible(param))
    if dirty and draw(st.booleans()):
        raw[draw(st.text(min_size=1, max_size=6))] = draw(JUNK)
    return raw


@pytest.mark.parametrize("model_name", list(MODELS))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_any_input_gives_a_finite_result_or_a_calc_error(
    model_name: str, data: st.DataObject
) -> None:
    model = get_model(model_name)
    raw = data.draw(raw_inputs(model_name))
    try:
        result = model.run(raw)
    except CalcError as error:
        assert error.flag is not None
        assert str(error).startswith(f"--{error.flag}")
        return
    for key, value in result.values.items():
        assert math.isfinite(value) and value >= 0, (key, value, raw)
    assert json.dumps(result.as_dict())
