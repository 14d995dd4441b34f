"""What a calculator model is made of: parameters, outputs, one validation path, formatting.

A model is data (its parameters with symbol, flag, unit, default, kind and range; its outputs
with unit) plus a pure function from validated inputs to named outputs. Parsing and validation
live here once, so the CLI, the review panel and the deck's worked examples reject the same
input with the same message, which names the parameter by its CLI flag and states the rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from infracards.errors import CalcError

Kind = Literal["int", "float", "choice"]
Value = int | float | str

RATIO = "ratio"
"""The unit of a fraction: read as 0.4 or "40%", shown as a percentage."""


def format_number(x: float) -> str:
    """Four significant digits, as a whiteboard would carry them: 31.41, 1.875, 120, 8.4e22."""
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e6:
        decimals = max(0, 3 - math.floor(math.log10(abs(x))))
        text = f"{x:.{decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    mantissa, exponent = f"{x:.3e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def format_value(x: float, unit: str) -> str:
    """A number with its unit: "31.41 GB", "17.9%", "2.4 days"."""
    if unit == RATIO:
        return f"{format_number(x * 100)}%"
    text = format_number(x)
    return f"{text} {unit}" if unit else text


def reject(flag: str, rule: str) -> CalcError:
    """The error for a parameter that breaks ``rule`` (callers ``raise reject(...)``)."""
    return CalcError(f"--{flag}: {rule}", flag=flag)


def _shown(value: object) -> str:
    return repr(value.strip()) if isinstance(value, str) else repr(value)


@dataclass(frozen=True, slots=True)
class Param:
    """One input of a model, named as in the deck's notation and on the command line."""

    flag: str
    """CLI flag without dashes, also the key in JSON and in the deck's ``calc`` blocks."""
    symbol: str
    help: str
    kind: Kind = "float"
    unit: str = ""
    default: Value | None = None
    """The value used when the caller gives none; None with ``required=False`` means optional."""
    required: bool = False
    low: float = 0.0
    high: float = 0.0
    choices: tuple[str, ...] = ()

    @property
    def rule(self) -> str:
        """The constraint in words, as error messages and help text state it."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        what = "a whole number" if self.kind == "int" else "a number"
        return f"{what} from {format_number(self.low)} to {format_number(self.high)}"

    def error(self, value: object) -> CalcError:
        return reject(self.flag, f"must be {self.rule}, got {_shown(value)}")

    def accept(self, value: object) -> Value:
        """``value`` (text as typed, or a number) checked against this parameter's rule."""
        if self.kind == "choice":
            text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
            if not isinstance(text, str) or text.strip() not in self.choices:
                raise self.error(value)
            return text.strip()
        number = self._number(value)
        if not math.isfinite(number) or not self.low <= number <= self.high:
            raise self.error(value)
        if self.kind == "int":
            if not number.is_integer():
                raise self.error(value)
            return int(number)
        return number

    def _number(self, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise self.error(value)
        if not isinstance(value, str):
            try:
                return float(value)
            except OverflowError:  # an int beyond any float
                raise self.error(value) from None
        text, scale = value.strip(), 1.0
        if self.unit == RATIO and text.endswith("%"):
            text, scale = text[:-1].rstrip(), 0.01
        try:
            return float(text) * scale
        except ValueError:
            raise self.error(value) from None

    def describe(self) -> dict[str, object]:
        entry: dict[str, object] = {
            "flag": self.flag,
            "symbol": self.symbol,
            "kind": self.kind,
            "unit": self.unit,
            "default": self.default,
            "required": self.required,
            "help": self.help,
        }
        if self.kind == "choice":
            entry["choices"] = list(self.choices)
        else:
            entry["min"], entry["max"] = self.low, self.high
        return entry


@dataclass(frozen=True, slots=True)
class Output:
    """One named result of a model; ``key`` is its JSON key."""

    key: str
    unit: str
    help: str

    def describe(self) -> dict[str, object]:
        return {"key": self.key, "unit": self.unit, "help": self.help}


class Inputs(Mapping[str, Value | None]):
    """A model's validated inputs, defaults filled in; ``given`` names those the caller set."""

    __slots__ = ("_values", "given")

    def __init__(self, values: Mapping[str, Value | None], given: frozenset[str]) -> None:
        self._values = dict(values)
        self.given = given

    def __getitem__(self, flag: str) -> Value | None:
        return self._values[flag]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def number(self, flag: str) -> float:
        value = self._values[flag]
        if not isinstance(value, int | float):
            raise TypeError(f"{flag} is {value!r}, not a number")
        return float(value)

    def whole(self, flag: str) -> int:
        value = self._values[flag]
        if not isinstance(value, int):
            raise TypeError(f"{flag} is {value!r}, not a whole number")
        return value

    def text(self, flag: str) -> str:
        value = self._values[flag]
        if not isinstance(value, str):
            raise TypeError(f"{flag} is {value!r}, not a choice")
        return value

    def optional(self, flag: str) -> float | None:
        """An optional number: None when neither the caller nor a default set it."""
        return None if self._values[flag] is None else self.number(flag)


@dataclass(frozen=True)
class Result:
    """A model's outputs for one set of inputs, in the order the model declares them."""

    model: str
    inputs: Inputs
    values: Mapping[str, float]
    units: Mapping[str, str]

    def __getitem__(self, key: str) -> float:
        return self.values[key]

    def formatted(self, key: str) -> str:
        return format_value(self.values[key], self.units[key])

    def as_dict(self) -> dict[str, object]:
        """JSON-able: the outputs at the top level, beside the model name and its inputs."""
        return {"model": self.model, "inputs": dict(self.inputs), **self.values}


Compute = Callable[[Inputs], Mapping[str, float]]
Check = Callable[[Inputs], None]


@dataclass(frozen=True)
class Model:
    """One whiteboard estimate: its parameters, its outputs and the pure function between."""

    name: str
    title: str
    help: str
    sources: tuple[str, ...]
    params: tuple[Param, ...]
    outputs: tuple[Output, ...]
    formula: Compute
    rules: Check
    """Rules between parameters (TP divides the heads...); raise ``reject(flag, rule)``."""

    def param(self, flag: str) -> Param:
        for param in self.params:
            if param.flag == flag:
                return param
        known = ", ".join(f"--{p.flag}" for p in self.params)
        raise CalcError(
            f"--{flag}: not a parameter of {self.name}; its parameters are {known}", flag=flag
        )

    def parse(self, flag: str, text: str) -> Value:
        """One parameter's value from text as typed ("7.5e9", "64", "40%")."""
        return self.param(flag).accept(text)

    def validate(self, raw: Mapping[str, object]) -> Inputs:
        """Check every given value (text or number), fill in defaults, apply the rules."""
        for flag in raw:
            self.param(flag)
        values: dict[str, Value | None] = {}
        for param in self.params:
            if raw.get(param.flag) is not None:
                values[param.flag] = param.accept(raw[param.flag])
            elif param.required:
                raise reject(param.flag, f"is required ({param.help})")
            else:
                values[param.flag] = param.default
        inputs = Inputs(values, frozenset(f for f in raw if raw[f] is not None))
        self.rules(inputs)
        return inputs

    def compute(self, inputs: Inputs) -> Result:
        values = self.formula(inputs)
        return Result(
            model=self.name,
            inputs=inputs,
            values=MappingProxyType({o.key: float(values[o.key]) for o in self.outputs}),
            units=MappingProxyType({o.key: o.unit for o in self.outputs}),
        )

    def run(self, raw: Mapping[str, object]) -> Result:
        return self.compute(self.validate(raw))

    def describe(self) -> dict[str, object]:
        return {
            "name": self.name,
            "title": self.title,
            "help": self.help,
            "sources": list(self.sources),
            "params": [param.describe() for param in self.params],
            "outputs": [output.describe() for output in self.outputs],
        }
