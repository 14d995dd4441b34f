"""Whiteboard calculators: pure models of the estimates the deck teaches (no I/O, no UI).

Each model is described by data (``Model.describe``) and computed by a pure function, so the
CLI, the review panel and the tests that check the deck's worked examples share one parser,
one validation path and one set of formulas.
"""

from infracards.calc.activations import ACTIVATIONS
from infracards.calc.bubble import BUBBLE
from infracards.calc.collective import COLLECTIVE
from infracards.calc.dp_comm import DP_COMM
from infracards.calc.examples import Example, Expectation, find_examples, parse_example
from infracards.calc.memory import MEMORY
from infracards.calc.registry import MODELS, calculate, describe, get_model
from infracards.calc.spec import (
    RATIO,
    Inputs,
    Model,
    Output,
    Param,
    Result,
    format_number,
    format_value,
)
from infracards.calc.train_time import TRAIN_TIME

__all__ = [
    "ACTIVATIONS",
    "BUBBLE",
    "COLLECTIVE",
    "DP_COMM",
    "MEMORY",
    "MODELS",
    "RATIO",
    "TRAIN_TIME",
    "Example",
    "Expectation",
    "Inputs",
    "Model",
    "Output",
    "Param",
    "Result",
    "calculate",
    "describe",
    "find_examples",
    "format_number",
    "format_value",
    "get_model",
    "parse_example",
]
