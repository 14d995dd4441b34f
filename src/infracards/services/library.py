"""Decks in the store: the built-in deck on first run, ``deck add`` and ``deck check``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from infracards.errors import DeckError, InfracardsError
from infracards.files import keyslots_path, read_deck_bytes, read_regular_file, release_digest
from infracards.paths import builtin_deck_path
from infracards.records import DeckSummary, SyncReport
from infracards.scheduler import study_day
from infracards.store.db import transaction
from infracards.store.queries import (
    deck_ids,
    deck_notation,
    deck_origin,
    deck_summaries,
    deck_with_digest,
    last_studied_deck,
    load_prefs,
    sync_deck,
)
from infracards.terminal_text import echo, quoted

if TYPE_CHECKING:
    from infracards.deck import Deck
    from infracards.seal import CardLabels

# `infracards.deck` (PyYAML and the hardened loader, ~10 ms to import) is imported only when a
# deck file is actually parsed: an ordinary start, with the shipped deck unchanged, needs none
# (reading and hashing the file are in `infracards.files`).

BUILTIN_SOURCE = "builtin:module03"
MAX_KEYSLOTS_BYTES = 16 << 20


def ensure_builtin_deck(engine: Engine) -> SyncReport | None:
    """Load the shipped deck on first run, and again only when the shipped release changed
    (its deck file or its key slots: a card key issued later only adds a slot).

    A learner who loaded their own copy of module03 with ``deck add`` keeps it. When nothing
    changed, which is every start but the first, this is two reads and a hash: no write
    lock, no YAML.
    """
    path = builtin_deck_path()
    with transaction(engine) as session:
        origin = deck_origin(session, deck_id="module03")
    if origin is not None and origin[0] != BUILTIN_SOURCE:
        return None
    release = _read_release(path)
    if origin is not None and origin[1] == release.digest:
        return None
    from infracards.deck import parse_deck

    with transaction(engine, write=True) as session:
        origin = deck_origin(session, deck_id="module03")  # again, under the write lock
        if origin is not None and (origin[0] != BUILTIN_SOURCE or origin[1] == release.digest):
            return None
        deck = parse_deck(release.data, path=path)
        return sync_deck(
            session,
            deck=deck,
            source=BUILTIN_SOURCE,
            keyslots=checked_keyslots(deck, release.keyslots),
            digest=release.digest,
        )


def add_deck(engine: Engine, path: Path) -> SyncReport:
    """Load or update a deck from a file; loading the same release twice changes nothing.

    An unchanged release is recognised by its digest before parsing: re-adding a 100k-card
    deck costs one read and one hash, not a 4 s parse.
    """
    from infracards.deck import parse_deck

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


def require_deck(engine: Engine, deck_id: str) -> None:
    """The check every command naming a deck makes first."""
    with transaction(engine) as session:
        if deck_id not in deck_ids(session):
            raise InfracardsError(
                f"no deck {quoted(deck_id)} is loaded; see `infracards deck list`"
            )


@dataclass(frozen=True, slots=True)
class Overview:
    """Every deck's counts on one study day (Home, `status`, `deck list`)."""

    today: date
    decks: tuple[DeckSummary, ...]


def deck_overview(engine: Engine, *, now: datetime) -> Overview:
    with transaction(engine) as session:
        prefs = load_prefs(session)
        today = study_day(now, rollover_hour=prefs.rollover_hour)
        return Overview(today, tuple(deck_summaries(session, today=today, prefs=prefs)))


def deck_to_open(engine: Engine) -> str | None:
    """The deck Home starts on: the one studied last, else the first (as Anki opens)."""
    with transaction(engine) as session:
        return last_studied_deck(session) or next(iter(deck_ids(session)), None)


def notation_page(engine: Engine, *, deck_id: str) -> str | None:
    """The deck's notation-and-constants page (free Markdown, opened from any of its cards),
    or None when the deck has none."""
    with transaction(engine) as session:
        return deck_notation(session, deck_id=deck_id)
