"""The calculator panel without Textual: which models a card offers, what each form starts
with, and what a form's typed inputs compute to, or which field is wrong and why.

The screen draws a ``Sheet`` and hands back the text of every field; ``evaluate`` answers with
every output formatted with its unit, or a message per field. The CLI prints the same rows
(``input_rows``, ``output_rows``), so the panel and ``infracards calc`` say the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field

from infracards.calc import (
    MODELS,
    RATIO,
    Example,
    Model,
    Param,
    Result,
    find_examples,
    format_number,
    format_value,
    get_model,
)
from infracards.errors import CalcError, InfracardsError
from infracards.records import CardRecord
from infracards.services.answers import AnswerBook

EMPTY_OUTPUT = "—"
"""What an output shows while the inputs cannot be computed."""


@dataclass(frozen=True, slots=True)
class Field:
    """One input of a form: the parameter as the learner sees it, and the text it starts with."""

    flag: str
    symbol: str
    unit: str
    """Shown after the field; empty for a fraction (typed 0.4 or 40%) and for a choice."""
    help: str
    rule: str
    placeholder: str
    """What an empty field means: its default, "required", or "unset"."""
    choices: tuple[str, ...]
    text: str

    @property
    def hint(self) -> str:
        """One line about the field: its symbol, what it is, the values it takes."""
        symbol = f"{self.symbol} · " if self.symbol else ""
        return f"--{self.flag}: {symbol}{self.help}; {self.rule}"


@dataclass(frozen=True, slots=True)
class Sheet:
    """One model's form as it opens on a card."""

    model: str
    title: str
    fields: tuple[Field, ...]
    origin: str
    """Where the starting values come from, in words for the panel."""

    def texts(self) -> dict[str, str]:
        return {f.flag: f.text for f in self.fields}


@dataclass(frozen=True, slots=True)
class OutputRow:
    key: str
    help: str
    text: str
    """The value with its unit ("31.41 GB"), or ``EMPTY_OUTPUT``."""


@dataclass(frozen=True, slots=True)
class InputRow:
    flag: str
    symbol: str
    text: str
    given: bool
    """False: the model's default (or unset) filled it."""


@dataclass(frozen=True, slots=True)
class Evaluation:
    """A form's inputs computed, or what stops them from being computed."""

    outputs: tuple[OutputRow, ...]
    errors: Mapping[str, str] = field(default_factory=dict)
    """Flag → the rule its value breaks, as the CLI would say it."""
    missing: tuple[str, ...] = ()
    """Required fields left empty."""
    problem: str | None = None
    """A message that no single field owns."""

    @property
    def computed(self) -> bool:
        return not (self.errors or self.missing or self.problem)


def _shown(value: object, unit: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return format_value(value, unit)
    return EMPTY_OUTPUT


def starting_value(param: Param) -> str:
    """What a parameter is when nobody sets it: "required", "unset", or "default 64"."""
    if param.required:
        return "required"
    if param.default is None:
        return "unset"
    if isinstance(param.default, str):
        return f"default {param.default}"
    shown = (
        format_value(param.default, RATIO) if param.unit == RATIO else format_number(param.default)
    )
    return f"default {shown}"


def unit_label(param: Param) -> str:
    """The unit shown beside a value typed in; none for a fraction (0.4 and 40% both work)."""
    return "" if param.unit == RATIO else param.unit


def _field(param: Param, text: str) -> Field:
    return Field(
        flag=param.flag,
        symbol=param.symbol,
        unit=unit_label(param),
        help=param.help,
        rule=param.rule + (", or a percentage" if param.unit == RATIO else ""),
        placeholder=starting_value(param),
        choices=param.choices,
        text=text,
    )


def sheet(model: Model, example: Example | None = None) -> Sheet:
    """A model's form: filled with a worked example's inputs, or empty (defaults apply)."""
    written = dict(example.inputs) if example is not None else {}
    if example is not None:
        origin = "the answer's worked example"
    elif any(param.required for param in model.params):
        origin = "defaults; fill in the required fields"
    else:
        origin = "defaults"
    return Sheet(
        model=model.name,
        title=model.title,
        fields=tuple(_field(param, written.get(param.flag, "")) for param in model.params),
        origin=origin,
    )


def card_models(card: CardRecord) -> tuple[Model, ...]:
    """The calculators the card names, in its order; names this version lacks are left out."""
    return tuple(MODELS[name] for name in dict.fromkeys(card.calculators) if name in MODELS)


def card_sheets(card: CardRecord, answers: AnswerBook, *, answer_shown: bool) -> tuple[Sheet, ...]:
    """The card's calculators, each prefilled with the first worked example of its model in
    the answer when the learner can read that answer (shown, and not sealed); else empty.

    A sealed card of a locked deck offers its calculators too: the models are code, not
    sealed text. Before an answer is revealed its example stays hidden (it would give the
    answer away), so the learner starts from the defaults.
    """
    examples: list[Example] = []
    if answer_shown:
        with suppress(InfracardsError):  # a damaged answer or block: the view says so already
            answer = answers.answer_for(card)
            examples = find_examples(answer.markdown) if answer is not None else []
    first: dict[str, Example] = {}
    for example in examples:
        first.setdefault(example.model.name, example)
    return tuple(sheet(model, first.get(model.name)) for model in card_models(card))


def evaluate(model_name: str, texts: Mapping[str, str]) -> Evaluation:
    """Compute a form: every non-empty field is checked on its own first (so each wrong one is
    marked at once), then the model's rules between fields, then the outputs."""
    model = get_model(model_name)
    errors: dict[str, str] = {}
    missing: list[str] = []
    raw: dict[str, object] = {}
    for param in model.params:
        text = texts.get(param.flag, "").strip()
        if not text:
            if param.required:
                missing.append(param.flag)
            continue
        try:
            raw[param.flag] = model.parse(param.flag, text)
        except CalcError as error:
            errors[param.flag] = str(error)
    result: Result | None = None
    problem = None
    if not errors and not missing:
        try:
            result = model.run(raw)
        except CalcError as error:
            if error.flag in {param.flag for param in model.params}:
                errors[error.flag] = str(error)
            else:
                problem = str(error)
    return Evaluation(
        outputs=output_rows(model, result),
        errors=errors,
        missing=tuple(missing),
        problem=problem,
    )


def output_rows(model: Model, result: Result | None) -> tuple[OutputRow, ...]:
    return tuple(
        OutputRow(
            key=output.key,
            help=output.help,
            text=result.formatted(output.key) if result is not None else EMPTY_OUTPUT,
        )
        for output in model.outputs
    )


def input_rows(model: Model, result: Result) -> tuple[InputRow, ...]:
    """The inputs a result was computed from, defaults included, each with its unit."""
    return tuple(
        InputRow(
            flag=param.flag,
            symbol=param.symbol,
            text=_shown(result.inputs[param.flag], param.unit),
            given=param.flag in result.inputs.given,
        )
        for param in model.params
    )
