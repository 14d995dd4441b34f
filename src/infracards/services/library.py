"""Decks in the store: the built-in deck on first run, ``deck add`` and ``deck check``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from infracards.errors import DeckError, InfracardsError
from infracards.files import file_digest, read_deck_bytes
from infracards.paths import builtin_deck_path
from infracards.records import DeckSummary, SyncReport
from infracards.scheduler import study_day
from infracards.store.db import transaction
from infracards.store.queries import (
    deck_ids,
    deck_origin,
    deck_summaries,
    deck_with_digest,
    last_studied_deck,
    load_prefs,
    sync_deck,
)

if TYPE_CHECKING:
    from infracards.deck import Deck

# `infracards.deck` (PyYAML and the hardened loader, ~10 ms to import) is imported only when a
# deck file is actually parsed: an ordinary start, with the shipped deck unchanged, needs none
# (reading and hashing the file are in `infracards.files`).

BUILTIN_SOURCE = "builtin:module03"
MAX_KEYSLOTS_BYTES = 16 << 20


def ensure_builtin_deck(engine: Engine) -> SyncReport | None:
    """Load the shipped deck on first run, and again only when the shipped file changed.

    A learner who loaded their own copy of module03 with ``deck add`` keeps it. When nothing
    changed, which is every start but the first, this is one read and one hash: no write
    lock, no YAML.
    """
    path = builtin_deck_path()
    with transaction(engine) as session:
        origin = deck_origin(session, deck_id="module03")
    if origin is not None and origin[0] != BUILTIN_SOURCE:
        return None
    data = read_deck_bytes(path)
    digest = file_digest(data)
    if origin is not None and origin[1] == digest:
        return None
    from infracards.deck import parse_deck

    with transaction(engine, write=True) as session:
        origin = deck_origin(session, deck_id="module03")  # again, under the write lock
        if origin is not None and (origin[0] != BUILTIN_SOURCE or origin[1] == digest):
            return None
        deck = parse_deck(data, path=path)
        return sync_deck(session, deck=deck, source=BUILTIN_SOURCE, keyslots=read_keyslots(deck))


def add_deck(engine: Engine, path: Path, *, allow_older: bool = False) -> SyncReport:
    """Load or update a deck from a file; loading the same file twice changes nothing.

    Unchanged bytes are recognised by their digest before parsing: re-adding a 100k-card deck
    costs one read and one hash, not a 4 s parse. A release older than the one loaded is
    refused unless ``allow_older``: it would silently roll prompts and answers back.
    """
    from infracards.deck import parse_deck

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


def require_deck(engine: Engine, deck_id: str) -> None:
    """The check every command naming a deck makes first."""
    with transaction(engine) as session:
        if deck_id not in deck_ids(session):
            raise InfracardsError(f"no deck {deck_id!r} is loaded; see `infracards deck list`")


@dataclass(frozen=True, slots=True)
class Overview:
    """Every deck's counts on one study day (Home, `status`, `deck list`)."""

    today: date
    decks: tuple[DeckSummary, ...]


def deck_overview(engine: Engine, *, now: datetime, home: Path | None = None) -> Overview:
    """Counts as the review will meet them: with `study-locked no`, the sealed cards of a deck
    whose card key is stored in ``home`` count (None: no key is looked for)."""
    with transaction(engine) as session:
        prefs = load_prefs(session)
    unlocked: frozenset[str] = frozenset()
    if home is not None and not prefs.study_locked:
        from infracards.services.unlock import unlocked_decks  # with the seal: only if needed

        unlocked = unlocked_decks(engine, home)
    with transaction(engine) as session:
        today = study_day(now, rollover_hour=prefs.rollover_hour)
        summaries = deck_summaries(session, today=today, prefs=prefs, unlocked=unlocked)
        return Overview(today, tuple(summaries))


def deck_to_open(engine: Engine) -> str | None:
    """The deck Home starts on: the one studied last, else the first (as Anki opens)."""
    with transaction(engine) as session:
        return last_studied_deck(session) or next(iter(deck_ids(session)), None)
