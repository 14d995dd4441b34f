"""Decks in the store: the built-in deck on first run, ``deck add`` and ``deck check``."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from infracards.errors import DeckError
from infracards.paths import builtin_deck_path
from infracards.store.db import transaction
from infracards.store.queries import SyncReport, deck_origin, deck_with_digest, sync_deck

if TYPE_CHECKING:
    from infracards.deck import Deck

# `infracards.deck` (PyYAML and the hardened loader, ~10 ms to import) is imported only when a
# deck file is actually parsed: an ordinary start, with the shipped deck unchanged, needs none.

BUILTIN_SOURCE = "builtin:module03"
MAX_KEYSLOTS_BYTES = 16 << 20


def ensure_builtin_deck(engine: Engine) -> SyncReport | None:
    """Load the shipped deck on first run, and again only when the shipped file changed.

    A learner who loaded their own copy of module03 with ``deck add`` keeps it. When nothing
    changed, which is every start but the first, this is one read: no write lock, no YAML.
    """
    path = builtin_deck_path()
    with transaction(engine) as session:
        origin = deck_origin(session, deck_id="module03")
    if origin is not None and (origin[0] != BUILTIN_SOURCE or _hashes_to(path, origin[1])):
        return None
    from infracards.deck import file_digest, parse_deck, read_deck_bytes

    data = read_deck_bytes(path)
    with transaction(engine, write=True) as session:
        origin = deck_origin(session, deck_id="module03")  # again, under the write lock
        if origin is not None and (origin[0] != BUILTIN_SOURCE or origin[1] == file_digest(data)):
            return None
        deck = parse_deck(data, path=path)
        return sync_deck(session, deck=deck, source=BUILTIN_SOURCE, keyslots=read_keyslots(deck))


def _hashes_to(path: Path, digest: str) -> bool:
    """Whether the shipped file still has the digest stored at its last sync.

    The same SHA-256 as ``deck.file_digest``; anything unexpected (a missing or odd file, or a
    different digest) says no, and the careful path above reads, reports or re-syncs it.
    """
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return False
        data = path.read_bytes()
    except OSError:
        return False
    return hashlib.sha256(data).hexdigest() == digest


def add_deck(engine: Engine, path: Path) -> SyncReport:
    """Load or update a deck from a file; loading the same file twice changes nothing.

    Unchanged bytes are recognised by their digest before parsing: re-adding a 100k-card deck
    costs one read and one hash, not a 4 s parse.
    """
    from infracards.deck import file_digest, parse_deck, read_deck_bytes

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
        return sync_deck(session, deck=deck, source=str(path.resolve()), keyslots=keyslots)


def read_keyslots(deck: Deck) -> str | None:
    """The key slots file shipped beside a sealed deck (its contents are checked when unlocking)."""
    if deck.lock is None:
        return None
    from infracards.deck import read_deck_bytes

    path = deck.keyslots_path
    data = read_deck_bytes(path, max_bytes=MAX_KEYSLOTS_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise DeckError(f"{path}: invalid UTF-8") from None
