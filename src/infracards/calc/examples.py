"""Worked examples written into the answers as ``calc`` blocks, read back to be recomputed.

A block sits beside the example it computes; the learner sees it as it is, the review panel
prefills the calculator from it, and a test recomputes it::

    ```calc
    # ZeRO Fig. 1, P_os
    model: memory
    params: 7.5e9
    dp: 64
    zero: 1
    expect: per_gpu_gb = 31.4 ± 0.05
    ```

``model`` comes first; every other ``flag: value`` item is a parameter, written as on the
command line; each ``expect`` names an output, the value the answer states and the rounding it
allows (absolute, or ``± 1%``). A line may hold several items split by ``;``
(``tp: 8; pp: 8``); lines starting with ``#`` are comments.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

from infracards.calc.registry import get_model
from infracards.calc.spec import Model, Result, format_number
from infracards.errors import CalcError

LANGUAGE = "calc"
_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```" + LANGUAGE + r"[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.M | re.S,
)
_EXPECT = re.compile(r"(?P<key>\w+)\s*=\s*(?P<value>\S+)\s*±\s*(?P<tol>[^%\s]+)\s*(?P<pct>%?)")


def _finite(text: str, what: str, line: int) -> float:
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise CalcError(f"line {line}: {what} must be a finite number, got {text!r}")
    return number


@dataclass(frozen=True, slots=True)
class Expectation:
    """An output's value as the answer states it, and the rounding that value carries."""

    output: str
    value: float
    tolerance: float
    percent: bool
    line: int

    def allows(self, computed: float) -> bool:
        margin = abs(self.value) * self.tolerance / 100 if self.percent else self.tolerance
        return abs(computed - self.value) <= margin + 1e-9 * abs(self.value)

    def __str__(self) -> str:
        rounding = f"{format_number(self.tolerance)}{'%' if self.percent else ''}"
        return f"{self.output} = {format_number(self.value)} ± {rounding}"


def _expectation(text: str, model: Model, line: int) -> Expectation:
    match = _EXPECT.fullmatch(text)
    if match is None:
        raise CalcError(f"line {line}: expect must read 'output = value ± rounding', got {text!r}")
    key = match["key"]
    if key not in {output.key for output in model.outputs}:
        outputs = ", ".join(output.key for output in model.outputs)
        raise CalcError(f"line {line}: {model.name} has no output {key!r}; it has {outputs}")
    tolerance = _finite(match["tol"], "the rounding", line)
    if tolerance < 0:
        raise CalcError(f"line {line}: the rounding cannot be negative, got {match['tol']!r}")
    value = _finite(match["value"], "the expected value", line)
    return Expectation(key, value, tolerance, bool(match["pct"]), line)


@dataclass(frozen=True)
class Example:
    """One ``calc`` block: a model, its inputs as written, what the answer says comes out."""

    model: Model
    inputs: tuple[tuple[str, str], ...]
    """(flag, value as written), in the block's order: what a calculator form is filled with."""
    expectations: tuple[Expectation, ...]
    line: int
    """Line of the opening fence in the Markdown (1-based); the block's first line if alone."""

    def run(self) -> Result:
        return self.model.run(dict(self.inputs))

    def misses(self, result: Result) -> list[str]:
        """The expectations ``result`` breaks, each with the value computed."""
        return [
            f"line {e.line}: expected {e}, computed {format_number(result[e.output])}"
            for e in self.expectations
            if not e.allows(result[e.output])
        ]


def _items(text: str, first_line: int) -> Iterator[tuple[int, str]]:
    """(line number, "name: value") for each item; a line may hold several, split by ";"."""
    for number, line in enumerate(text.splitlines(), start=first_line):
        if line.strip() and not line.strip().startswith("#"):
            for item in line.split(";"):
                yield number, item.strip()


def parse_example(text: str, *, first_line: int = 1, fence_line: int | None = None) -> Example:
    """A block's body (without fences); errors name its line, counting from ``first_line``."""
    model: Model | None = None
    inputs: dict[str, tuple[str, int]] = {}
    expects: list[tuple[str, int]] = []
    for number, line in _items(text, first_line):
        key, colon, value = (part.strip() for part in line.partition(":"))
        if not colon or not value:
            raise CalcError(f"line {number}: expected 'name: value', got {line!r}")
        if model is None:
            if key != "model":
                raise CalcError(f"line {number}: a calc block starts with 'model: NAME'")
            try:
                model = get_model(value)
            except CalcError as error:
                raise CalcError(f"line {number}: {error}") from None
        elif key == "expect":
            expects.append((value, number))
        elif key in inputs or key == "model":
            raise CalcError(f"line {number}: {key} is given twice")
        else:
            try:
                model.param(key)
            except CalcError as error:
                raise CalcError(f"line {number}: {error}", flag=key) from None
            inputs[key] = (value, number)
    if model is None:
        raise CalcError(f"line {first_line}: an empty calc block")
    if not expects:
        raise CalcError(f"line {first_line}: a calc block states at least one 'expect:'")
    try:
        model.validate({flag: value for flag, (value, _) in inputs.items()})
    except CalcError as error:
        where = inputs[error.flag][1] if error.flag in inputs else first_line
        raise CalcError(f"line {where}: {error}", flag=error.flag) from None
    return Example(
        model=model,
        inputs=tuple((flag, value) for flag, (value, _) in inputs.items()),
        expectations=tuple(_expectation(text, model, line) for text, line in expects),
        line=first_line if fence_line is None else fence_line,
    )


def find_examples(markdown: str) -> list[Example]:
    """Every ``calc`` block in an answer, in order; a malformed one raises ``CalcError``."""
    examples = []
    for match in _FENCE.finditer(markdown):
        fence_line = markdown.count("\n", 0, match.start()) + 1
        body = textwrap.dedent(match["body"])
        examples.append(parse_example(body, first_line=fence_line + 1, fence_line=fence_line))
    return examples
