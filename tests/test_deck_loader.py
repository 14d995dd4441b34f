"""The deck loader is both safe (hostile nesting is an error, never a crash) and fast (it takes
libyaml's C event stream, never PyYAML's pure-Python scanner, and composes it without recursion
that input could drive)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infracards import deck as deck_module
from infracards.deck import compose_yaml, load_deck, parse_deck
from infracards.errors import DeckError

HEADER = "format: infracards-deck/v1\nid: demo\ntitle: Demo\nversion: 1\nlanguage: zh-CN\n"
HOSTILE = {
    "flow sequences": "[" * 1_000_000,
    # Under a field a deck has: an unknown one is refused before its value is read.
    "flow mappings": "lock: " + "{a: " * 300_000,
    "block sequences": "- " * 300_000 + "x\n",
    "block mappings": "lock:\n" + "".join(f"{' ' * (n + 1)}k:\n" for n in range(2_000)),
    "nested in a card": HEADER + "cards:\n  - id: q01\n    prompt: " + "[" * 500_000 + "\n",
}

needs_libyaml = pytest.mark.skipif(
    deck_module._CParser is None, reason="PyYAML was built without libyaml"
)


def check_in_child(path: Path) -> subprocess.CompletedProcess[str]:
    """`infracards deck check` in its own process, so a crash shows as a signal, not a hang."""
    return subprocess.run(
        [sys.executable, "-m", "infracards", "deck", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_nesting_is_one_clear_error_not_a_crash(tmp_path: Path, text: str) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(text, encoding="utf-8")
    result = check_in_child(path)
    # Our contract, whichever layer refuses (our composer, or libyaml's own nesting limit in
    # PyYAML 6.0.4+): one line naming file:line, what is wrong and the limit; exit code 1.
    assert result.returncode == 1, result.stderr
    assert re.fullmatch(
        rf"infracards: {re.escape(str(path))}:\d+: nested deeper than 16 levels\n", result.stderr
    ), result.stderr


@needs_libyaml
def test_the_same_input_crashes_pyyamls_c_loader(tmp_path: Path) -> None:
    """Positive control: the nesting above really is hostile to the stock fast loader."""
    path = tmp_path / "deep.yaml"
    path.write_text("[" * 30_000, encoding="utf-8")
    crash = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import yaml; yaml.load(open({str(path)!r}).read(), Loader=yaml.CSafeLoader)",
        ],
        capture_output=True,
        timeout=120,
    )
    assert crash.returncode != 0
    assert check_in_child(path).returncode == 1


@needs_libyaml
def test_loading_never_touches_pyyamls_pure_python_parser(
    sample_deck: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pure-Python scanner is ~20× slower: a 100k-card deck would take minutes."""

    def forbidden(*_: object, **__: object) -> None:
        raise AssertionError("the pure-Python YAML parser was used")

    for target in (yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer):
        for name in ("__init__", "check_token", "get_event", "compose_node"):
            if name in vars(target):
                monkeypatch.setattr(target, name, forbidden)
    assert len(load_deck(sample_deck).cards) == 4


def pure_python(data: bytes, path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patch:
        patch.setattr(deck_module, "_CParser", None)
        return outcome(lambda: compose_yaml(data, path=path))


def outcome(compose: Any) -> Any:
    """The composed values with every remembered line, or the error message."""
    try:
        return lined(compose())
    except DeckError as error:
        return str(error)


def lined(value: Any) -> Any:
    if isinstance(value, dict):
        return (
            "map",
            value.line,
            [(k, value.key_lines[k], value.value_lines[k], lined(v)) for k, v in value.items()],
        )
    if isinstance(value, list):
        return ("seq", value.line, value.lines, [lined(v) for v in value])
    return (type(value).__name__, value)


scalars = st.one_of(
    st.text(max_size=12),
    st.integers(-(10**20), 10**20),
    st.sampled_from(["no", "yes", "~", "012", "1e3", "0x1F", "null", "中文", "- x", "a: b"]),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)


@needs_libyaml
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=documents,
    flow=st.booleans(),
    extra=st.sampled_from(["", "&a ", "!!str ", "*a", "[[[[[[[[[[[[[[[[[["]),
)
def test_fast_and_pure_python_parsers_compose_identically(
    document: Any, flow: bool, extra: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Same values, same lines, same errors: libyaml is a faster parser, not another meaning."""
    text = yaml.safe_dump(
        {"x": document, "y": [1, "z"]}, default_flow_style=flow, allow_unicode=True
    )
    data = (text.replace("y:", f"y: {extra}", 1) if extra else text).encode()
    path = Path("deck.yaml")
    with pytest.MonkeyPatch.context() as monkeypatch:
        slow = pure_python(data, path, monkeypatch)
    fast = outcome(lambda: compose_yaml(data, path=path))
    if isinstance(fast, str) and isinstance(slow, str) and not fast.endswith(("levels", "deck")):
        # Syntax errors: the two parsers word them differently; both must name a line.
        assert fast.split(":")[1].isdigit() and slow.split(":")[1].isdigit()
    else:
        assert fast == slow


def test_a_large_deck_keeps_every_card_and_line(tmp_path: Path) -> None:
    cards = "".join(
        f"  - id: c{n:05d}\n    prompt: 第 {n} 题\n    tags: [t{n % 7}]\n    answer: |\n      答案 {n}\n"
        for n in range(5_000)
    )
    deck = parse_deck((HEADER + "cards:\n" + cards).encode(), path=tmp_path / "big.yaml")
    assert len(deck.cards) == 5_000
    last = deck.cards[-1]
    assert (last.card_id, last.prompt, last.tags, last.answer) == (
        "c04999",
        "第 4999 题",
        ("t1",),
        "答案 4999\n",
    )
    assert last.line == 7 + 5 * 4_999
