"""The models by name, and the description of all of them (``calc --list --json``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from infracards.calc.activations import ACTIVATIONS
from infracards.calc.bubble import BUBBLE
from infracards.calc.collective import COLLECTIVE
from infracards.calc.dp_comm import DP_COMM
from infracards.calc.memory import MEMORY
from infracards.calc.spec import Model, Result
from infracards.calc.train_time import TRAIN_TIME
from infracards.errors import CalcError

MODELS: Mapping[str, Model] = MappingProxyType(
    {model.name: model for model in (MEMORY, ACTIVATIONS, TRAIN_TIME, COLLECTIVE, DP_COMM, BUBBLE)}
)


def get_model(name: str) -> Model:
    try:
        return MODELS[name]
    except KeyError:
        raise CalcError(f"no calculator {name!r}; there are {', '.join(MODELS)}") from None


def calculate(name: str, raw: Mapping[str, object]) -> Result:
    """Run model ``name`` on ``raw`` values (text as typed, or numbers), keyed by flag."""
    return get_model(name).run(raw)


def describe() -> list[dict[str, object]]:
    """Every model as JSON-able data: parameters, outputs, units, ranges, sources."""
    return [model.describe() for model in MODELS.values()]
