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

from infracards import __version__
from infracards.cli import calc, decks, keys, practice, progress, publish, study
from infracards.cli.common import Handler, Parser, report_error, terminal_output
from infracards.errors import InfracardsError
from infracards.terminal_text import KeyMask

GROUPS = (study, practice, decks, progress, keys, calc, publish)
"""Command groups in the order `infracards --help` lists them."""


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except UnicodeEncodeError as error:
        shown = sys.stdout.encoding or ""
        if not shown or codecs.lookup(error.encoding).name != codecs.lookup(shown).name:
            raise
        print(
            f"infracards: this terminal's encoding ({sys.stdout.encoding}) cannot show the deck's"
            " Chinese text; use a UTF-8 locale (e.g. LANG=C.UTF-8) or set PYTHONIOENCODING=utf-8",
            file=sys.stderr,
        )
        return 1


def _run(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    mask = KeyMask(argv)  # a card key typed in the wrong place is never echoed in full
    parser = build_parser()
    with terminal_output(mask=mask):
        try:
            args = parser.parse_args(argv)
        except SystemExit as exit_:
            return int(exit_.code or 0)
    handler: Handler = args.handler
    if handler in (*study.OPENS_APP, *practice.OPENS_APP):  # the app draws on the terminal
        return _call(handler, args, mask=mask)
    gc.enable()  # paused by the entry point for start-up; only the app resumes it later
    with terminal_output(mask=mask):
        return _call(handler, args, mask=mask)


def _call(handler: Handler, args: argparse.Namespace, *, mask: KeyMask) -> int:
    try:
        return handler(args)
    except InfracardsError as error:
        report_error(str(error), mask=mask)
        return 1
    except KeyboardInterrupt:
        print("infracards: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (`| head`) went away: that is not an error. Silence the final flush too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="infracards",
        description="Flashcards with exact SM-2 scheduling for LLM training-infrastructure "
        "interviews. Without a command, opens the app.",
        epilog="Data lives in $INFRACARDS_HOME (default: your user data folder).",
    )
    parser.add_argument("--version", action="version", version=f"infracards {__version__}")
    parser.set_defaults(handler=study.run_app, deck=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for group in GROUPS:
        group.register(commands)
    return parser
