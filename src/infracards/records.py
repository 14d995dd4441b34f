"""Frozen values that cross layers: what the store returns and the screens, the CLI and the
services show. They know no SQL and no Textual, so a widget can hold one without reaching the
store (an import-linter contract in pyproject.toml keeps it so)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from infracards.scheduler import SM2State


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer ready to show: Markdown plus the key points for self-grading."""

    markdown: str
    key_points: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CardRecord:
    """A card with its SM-2 state, as screens and the CLI show it."""

    pk: int
    deck_id: str
    card_id: str
    prompt: str
    tags: tuple[str, ...]
    key_points: tuple[str, ...]
    answer: str | None
    sealed: str | None
    state: SM2State
    due: date | None
    retired: bool = False

    @property
    def locked(self) -> bool:
        return self.answer is None

    @property
    def topic(self) -> str:
        return self.tags[0] if self.tags else ""


@dataclass(frozen=True, slots=True)
class DeckSummary:
    """Counts for the home screen and ``infracards status``."""

    deck_id: str
    title: str
    version: int
    total: int
    new: int
    new_today: int
    """New cards the review will show today: the daily limit less those already begun."""
    due: int
    locked: int
    reviews_today: int
    sealed: bool


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What loading a deck file changed, so the user can be told."""

    deck_id: str
    version: int
    created: bool
    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    retired: tuple[str, ...] = ()
    restored: tuple[str, ...] = ()
    keyslots_changed: bool = False
    """The release's key slots changed (a card key issued or revoked), its cards perhaps not."""

    @property
    def changed(self) -> bool:
        cards = self.added or self.updated or self.retired or self.restored
        return self.created or bool(cards) or self.keyslots_changed


@dataclass(frozen=True, slots=True)
class BrowseRow:
    """One line of the browse table."""

    pk: int
    deck_id: str
    card_id: str
    prompt: str
    tags: tuple[str, ...]
    easiness: Decimal
    interval: int
    due: date | None
    reviews: int
    locked: bool


MAX_DURATION_MS = 365 * 24 * 3600 * 1000
"""The longest time a review may record (a year): a card left on screen longer is logged
with this, and an imported review claiming more is refused."""


@dataclass(frozen=True, slots=True)
class ReviewEntry:
    """One logged grade, for the card history and undo."""

    review_id: int
    card_pk: int
    reviewed_at: datetime
    study_day: date
    grade: int
    drill: bool
    duration_ms: int
    interval_after: int


@dataclass(frozen=True, slots=True)
class StudyPrefs:
    """Queue settings; stored in the ``setting`` table."""

    new_per_day: int = 10
    rollover_hour: int = 4
    """The study day starts at this local hour (Anki's default is 4:00 too)."""
    study_locked: bool = True
    """Locked cards can be studied question-only, grading yourself from memory."""


PREF_KEYS = {
    "new_per_day": "new-per-day",
    "rollover_hour": "rollover-hour",
    "study_locked": "study-locked",
}


@dataclass(frozen=True, slots=True)
class WeakCard:
    """A reviewed card that keeps slipping: low EF and lapses (grades below 3)."""

    deck_id: str
    card_id: str
    prompt: str
    easiness: Decimal
    lapses: int
    due: date | None
