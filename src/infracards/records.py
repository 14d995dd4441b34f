"""Frozen values that cross layers: what the store returns and the screens, the CLI and the
services show. They know no SQL and no Textual, so a widget can hold one without reaching the
store (an import-linter contract in pyproject.toml keeps it so)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from infracards.errors import SettingError
from infracards.scheduler import SM2State
from infracards.setting_names import EXTRA_NEW_KEY, OR_NONE, PREF_KEYS, whole_number


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer ready to show: Markdown plus the key points for self-grading."""

    markdown: str
    key_points: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RecalledPoints:
    """Which key points of a card the learner said, by index, and the list they were checked
    against (its fingerprint, never its text: sealed key points stay out of the store)."""

    points: int
    recalled: frozenset[int]
    fingerprint: str

    @property
    def mask(self) -> int:
        """Bit i set: point i was said (how the store keeps it)."""
        return sum(1 << index for index in self.recalled)

    @property
    def covered(self) -> int:
        return len(self.recalled)

    @classmethod
    def from_mask(cls, points: int, mask: int, fingerprint: str) -> RecalledPoints:
        return cls(points, frozenset(i for i in range(points) if mask >> i & 1), fingerprint)


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
    language: str
    """The deck's language (a BCP 47 tag such as zh-CN): what the key points are headed."""
    retired: bool = False
    calculators: tuple[str, ...] = ()
    """The whiteboard calculators that fit this card (offered even while it is sealed)."""

    @property
    def locked(self) -> bool:
        return self.answer is None

    @property
    def topic(self) -> str:
        """The first tag: what mock interviews mix and key-point statistics group by (headers
        show every tag)."""
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
    due_today: int = 0
    """Due cards today's review will show: ``due`` within what ``max-reviews-per-day`` leaves."""
    suspended: int = 0
    leeches: int = 0


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
    previous_version: int | None = None
    """The release loaded before (None for a new deck)."""
    new_title: str | None = None
    """The deck's title, when this load changed it."""

    @property
    def changed(self) -> bool:
        cards = self.added or self.updated or self.retired or self.restored
        return (
            self.created
            or self.previous_version not in (None, self.version)
            or self.new_title is not None
            or bool(cards)
            or self.keyslots_changed
        )


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
    repetitions: int = 0
    suspended: bool = False
    leech: bool = False
    buried_on: date | None = None


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


NO_LIMIT = "none"
"""How settings without a value (no review cap, no interview date) are written."""


@dataclass(frozen=True, slots=True)
class MockOptions:
    """A mock interview to open: `infracards mock` checks one and starts the app with it, and
    the app's `m` opens one with the defaults."""

    deck_id: str
    questions: int | None = None
    minutes: int | None = None
    topic: str | None = None


@dataclass(frozen=True, slots=True)
class StudyPrefs:
    """Study settings; stored in the ``setting`` table as the strings `infracards config` takes."""

    new_per_day: int = 10
    rollover_hour: int = 4
    """The study day starts at this local hour (Anki's default is 4:00 too)."""
    study_locked: bool = True
    """Locked cards can be studied question-only, grading yourself from memory."""
    max_reviews_per_day: int | None = None
    """At most this many due cards a day (Anki's "maximum reviews/day"); None: no cap."""
    leech_threshold: int = 8
    """A card that lapses this many times is a leech: flagged and suspended (Anki's 8)."""
    interview_date: date | None = None
    plan_reviews: int = 3
    """The plan wants every card reviewed at least this many times before the interview."""
    mock_minutes: int = 3
    """Minutes per question in a mock interview."""
    extra_new: tuple[date, int] | None = None
    """More new cards for one study day ("more new cards today"): (day, how many)."""

    def new_limit(self, today: date) -> int:
        """Today's new-card limit: ``new_per_day`` plus any extra asked for today."""
        extra = self.extra_new[1] if self.extra_new and self.extra_new[0] == today else 0
        return self.new_per_day + extra

    @classmethod
    def from_settings(cls, stored: dict[str, str]) -> StudyPrefs:
        """Prefs from the stored strings, as ``services.settings`` checks them; a value it
        would refuse (a hand-edited database) raises ``SettingError`` naming the setting."""
        defaults = cls()

        def number(name: str, default: int | None) -> int | None:
            key = PREF_KEYS[name]
            value = stored.get(key)
            if value is None:
                return default
            if value == NO_LIMIT and key in OR_NONE:
                return None
            number = whole_number(key, value)
            if number is None:
                raise SettingError(key, value, NO_LIMIT if default is None else default)
            return number

        def interview() -> date | None:
            key = PREF_KEYS["interview_date"]
            value = stored.get(key, NO_LIMIT)
            if value == NO_LIMIT:
                return None
            try:
                return date.fromisoformat(value)
            except ValueError:
                raise SettingError(key, value, NO_LIMIT) from None

        locked = stored.get(PREF_KEYS["study_locked"], "yes")
        if locked not in ("yes", "no"):
            raise SettingError(PREF_KEYS["study_locked"], locked, "yes")
        return cls(
            new_per_day=number("new_per_day", defaults.new_per_day) or 0,
            rollover_hour=number("rollover_hour", defaults.rollover_hour) or 0,
            study_locked=locked == "yes",
            max_reviews_per_day=number("max_reviews_per_day", None),
            leech_threshold=number("leech_threshold", defaults.leech_threshold)
            or defaults.leech_threshold,
            interview_date=interview(),
            plan_reviews=number("plan_reviews", defaults.plan_reviews) or defaults.plan_reviews,
            mock_minutes=number("mock_minutes", defaults.mock_minutes) or defaults.mock_minutes,
            extra_new=_extra_new(stored.get(EXTRA_NEW_KEY, "")),
        )

    def studies_sealed(self, *, deck_unlocked: bool) -> bool:
        """Whether a deck's sealed cards are studied: always with ``study_locked``, else only
        once the deck is unlocked (its answers then open like free ones)."""
        return self.study_locked or deck_unlocked


def _extra_new(stored: str) -> tuple[date, int] | None:
    """ "More new cards today" as stored (``DAY COUNT``); one that does not read is none: it
    only ever lasts a day, and the learner can ask again."""
    day, _, count = stored.partition(" ")
    try:
        return (date.fromisoformat(day), int(count)) if count.isdigit() else None
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class WeakCard:
    """A reviewed card that keeps slipping: low EF and lapses (grades below 3)."""

    deck_id: str
    card_id: str
    prompt: str
    easiness: Decimal
    lapses: int
    due: date | None


@dataclass(frozen=True, slots=True)
class TagStats:
    """One topic tag: its active cards, recent retention and average EF."""

    tag: str
    cards: int
    reviews: int
    """Non-drill reviews in the last ``store.stats.DAILY_DAYS`` days (daily retention's window)."""
    passed: int
    average_ef: Decimal | None
    """Mean EF of the cards reviewed at least once (a new card's 2.50 says nothing), or None."""
    reviewed_cards: int

    @property
    def retention(self) -> float | None:
        return self.passed / self.reviews if self.reviews else None


@dataclass(frozen=True, slots=True)
class Totals:
    """Deck-wide counts: active cards, cards reviewed at least once, every grade ever logged."""

    cards: int
    reviewed_cards: int
    reviews: int
    average_ef: Decimal | None


@dataclass(frozen=True, slots=True)
class Stats:
    """Everything the stats screen and ``infracards stats`` show, for one study day.

    Heatmap and streaks count every review, drills included (they are study too); retention
    counts only non-drill reviews, because a drill is a same-day re-ask of a card just failed.
    """

    today: date
    deck_id: str | None
    """None: all decks."""
    heatmap: tuple[tuple[date, int], ...]
    """Reviews per study day in the last ``HEATMAP_DAYS`` days, oldest first; zero days omitted."""
    current_streak: int
    longest_streak: int
    forecast: tuple[tuple[date, int], ...]
    """Cards due on each of the next ``FORECAST_DAYS`` days (today first, overdue counted today)."""
    retention_daily: tuple[tuple[date, int, int], ...]
    """(day, reviews, passed) for each of the last ``DAILY_DAYS`` days, zero days included."""
    retention_weekly: tuple[tuple[date, int, int], ...]
    """(Monday, reviews, passed) for each of the last ``WEEKS`` ISO weeks, this week last."""
    by_tag: tuple[TagStats, ...]
    totals: Totals
    first_day: date | None
    """The first study day with a review, ever (None before the first): a new learner's
    weeks before it are not weeks without reviews."""

    @property
    def tags_since(self) -> date:
        """The first day whose reviews ``by_tag`` counts."""
        return self.retention_daily[0][0]
