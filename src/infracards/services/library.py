"""Decks in the store: the built-in deck on first run, ``deck add`` and ``deck check``.

Reading decks (the overview, checks) needs only ``sqlite3``; loading one writes through the
ORM, so SQLAlchemy (and PyYAML, via ``infracards.deck``, ~10 ms) is imported by the functions
that load, and only when a file must actually be parsed and synced: an ordinary start, with
the shipped deck unchanged, needs neither (reading and hashing it are in ``infracards.files``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from infracards.errors import DeckError, InfracardsError
from infracards.files import keyslots_path, read_deck_bytes, read_regular_file, release_digest
from infracards.paths import builtin_deck_path
from infracards.records import DeckSummary, SyncReport
from infracards.scheduler import study_day
from infracards.store.file import reading
from infracards.store.reads import (
    deck_ids,
    deck_notation,
    deck_origin,
    deck_summaries,
    last_studied_deck,
    load_prefs,
)
from infracards.terminal_text import echo, quoted

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from infracards.deck import Deck
    from infracards.seal import CardLabels
    from infracards.store.file import Store

BUILTIN_SOURCE = "builtin:module03"
MAX_KEYSLOTS_BYTES = 16 << 20


def builtin_release_to_load(store: Store) -> _Release | None:
    """The shipped release when it must be loaded: on first run, and again only when it
    changed (its deck file or its key slots: a card key issued later only adds a slot).
    None when the store has it already, or has the learner's own copy of module03 from
    ``deck add``. Two reads and a hash: no write lock, no YAML."""
    with reading(store) as db:
        origin = deck_origin(db, deck_id="module03")
    if origin is not None and origin[0] != BUILTIN_SOURCE:
        return None
    release = _read_release(builtin_deck_path())
    if origin is not None and origin[1] == release.digest:
        return None
    return release


def ensure_builtin_deck(engine: Engine) -> SyncReport | None:
    """Load the shipped release when ``builtin_release_to_load`` says so."""
    release = builtin_release_to_load(engine)
    if release is None:
        return None
    from infracards.deck import parse_deck
    from infracards.store.db import transaction
    from infracards.store.queries import sync_deck

    with transaction(engine, write=True) as session:
        origin = deck_origin(session, deck_id="module03")  # again, under the write lock
        if origin is not None and (origin[0] != BUILTIN_SOURCE or origin[1] == release.digest):
            return None
        deck = parse_deck(release.data, path=builtin_deck_path())
        return sync_deck(
            session,
            deck=deck,
            source=BUILTIN_SOURCE,
            keyslots=checked_keyslots(deck, release.keyslots),
            digest=release.digest,
        )


def add_deck(engine: Engine, path: Path, *, allow_older: bool = False) -> SyncReport:
    """Load or update a deck from a file; loading the same release twice changes nothing.

    An unchanged release is recognised by its digest before parsing: re-adding a 100k-card
    deck costs one read and one hash, not a 4 s parse. A release older than the one loaded is
    refused unless ``allow_older``: it would silently roll prompts and answers back.
    """
    from infracards.deck import parse_deck
    from infracards.store.db import transaction
    from infracards.store.queries import deck_with_digest, sync_deck

    release = _read_release(path)
    with transaction(engine) as session:
        synced = deck_with_digest(session, digest=release.digest)
    if synced is not None:
        return SyncReport(deck_id=synced[0], version=synced[1], created=False)
    deck = parse_deck(release.data, path=path)
    keyslots = checked_keyslots(deck, release.keyslots)
    with transaction(engine, write=True) as session:
        origin = deck_origin(session, deck_id=deck.deck_id)  # again, under the write lock
        if origin is not None and origin[1] == release.digest:
            return SyncReport(deck_id=deck.deck_id, version=deck.version, created=False)
        if origin is not None and origin[2] > deck.version and not allow_older:
            raise InfracardsError(
                f"{echo(path)}: deck {echo(deck.deck_id)} v{deck.version} is older than the"
                f" v{origin[2]} loaded here; nothing changed (pass --allow-older to load it"
                " anyway)"
            )
        return sync_deck(
            session,
            deck=deck,
            source=str(path.resolve()),
            keyslots=keyslots,
            digest=release.digest,
        )


@dataclass(frozen=True, slots=True)
class _Release:
    """The bytes a release ships: its deck file and, beside it, its key slots (if any)."""

    data: bytes
    keyslots: bytes | None
    digest: str


def _read_release(path: Path) -> _Release:
    """Read a deck file and its key slots. The slots are read as the license is: never through
    a symbolic link (a planted link would copy another file's text into the store), regular
    files only, at most 16 MiB."""
    data = read_deck_bytes(path)
    slots_path = keyslots_path(path)
    slots = (
        read_regular_file(
            slots_path, max_bytes=MAX_KEYSLOTS_BYTES, what="key slots file", follow_symlinks=False
        )
        if os.path.lexists(slots_path)
        else None
    )
    return _Release(data, slots, release_digest(data, slots))


def checked_keyslots(deck: Deck, keyslots: bytes | None) -> str | None:
    """A sealed deck's key slots, checked as unlocking will check them, with its lock header
    and the cards the header says are sealed and free: a damaged or relabelled release is
    refused when it is added, not at unlock. None for a deck without sealed answers."""
    if deck.lock is None:
        return None
    if keyslots is None:
        raise DeckError(f"{echo(deck.keyslots_path)}: no such file (the deck's key slots)")
    from infracards.seal import check_labels, parse_keyslots, parse_lock_header

    header = parse_lock_header(deck.lock, deck_id=deck.deck_id)
    check_labels(header, deck_labels(deck), deck_id=deck.deck_id)
    parse_keyslots(keyslots, deck_id=deck.deck_id, release=deck.version)
    return keyslots.decode("utf-8")  # parse_keyslots read it as UTF-8 JSON


def deck_labels(deck: Deck) -> CardLabels:
    from infracards.seal import CardLabels

    return CardLabels(
        sealed=frozenset(card.card_id for card in deck.cards if card.sealed is not None),
        free=frozenset(card.card_id for card in deck.cards if card.answer is not None),
    )


def require_deck(store: Store, deck_id: str) -> None:
    """The check every command naming a deck makes first."""
    with reading(store) as db:
        if deck_id not in deck_ids(db):
            raise InfracardsError(
                f"no deck {quoted(deck_id)} is loaded; see `infracards deck list`"
            )


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


def notation_page(store: Store, *, deck_id: str) -> str | None:
    """The deck's notation-and-constants page (free Markdown, opened from any of its cards),
    or None when the deck has none."""
    with reading(store) as db:
        return deck_notation(db, deck_id=deck_id)
