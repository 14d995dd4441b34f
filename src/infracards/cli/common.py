"""What every command group shares: the store of this home, JSON output, the app's launch.

Two ways into the store: ``open_reader`` for the commands that read (and change a setting),
with the standard library's ``sqlite3`` alone, and ``open_home`` for the app and the commands
that load decks, import progress or unlock, with SQLAlchemy. Both open a store migrated to the
app's schema with the built-in deck loaded, and both close it at exit.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from datetime import date
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from weakref import ref

from infracards.errors import InfracardsError
from infracards.paths import home
from infracards.terminal_text import (
    KeyMask,
    json_safe,
    message_line,
    quoted,
    terminal_safe,
)

if TYPE_CHECKING:
    from typing import TypeAlias

    from sqlalchemy import Engine

    from infracards.records import MockOptions
    from infracards.store.file import StoreFile

    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]
    """What ``add_subparsers()`` returns: each group's ``register`` adds its commands to it."""

Handler = Callable[[argparse.Namespace], int]

DEFAULT_DECK = "module03"
"""The built-in deck: what `review`, `unlock` and `lock` act on without --deck."""

_opened: list[Callable[[], None]] = []
"""How to close each store the running command opened (``close_stores``)."""


def open_home() -> Engine:
    """Open the store (first run: create, migrate, load the built-in deck)."""
    from infracards.services.library import ensure_builtin_deck
    from infracards.store.db import open_store

    engine = open_store(home())
    ensure_builtin_deck(engine)
    _opened.append(partial(_close_store, ref(engine)))
    return engine


def open_reader() -> StoreFile:
    """The store for a command that reads: no SQLAlchemy, unless the store must be created or
    migrated, or the built-in deck (re)loaded (the first run, a new release of infracards)."""
    from infracards.services.library import builtin_release_to_load
    from infracards.store.file import StoreFile

    store = StoreFile.open(home())
    _opened.append(store.close)
    if builtin_release_to_load(store) is not None:
        open_home()
    return store


def _close_store(engine: ref[Engine]) -> None:
    """At exit, close the store's connections (SQLite folds its log back into the database
    file then). The entry point freezes the heap before exiting, so the final garbage
    collection that used to close them never reaches them."""
    alive = engine()
    if alive is not None:
        alive.dispose()


def close_stores() -> None:
    """Close the stores the command opened, once it is done (SQLite folds its log back into
    the database file then). A process that runs many commands (the test suite, a script
    calling ``main``) would otherwise keep every one open, two file descriptors each."""
    while _opened:
        _opened.pop()()


atexit.register(close_stores)  # a command that never returned to `main`


def print_json(document: Any) -> None:
    import json

    print(json_safe(json.dumps(document, ensure_ascii=False, indent=2)))


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


class Parser(argparse.ArgumentParser):
    """The parser of `infracards` and of each command (subparsers are made of the same class):
    usage errors kept short (a 5 MB argument is not echoed whole), help as wide as the
    terminal."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:
        super().error(message_line(message))


def text_argument(value: str) -> str:
    """An argument that must be text (an id, a card key, a setting), not undecodable bytes.

    Python hands over bytes that are not UTF-8 as lone surrogates; a file name may hold
    them (paths are not checked), an id or a key never does.
    """
    if value.isascii() or not any(0xD800 <= ord(char) <= 0xDFFF for char in value):
        return value
    undecodable = [ord(char) - 0xDC00 for char in value if 0xDC80 <= ord(char) <= 0xDCFF]
    what = (
        f"the bytes {' '.join(f'{byte:02X}' for byte in undecodable)} cannot be decoded"
        if undecodable
        else "it holds a lone surrogate"
    )
    raise argparse.ArgumentTypeError(
        f"{quoted(value)} is not valid UTF-8: {what} (the terminal is fine; these bytes came "
        "from the shell, a script or a pasted file name); type it again as plain text"
    )


def day_argument(value: str) -> date:
    """A study day typed as YYYY-MM-DD (argparse would say "invalid fromisoformat value")."""
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{quoted(value)} is not a date as YYYY-MM-DD (e.g. 2026-12-20)"
        ) from None


BYTE_ORDER_MARK = "\ufeff"


def path_argument(value: str) -> Path:
    """A file or folder argument: any bytes a file name may hold, but never a NUL."""
    if "\0" in value:
        raise argparse.ArgumentTypeError(
            f"{quoted(value)} holds a NUL character, which no file name can; check the path"
        )
    return Path(value)


class TerminalStream:
    """stdout or stderr, with everything written made safe by ``terminal_safe``.

    Card keys typed in the arguments are masked wherever they are echoed; on standard error
    any other card key is found and masked too (on standard output that search would slow an
    export down, and nothing there comes from the learner).
    """

    def __init__(self, stream: IO[str], *, mask: KeyMask, find_keys: bool) -> None:
        self._stream = stream
        self._mask = mask
        self._find_keys = find_keys
        self._started = False

    def write(self, text: str) -> int:
        if not self._started and text == BYTE_ORDER_MARK:  # `export --bom` asked for it
            self._stream.write(text)
        else:
            self._stream.write(terminal_safe(text, mask=self._mask, find_keys=self._find_keys))
        self._started = True
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def terminal_output(*, mask: KeyMask) -> Iterator[None]:
    """While a command runs, its output reaches the terminal only through ``TerminalStream``."""
    saved = sys.stdout, sys.stderr
    sys.stdout = TerminalStream(saved[0], mask=mask, find_keys=False)
    sys.stderr = TerminalStream(saved[1], mask=mask, find_keys=True)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def report_error(message: str, *, mask: KeyMask) -> None:
    """One line on standard error for each line of the message (a deck with several problems
    lists them all); the app's handlers print without ``terminal_output``."""
    for line in message.splitlines() or [""]:
        print(f"infracards: {message_line(line, mask=mask)}", file=sys.stderr)


def require_terminal() -> None:
    """Textual draws on standard error and reads keys from standard input; without a terminal
    on both, the app would wait forever for keys that cannot come."""
    screen = sys.__stderr__
    if not (sys.stdin.isatty() and screen is not None and screen.isatty()):
        raise InfracardsError(
            "the app needs a terminal (standard input and error are not one); in scripts use "
            "a command such as `infracards status --json` (see `infracards --help`)"
        )


def launch_app(
    engine: Engine, *, start_review: str | None, start_mock: MockOptions | None = None
) -> int:
    require_terminal()
    from infracards.services.answers import AnswerBook
    from infracards.services.settings import local_now, study_prefs
    from infracards.tui.app import InfracardsApp  # deferred: Textual is needed only here
    from infracards.tui.context import AppContext

    study_prefs(engine)  # a stored setting it cannot take is named here, not as an app crash
    context = AppContext(engine=engine, answers=AnswerBook(), home=home(), clock=local_now)
    app = InfracardsApp(context, start_review=start_review, start_mock=start_mock)
    app.run()
    return app.return_code or 0
