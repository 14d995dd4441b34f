"""What every command group shares: the store of this home, JSON output, the app's launch.

Two ways into the store: ``open_reader`` for the commands that read (and change a setting),
with the standard library's ``sqlite3`` alone, and ``open_home`` for the app and the commands
that load decks, import progress or unlock, with SQLAlchemy. Both open a store migrated to the
app's schema with the built-in deck loaded, and both close it at exit.
"""

from __future__ import annotations

import argparse
import atexit
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from weakref import ref

from infracards.errors import InfracardsError
from infracards.paths import home

if TYPE_CHECKING:
    from typing import TypeAlias

    from sqlalchemy import Engine

    from infracards.store.file import StoreFile

    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]
    """What ``add_subparsers()`` returns: each group's ``register`` adds its commands to it."""

Handler = Callable[[argparse.Namespace], int]

DEFAULT_DECK = "module03"
"""The built-in deck: what `review`, `unlock` and `lock` act on without --deck."""


def open_home() -> Engine:
    """Open the store (first run: create, migrate, load the built-in deck)."""
    from infracards.services.library import ensure_builtin_deck
    from infracards.store.db import open_store

    engine = open_store(home())
    ensure_builtin_deck(engine)
    atexit.register(_close_store, ref(engine))
    return engine


def open_reader() -> StoreFile:
    """The store for a command that reads: no SQLAlchemy, unless the store must be created or
    migrated, or the built-in deck (re)loaded (the first run, a new release of infracards)."""
    from infracards.services.library import builtin_deck_to_load
    from infracards.store.file import StoreFile

    store = StoreFile.open(home())
    atexit.register(store.close)
    if builtin_deck_to_load(store) is not None:
        open_home()
    return store


def _close_store(engine: ref[Engine]) -> None:
    """At exit, close the store's connections (SQLite folds its log back into the database
    file then). The entry point freezes the heap before exiting, so the final garbage
    collection that used to close them never reaches them."""
    alive = engine()
    if alive is not None:
        alive.dispose()


def print_json(document: Any) -> None:
    import json

    print(json.dumps(document, ensure_ascii=False, indent=2))


def require_terminal() -> None:
    """Textual draws on standard error and reads keys from standard input; without a terminal
    on both, the app would wait forever for keys that cannot come."""
    screen = sys.__stderr__
    if not (sys.stdin.isatty() and screen is not None and screen.isatty()):
        raise InfracardsError(
            "the app needs a terminal (standard input and error are not one); in scripts use "
            "a command such as `infracards status --json` (see `infracards --help`)"
        )


def launch_app(engine: Engine, *, start_review: str | None) -> int:
    require_terminal()
    from infracards.services.answers import AnswerBook
    from infracards.services.settings import local_now
    from infracards.tui.app import InfracardsApp  # deferred: Textual is needed only here
    from infracards.tui.context import AppContext

    context = AppContext(engine=engine, answers=AnswerBook(), home=home(), clock=local_now)
    app = InfracardsApp(context, start_review=start_review)
    app.run()
    return app.return_code or 0
