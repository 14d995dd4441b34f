"""`infracards calc`: the script contracts, --list, human tables, and one line for bad input."""

from __future__ import annotations

import contextlib
import io
import json
import math
import subprocess
import sys

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from infracards.calc import MODELS, Param
from infracards.cli import main


def run(*argv: str) -> tuple[int, str, str]:
    """The command in this process, its output captured (fit for hypothesis, unlike capsys)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_the_memory_contract_zero_fig_1() -> None:
    code, out, err = run(
        "calc", "memory", "--params", "7.5e9", "--dp", "64", "--zero", "1", "--json"
    )
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert round(result["per_gpu_gb"], 1) == 31.4
    assert result["model"] == "memory" and result["inputs"]["dp"] == 64


def test_zero_0_is_plain_data_parallelism() -> None:
    out = run("calc", "memory", "--params", "7.5e9", "--dp", "64", "--zero", "0", "--json")[1]
    assert json.loads(out)["per_gpu_gb"] == pytest.approx(120)


def test_the_train_time_contract_megatron_175b() -> None:
    code, out, err = run(
        "calc", "train-time", "--params", "175e9", "--tokens", "300e9", "--gpus", "1024",
        "--tflops", "140", "--recompute", "full", "--json",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert round(json.loads(out)["days"]) == 34


def test_json_may_come_before_the_name() -> None:
    code, out, _ = run("calc", "--json", "memory", "--params", "7.5e9", "--dp", "64", "--zero", "3")
    assert code == 0 and json.loads(out)["per_gpu_gb"] == pytest.approx(1.875)


def test_list_json_describes_every_model_and_its_parameters() -> None:
    code, out, err = run("calc", "--list", "--json")
    assert (code, err) == (0, "")
    described = {model["name"]: model for model in json.loads(out)}
    assert list(described) == list(MODELS)
    for name, model in MODELS.items():
        flags = [param["flag"] for param in described[name]["params"]]
        assert flags == [param.flag for param in model.params]
        assert [o["key"] for o in described[name]["outputs"]] == [o.key for o in model.outputs]
    dp = next(p for p in described["memory"]["params"] if p["flag"] == "dp")
    assert (dp["symbol"], dp["kind"], dp["default"], dp["min"]) == ("N_d", "int", 1, 1)


def test_list_names_every_model_and_flag() -> None:
    code, out, _ = run("calc", "--list")
    assert code == 0
    for name, model in MODELS.items():
        assert f"{name}: {model.title}" in out
        for param in model.params:
            assert f"--{param.flag}" in out


def test_the_human_table_aligns_inputs_and_outputs_with_units() -> None:
    code, out, _ = run("calc", "memory", "--params", "7.5e9", "--dp", "64", "--zero", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "memory: Model-state memory per GPU"
    dp = next(line for line in lines if line.strip().startswith("--dp "))
    tp = next(line for line in lines if line.strip().startswith("--tp "))
    assert dp.split() == ["--dp", "N_d", "64"] and tp.split() == ["--tp", "t", "1", "default"]
    per_gpu = next(line for line in lines if line.strip().startswith("per_gpu_gb"))
    assert "31.41 GB" in per_gpu and "model states on one GPU" in per_gpu
    outputs = lines[lines.index("outputs") + 1 :]
    assert len({line.index(line.split()[1]) for line in outputs}) == 1  # values in one column


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["memory", "--params", "7.5e9", "--dp", "0"], "--dp: must be a whole number from 1"),
        (["memory", "--params", "abc"], "--params: must be a number from 1 to 1e15, got 'abc'"),
        (["memory", "--params", "1e30"], "--params: must be a number from 1 to 1e15"),
        (["memory", "--dp", "8"], "--params: is required"),
        (["memory", "--params", "7e9", "--dp", "64", "--replicas", "3"], "--replicas: must divide"),
        (
            ["activations", "--seq", "2048", "--hidden", "12288", "--heads", "96", "--layers",
             "96", "--tp", "7"],
            "--tp: must divide --heads (96)",
        ),
        (["train-time", "--params", "7e9", "--tokens", "1e12", "--gpus", "-8"], "--gpus"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_naming_the_parameter_and_exit_1(argv: list[str], words: str) -> None:
    code, out, err = run("calc", *argv)
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and err.startswith(f"infracards: calc {argv[0]}: ")
    assert words in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["memory", "--params", "7e9", "--dpp", "8"], "--dpp: not a parameter of memory"),
        (["memory", "--param", "7e9"], "--param: not a parameter of memory"),  # no abbreviations
        (["memory", "--params"], "--params: expected one argument"),
        (["memory", "7e9"], "unexpected argument '7e9'"),
        (["nosuch"], "no calculator 'nosuch'; there are memory, activations"),
        ([], "name a calculator"),
        (["--params", "7e9"], "a calculator's name comes first"),
        (["--list", "memory"], "not both"),
    ],
)
def test_usage_errors_are_one_line_of_ours_and_exit_2(argv: list[str], words: str) -> None:
    code, out, err = run("calc", *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("infracards: calc") and "usage:" not in err
    assert words in err


def test_help_lists_the_flags_from_the_model_and_exits_0() -> None:
    code, out, err = run("calc", "bubble", "--help")
    assert (code, err) == (0, "")
    for param in MODELS["bubble"].params:
        assert f"--{param.flag}" in out
    assert "Zero Bubble" in out  # its sources
    code, out, _ = run("calc", "--help")
    assert code == 0 and all(name in out for name in MODELS)


def test_building_the_parser_imports_neither_the_models_nor_sqlalchemy() -> None:
    code = (
        "import sys; from infracards.cli import build_parser; build_parser(); "
        "print(sorted(m for m in ('sqlalchemy', 'infracards.calc') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_calc_needs_no_store(home) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import sys; from infracards.cli import main; "
        "main(['calc', 'memory', '--params', '7e9', '--json']); "
        "print('sqlalchemy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "False"
    assert not home.exists()


VALUES = st.one_of(
    st.text(max_size=10),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(["1f1b", "full", "ring", "all-reduce", "hsdp", "3", "40%", "on", "-1e3"]),
)
"""Any text a script might pass."""

VALID = {
    "memory": {"params": "7.5e9"},
    "activations": {"seq": "2048", "hidden": "12288", "heads": "96", "layers": "96"},
    "train-time": {"params": "7e9", "tokens": "2e12", "gpus": "1024"},
    "collective": {"ranks": "8", "bytes": "1e9"},
    "dp-comm": {"params": "7e9", "dp": "64"},
    "bubble": {"pp": "8", "microbatches": "32"},
}
"""Inputs each model computes, for the changes below to start from."""


def in_range(param: Param) -> st.SearchStrategy[str]:
    if param.kind == "choice":
        return st.sampled_from(param.choices)
    if param.kind == "int":
        return st.integers(int(param.low), int(min(param.high, 10**6))).map(str)
    return st.floats(param.low, param.high).map(repr)


@settings(max_examples=400, deadline=None)
@given(model=st.sampled_from(sorted(MODELS)), data=st.data())
def test_any_arguments_compute_or_give_one_line(model: str, data: st.DataObject) -> None:
    params = {param.flag: param for param in MODELS[model].params}
    typed = dict(VALID[model])
    for flag in data.draw(st.lists(st.sampled_from(list(params)), max_size=4, unique=True)):
        wild = data.draw(st.integers(0, 3)) == 0  # else a value in the parameter's range
        typed[flag] = data.draw(VALUES if wild else in_range(params[flag]))
    if data.draw(st.integers(0, 9)) == 0:
        typed["bogus"] = data.draw(VALUES)
    code, out, err = run(
        "calc", model, *(f"--{flag}={text}" for flag, text in typed.items()), "--json"
    )
    event(f"exit {code}")
    if code == 0:
        result = json.loads(out)
        values = [result[o.key] for o in MODELS[model].outputs]
        assert all(math.isfinite(v) and v >= 0 for v in values)
        assert err == ""
    else:
        assert code in (1, 2) and out == ""
        assert err.count("\n") == 1 and err.startswith(f"infracards: calc {model}: --")
        assert "Traceback" not in err
