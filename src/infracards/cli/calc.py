"""Whiteboard calculators: `calc NAME [--PARAM VALUE …] [--json]` and `calc --list [--json]`.

A model's flags come from its description, so a new model needs no code here. The models are
imported only when `calc` runs (~25 ms: other commands and the app should not pay for them),
so the parser registered with the other commands takes every word after `calc` as it is and
the handler parses them with parsers built from the models. Those report usage errors in one
line of ours (exit 2); a value that breaks a parameter's rule is a user error (exit 1).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from infracards.cli.common import print_json
from infracards.terminal_text import echo, message_line, quoted

if TYPE_CHECKING:
    from infracards.calc import Model, Param, Result
    from infracards.cli.common import Commands

DESCRIPTION = (
    "Redo a whiteboard estimate with your own numbers: model-state memory, activation "
    "memory, training time, collective time, data-parallel communication, pipeline bubbles. "
    "Symbols follow the deck's notation page."
)


def register(commands: Commands) -> None:
    calc = commands.add_parser(
        "calc",
        help="whiteboard calculators: memory, training time, collectives, bubbles",
        description=DESCRIPTION + " See `infracards calc --help`.",
        add_help=False,
        # '+' is no option prefix here, so every word after `calc` reaches the handler intact.
        prefix_chars="+",
    )
    calc.add_argument("words", nargs=argparse.REMAINDER, metavar="ARGS")
    calc.set_defaults(handler=run_calc)


class Usage(Exception):
    """A finished parse that is not a calculation: help printed (0) or a usage error (2)."""

    def __init__(self, code: int, message: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the command, and help returns."""

    def error(self, message: str) -> NoReturn:
        raise Usage(2, f"{self.prog.removeprefix('infracards ')}: {message}")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise Usage(status, message)


def run_calc(args: argparse.Namespace) -> int:
    try:
        return _calc(args.words)
    except Usage as usage:
        if usage.message:
            print(f"infracards: {message_line(usage.message.strip())}", file=sys.stderr)
        return usage.code


def _calc(words: list[str]) -> int:
    from infracards.calc import MODELS, describe
    from infracards.errors import CalcError

    front = Parser(
        prog="infracards calc",
        description=DESCRIPTION,
        epilog="calculators: " + ", ".join(MODELS) + " (`infracards calc NAME --help`)",
        allow_abbrev=False,
    )
    front.add_argument("--list", action="store_true", help="describe every calculator")
    front.add_argument("--json", action="store_true", help="print JSON")
    front.add_argument("name", nargs="?", metavar="NAME", help="the calculator")
    front.add_argument(
        "params", nargs=argparse.REMAINDER, metavar="--PARAM VALUE", help="its inputs"
    )
    args, extras = front.parse_known_args(words)
    if extras:  # only words before the name can be left over: the rest are its parameters
        front.error(
            f"unrecognized arguments: {echo(' '.join(extras))} (a calculator's name comes first)"
        )
    if args.list:
        if args.name is not None:
            front.error("give a calculator's name or --list, not both")
        if args.json:
            print_json(describe())
        else:
            print(list_models())
        return 0
    if args.name is None:
        front.error(f"name a calculator ({', '.join(MODELS)}) or use --list")
    try:
        model = MODELS[args.name]
    except KeyError:
        front.error(f"no calculator {quoted(args.name)}; there are {', '.join(MODELS)}")
    given = ModelParser(model).read(args.params)
    typed = {param.flag: getattr(given, dest(param)) for param in model.params}
    try:
        result = model.run({flag: text for flag, text in typed.items() if text is not None})
    except CalcError as error:
        raise CalcError(f"calc {model.name}: {error}", flag=error.flag) from None
    if args.json or given.json:
        print_json(result.as_dict())
    else:
        print(result_table(model, result))
    return 0


def dest(param: Param) -> str:
    """The namespace attribute of a parameter: never one of argparse's own (``json``...)."""
    return f"param {param.flag}"


def _param_help(param: Param) -> str:
    from infracards.calc import RATIO
    from infracards.services.calculator import starting_value

    symbol = f"{param.symbol}: " if param.symbol else ""
    unit = f" ({param.unit})" if param.unit and param.unit != RATIO else ""
    return f"{symbol}{param.help}{unit}; {param.rule}; {starting_value(param)}".replace("%", "%%")


class ModelParser(Parser):
    """A model's command line: one ``--flag VALUE`` per parameter, each checked by the model."""

    def __init__(self, model: Model) -> None:
        super().__init__(
            prog=f"infracards calc {model.name}",
            description=f"{model.title}. {model.help}".replace("%", "%%"),
            epilog=("sources: " + "; ".join(model.sources)).replace("%", "%%"),
            allow_abbrev=False,  # flags are a contract for scripts: no prefix guessing
        )
        self.model = model
        for param in model.params:
            metavar = "{" + ",".join(param.choices) + "}" if param.kind == "choice" else "VALUE"
            self.add_argument(
                f"--{param.flag}", dest=dest(param), metavar=metavar, help=_param_help(param)
            )
        self.add_argument("--json", action="store_true", help="print JSON")

    def read(self, words: list[str]) -> argparse.Namespace:
        """Parse, naming the model's parameters when a word is not one of them."""
        from infracards.errors import CalcError

        given, extras = self.parse_known_args(words)
        if extras:
            word = extras[0]
            if word.startswith("--"):
                try:
                    self.model.param(word[2:].partition("=")[0])
                except CalcError as error:
                    self.error(str(error))
            self.error(f"unexpected argument {quoted(word)}")
        return given


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  "
        + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def result_table(model: Model, result: Result) -> str:
    """Inputs (defaults marked) and outputs with their units, aligned in columns."""
    from infracards.services.calculator import input_rows, output_rows

    inputs = [
        (f"--{row.flag}", row.symbol, row.text, "" if row.given else "default")
        for row in input_rows(model, result)
    ]
    outputs = [(row.key, row.text, row.help) for row in output_rows(model, result)]
    heading = f"{model.name}: {model.title}"
    return "\n".join([heading, "", "inputs", *_table(inputs), "", "outputs", *_table(outputs)])


def list_models() -> str:
    from infracards.calc import MODELS
    from infracards.services.calculator import starting_value, unit_label

    blocks = []
    for model in MODELS.values():
        rows = [
            (f"--{param.flag}", param.symbol, starting_value(param), unit_label(param))
            for param in model.params
        ]
        outputs = ", ".join(output.key for output in model.outputs)
        blocks.append(
            "\n".join([f"{model.name}: {model.title}", *_table(rows), f"  outputs: {outputs}"])
        )
    return "\n\n".join(blocks) + "\n\nDetails: `infracards calc NAME --help`."
