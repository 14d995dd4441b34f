"""The ``infracards`` command: parse, call one service, print, return an exit code.

Exit codes: 0 success, 1 user error (one line on stderr), 2 usage error. Each command group
lives in its own module with its parser and its handlers; the handlers import the services
they call, so `--version` and `--help` load neither SQLAlchemy nor Textual, and a command line
imports only the group it names (``GROUPS``).
"""

from __future__ import annotations

import argparse
import codecs
import gc
import os
import sys
from collections.abc import Sequence
from importlib import import_module

from infracards import __version__
from infracards.cli import study
from infracards.cli.common import Handler, Parser, close_stores, report_error, terminal_output
from infracards.errors import InfracardsError
from infracards.terminal_text import KeyMask

GROUPS = {
    "study": ("review", "status", "show", "config"),
    "practice": ("mock", "plan", "suspend", "unsuspend"),
    "decks": ("deck",),
    "progress": ("stats", "export", "import"),
    "keys": ("unlock", "lock"),
    "calc": ("calc",),
    "publish": ("publish",),
}
"""Each command group (a module of this package) and the commands its ``register`` adds, in
the order `infracards --help` lists them."""


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
    parser = build_parser(argv)
    with terminal_output(mask=mask):
        try:
            args = parser.parse_args(argv)
        except SystemExit as exit_:
            return int(exit_.code or 0)
    handler: Handler = args.handler
    if handler in getattr(sys.modules[handler.__module__], "OPENS_APP", ()):
        return _call(handler, args, mask=mask)  # the app draws on the terminal itself
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
    finally:
        close_stores()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command; for ``argv`` that names one, of its group alone.

    Parsing the command line needs no other command's parser, and each costs about half a
    millisecond to build (most of it argparse looking up translations of its own words): all
    of them took a quarter of `infracards status`'s own time. Without a command (`--help`, the
    app, a typo), every group is built, so the help and the error list them all; `--version`
    alone needs none. This is the one way groups are loaded lazily: only the chosen groups'
    modules are imported, and a group's ``register`` adds its commands and nothing that is slow
    to import (`calc` reads its calculators' flags from their models when it runs).
    """
    parser = Parser(
        prog="infracards",
        description="Flashcards with exact SM-2 scheduling for LLM training-infrastructure "
        "interviews. Without a command, opens the app.",
        epilog="Data lives in $INFRACARDS_HOME (default: your user data folder).",
    )
    parser.add_argument("--version", action="version", version=f"infracards {__version__}")
    parser.set_defaults(handler=study.run_app, deck=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    named = next((arg for arg in argv or () if not arg.startswith("-")), None)
    chosen = [group for group, names in GROUPS.items() if named in names]
    if list(argv or ()) == ["--version"]:
        return parser  # it prints the version and exits: no command is looked at
    for group in chosen or GROUPS:
        import_module(f"infracards.cli.{group}").register(commands)
    return parser
