"""The ``infracards`` command: parse, call one service, print, return an exit code.

Exit codes: 0 success, 1 user error (one line on stderr), 2 usage error. Each command group
lives in its own module with its parser and its handlers; the handlers import the services
they call, so `--version` and `--help` load neither SQLAlchemy nor Textual.
"""

from __future__ import annotations

import argparse
import codecs
import gc
import os
import sys
from collections.abc import Sequence
from typing import Any

from infracards import __version__
from infracards.cli import decks, keys, progress, publish, study
from infracards.cli.common import Handler
from infracards.errors import InfracardsError

GROUPS = (study, decks, progress, keys, publish)
"""Command groups in the order `infracards --help` lists them."""


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except UnicodeEncodeError as error:
        if codecs.lookup(error.encoding).name != codecs.lookup(sys.stdout.encoding).name:
            raise
        print(
            f"infracards: this terminal's encoding ({sys.stdout.encoding}) cannot show the deck's"
            " Chinese text; use a UTF-8 locale (e.g. LANG=C.UTF-8) or set PYTHONIOENCODING=utf-8",
            file=sys.stderr,
        )
        return 1


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    handler: Handler = args.handler
    if handler not in study.OPENS_APP:
        gc.enable()  # paused by the entry point for start-up; only the app resumes it later
    try:
        return handler(args)
    except InfracardsError as error:
        for line in str(error).splitlines():  # a deck with several problems lists them all
            print(f"infracards: {line}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("infracards: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (`| head`) went away: that is not an error. Silence the final flush too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's own formatter, given the terminal's width up front: argparse makes one for
    every argument it adds and asks ``shutil`` for the width each time, and importing
    ``shutil`` (for its archive support) cost every command ~3 ms."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_terminal_columns() - 2)  # as argparse trims it


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing shutil."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno() if sys.__stdout__ else 1).columns
    except (AttributeError, ValueError, OSError):
        return 80


class CommandParser(argparse.ArgumentParser):
    """The parser of `infracards` and of each command (subparsers are made of the same class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command; for ``argv`` that names one, of its group alone.

    Parsing the command line needs no other command's parser, and each costs about half a
    millisecond to build (most of it argparse looking up translations of its own words): all
    19 took a quarter of `infracards status`'s own time. Without a command (`--help`, the app,
    a typo), every group is built, so the help and the error list them all.
    """
    parser = CommandParser(
        prog="infracards",
        description="Flashcards with exact SM-2 scheduling for LLM training-infrastructure "
        "interviews. Without a command, opens the app.",
        epilog="Data lives in $INFRACARDS_HOME (default: your user data folder).",
    )
    parser.add_argument("--version", action="version", version=f"infracards {__version__}")
    parser.set_defaults(handler=study.run_app, deck=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    named = next((arg for arg in argv or () if not arg.startswith("-")), None)
    chosen = [group for group in GROUPS if named in group.COMMANDS]
    for group in chosen or GROUPS:
        group.register(commands)
    return parser
