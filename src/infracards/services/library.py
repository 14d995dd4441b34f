"""Decks in the store: the built-in deck on first run, ``deck add`` and ``deck check``.

Reading decks (the overview, checks) needs only ``sqlite3``; loading one writes through the
ORM, so SQLAlchemy (and PyYAML, via ``infracards.deck``, ~10 ms) is imported by the functions
that load, and only when a file must actually be parsed and synced: an ordinary start, with
the shipped deck unchanged, needs neither (reading and hashing it are in ``infracards.files``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from infracards.errors import DeckError, InfracardsError
from infracards.files import file_digest, read_deck_bytes
from infracards.paths import builtin_deck_path
from infracards.records import DeckSummary, SyncReport
from infracards.scheduler import study_day
from infracards.store.file import reading
from infracards.store.reads import (
    deck_ids,
    deck_origin,
    deck_summaries,
    last_studied_deck,
    load_prefs,
)

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from infracards.deck import Deck
    from infracards.store.file import Store

BUILTIN_SOURCE = "builtin:module03"
MAX_KEYSLOTS_BYTES = 16 << 20


def builtin_deck_to_load(store: Store) -> bytes | None:
    """The shipped deck's bytes when they must be loaded (first run, or the shipped file
    changed); None when the store has them already, or has the learner's own copy of module03
    from ``deck add``. One read and one hash: no write lock, no YAML."""
    with reading(store) as db:
        origin = deck_origin(db, deck_id="module03")
    if origin is not None and origin[0] != BUILTIN_SOURCE:
        return None
    data = read_deck_bytes(builtin_deck_path())
    if origin is not None and origin[1] == file_digest(data):
        return None
    return data


def ensure_builtin_deck(engine: Engine) -> SyncReport | None:
    """Load the shipped deck on first run, and again only when the shipped file changed."""
    data = builtin_deck_to_load(engine)
    if data is None:
        return None
    from infracards.deck import parse_deck
    from infracards.store.db import transaction
    from infracards.store.queries import sync_deck

    digest = file_digest(data)
    with transaction(engine, write=True) as session:
        origin = deck_origin(session, deck_id="module03")  # again, under the write lock
        if origin is not None and (origin[0] != BUILTIN_SOURCE or origin[1] == digest):
            return None
        path = builtin_deck_path()
        deck = parse_deck(data, path=path)
        return sync_deck(session, deck=deck, source=BUILTIN_SOURCE, keyslots=read_keyslots(deck))


def add_deck(engine: Engine, path: Path, *, allow_older: bool = False) -> SyncReport:
    """Load or update a deck from a file; loading the same file twice changes nothing.

    Unchanged bytes are recognised by their digest before parsing: re-adding a 100k-card deck
    costs one read and one hash, not a 4 s parse. A release older than the one loaded is
    refused unless ``allow_older``: it would silently roll prompts and answers back.
    """
    from infracards.deck import parse_deck
    from infracards.store.db import transaction
    from infracards.store.queries import deck_with_digest, sync_deck

    data = read_deck_bytes(path)
    with transaction(engine) as session:
        synced = deck_with_digest(session, digest=file_digest(data))
    if synced is not None:
        return SyncReport(deck_id=synced[0], version=synced[1], created=False)
    deck = parse_deck(data, path=path)
    keyslots = read_keyslots(deck)
    with transaction(engine, write=True) as session:
        origin = deck_origin(session, deck_id=deck.deck_id)  # again, under the write lock
        if origin is not None and origin[1] == deck.digest:
            return SyncReport(deck_id=deck.deck_id, version=deck.version, created=False)
        if origin is not None and origin[2] > deck.version and not allow_older:
            raise InfracardsError(
                f"{path}: deck {deck.deck_id} v{deck.version} is older than the v{origin[2]}"
                " loaded here; nothing changed (pass --allow-older to load it anyway)"
            )
        return sync_deck(session, deck=deck, source=str(path.resolve()), keyslots=keyslots)


def read_keyslots(deck: Deck) -> str | None:
    """The key slots file shipped beside a sealed deck (its contents are checked when unlocking)."""
    if deck.lock is None:
        return None
    path = deck.keyslots_path
    data = read_deck_bytes(path, max_bytes=MAX_KEYSLOTS_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise DeckError(f"{path}: invalid UTF-8") from None


def require_deck(store: Store, deck_id: str) -> None:
    """The check every command naming a deck makes first."""
    with reading(store) as db:
        if deck_id not in deck_ids(db):
            raise InfracardsError(f"no deck {deck_id!r} is loaded; see `infracards deck list`")


@dataclass(frozen=True, slots=True)
class Overview:
    """Every deck's counts on one study day (Home, `status`, `deck list`)."""

    today: date
    decks: tuple[DeckSummary, ...]


def deck_overview(store: Store, *, now: datetime, home: Path | None = None) -> Overview:
    """Counts as the review will meet them: with `study-locked no`, the sealed cards of a deck
    whose card key is stored in ``home`` count (None: no key is looked for)."""
    with reading(store) as db:
        prefs = load_prefs(db)
    unlocked: frozenset[str] = frozenset()
    if home is not None and not prefs.study_locked:
        from infracards.services.unlock import unlocked_decks  # with the seal: only if needed

        unlocked = unlocked_decks(store, home)
    with reading(store) as db:
        today = study_day(now, rollover_hour=prefs.rollover_hour)
        summaries = deck_summaries(db, today=today, prefs=prefs, unlocked=unlocked)
        return Overview(today, tuple(summaries))


def deck_to_open(store: Store) -> str | None:
    """The deck Home starts on: the one studied last, else the first (as Anki opens)."""
    with reading(store) as db:
        return last_studied_deck(db) or next(iter(deck_ids(db)), None)
