"""SQLModel tables, and nothing else: queries live in ``queries.py``.

EF is stored as integer hundredths (``easiness_centi``) because SM-2 needs exact arithmetic.
Dates are study days (local calendar days that roll over at a configurable hour); times are UTC.

Schema 0003 added data that SQLite triggers keep (see ``migrations/versions/0003_...``): each
``cardstate`` row carries copies of its card's deck, position, retired flag and lock state, and
``duecount`` and ``daycount`` hold running counts. Whoever writes cards, states or reviews
(deck sync, grading, undo, import, a raw ``sqlite3`` bulk load) keeps them right without
knowing. A migration that rebuilds ``card``, ``cardstate`` or ``review`` drops their triggers
and must create them again (``tests/store/test_migrations.py`` checks they exist at head).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Index, UniqueConstraint, text
from sqlmodel import Field, SQLModel

# Batch migrations on SQLite recreate tables and need every constraint to have a stable name.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Table models are constructed, never validated (SQLModel skips validation for them), so each
# says `defer_build`: Pydantic builds a validator only if one is ever asked for, not at import
# (about 3 ms of every start for the six of them).


class Deck(SQLModel, table=True):
    """A loaded deck; its cards are matched by card id when the file changes."""

    model_config = {"defer_build": True}

    id: str = Field(primary_key=True)
    title: str
    version: int
    language: str
    source: str
    """Where the deck was loaded from ("builtin:module03" or a file path)."""
    digest: str
    """SHA-256 of the deck file last synced: an unchanged file is skipped without parsing."""
    lock_header: str | None = None
    """JSON of the seal header, for decks with sealed answers."""
    keyslots: str | None = None
    """JSON key slots shipped beside a sealed deck (public; one per issued card key)."""
    notation: str | None = None
    """The deck's notation-and-constants page (Markdown), when it has one."""


class Card(SQLModel, table=True):
    """A card of a deck. Retired cards (gone from the deck file) keep their history."""

    model_config = {"defer_build": True}

    __table_args__ = (
        UniqueConstraint("deck_id", "card_id"),
        # Statistics group active cards by tags without reading prompts and answers (~2 KB each).
        Index("ix_card_retired_tags_deck_id", "retired", "tags", "deck_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    deck_id: str = Field(foreign_key="deck.id", ondelete="CASCADE")
    card_id: str
    position: int
    prompt: str
    tags: str = ""
    """Space-separated topic tags."""
    key_points: str = "[]"
    """JSON list of short checkable statements (free cards; sealed cards carry theirs inside)."""
    answer: str | None = None
    sealed: str | None = None
    retired: bool = False
    calculators: str = "[]"
    """JSON list of the whiteboard calculators that fit this card (public, sealed or not)."""


class CardState(SQLModel, table=True):
    """SM-2 state of one card; ``due`` is NULL until the first review (a new card).

    The last four columns copy the card's (triggers keep them), so today's queue is one range of
    ``ix_cardstate_queue`` in study order, read without touching ``card``.
    """

    model_config = {"defer_build": True}

    __table_args__ = (
        # Study order (due day, position, then the key, which is unique); locked makes the
        # index covering for the "answered cards only" setting.
        # Schema 0006: suspended leads the range and buried_on keeps it covering.
        Index(
            "ix_cardstate_queue",
            "deck_id",
            "retired",
            "suspended",
            "due",
            "position",
            "card",
            "locked",
            "buried_on",
        ),
    )

    card: int = Field(primary_key=True, foreign_key="card.id", ondelete="CASCADE")
    easiness_centi: int = 250
    repetitions: int = 0
    interval: int = 0
    due: date | None = None
    last_review_at: datetime | None = None
    deck_id: str | None = None
    """``card.deck_id`` (copied by a trigger)."""
    position: int | None = None
    """``card.position`` (copied by a trigger)."""
    retired: bool = False
    """``card.retired`` (copied by a trigger)."""
    locked: bool = False
    """``card.answer IS NULL`` (copied by a trigger)."""
    suspended: bool = False
    """Schema 0006: out of every queue and count until unsuspended (by hand, or as a leech)."""
    leech: bool = False
    """Lapsed ``leech-threshold`` times (grades below 3): flagged, and suspended when it was."""
    buried_on: date | None = None
    """The study day the card was buried on: hidden from that day's queue only."""


class StudySession(SQLModel, table=True):
    """One sitting in the review screen."""

    model_config = {"defer_build": True}

    __tablename__ = "session"

    id: int | None = Field(default=None, primary_key=True)
    started_at: datetime
    ended_at: datetime | None = None
    study_day: date
    deck_id: str | None = Field(default=None, foreign_key="deck.id", ondelete="SET NULL")
    """The deck reviewed (schema 0002; sessions logged before it have none)."""


class Review(SQLModel, table=True):
    """Every grade ever given, with the state before and after, so undo and replay are exact."""

    model_config = {"defer_build": True}

    __table_args__ = (
        # Schema 0007: per card, its best graded review is one seek (the mock draw); it
        # replaced (card, reviewed_at), so a grade still writes one per-card entry.
        Index("ix_review_card_drill_grade_reviewed_at", "card", "drill", "grade", "reviewed_at"),
        Index("ix_review_study_day", "study_day"),
        # Schema 0005: the few reviews with a key-point check, read by statistics and the mock
        # draw without scanning a million reviews.
        Index("ix_review_checked", "card", sqlite_where=text("points IS NOT NULL")),
    )

    id: int | None = Field(default=None, primary_key=True)
    card: int = Field(foreign_key="card.id", ondelete="CASCADE")
    session: int | None = Field(default=None, foreign_key="session.id", ondelete="SET NULL")
    reviewed_at: datetime
    study_day: date
    grade: int
    drill: bool = False
    """A same-day re-drill (SM-2 step 7): logged, but the state is unchanged."""
    duration_ms: int = 0
    easiness_centi_before: int
    repetitions_before: int
    interval_before: int
    due_before: date | None = None
    easiness_centi_after: int
    repetitions_after: int
    interval_after: int
    due_after: date | None = None
    points: int | None = None
    """Schema 0005: how many key points the self-check listed (None: no check recorded)."""
    recalled: int | None = None
    """Which of them the learner said, as a bit mask by index (bit i: point i); never text."""
    points_fp: str | None = None
    """Fingerprint of the key-point list checked against (``services.keypoints``), so a deck
    update that changes the points is recognised."""
    practice: str | None = None
    """Schema 0006: extra practice outside the schedule (``ahead``, ``cram``, ``final``); such a
    review is logged as a drill, so the SM-2 state stays exactly as it was."""


class MockSession(SQLModel, table=True):
    """One mock interview (schema 0005): questions asked against a clock, self-checked."""

    model_config = {"defer_build": True}

    id: int | None = Field(default=None, primary_key=True)
    deck_id: str = Field(foreign_key="deck.id", ondelete="CASCADE")
    started_at: datetime
    ended_at: datetime | None = None
    study_day: date
    questions: int
    """Questions planned (fewer are asked when the learner stops early)."""
    seconds_per_question: int
    topic: str | None = None
    """The topic the draw was limited to, if any."""


class MockQuestion(SQLModel, table=True):
    """One question of a mock interview: time used, the key points covered, the learner's notes."""

    model_config = {"defer_build": True}

    __table_args__ = (
        UniqueConstraint("mock", "position"),
        Index("ix_mockquestion_card", "card"),
    )

    id: int | None = Field(default=None, primary_key=True)
    mock: int = Field(foreign_key="mocksession.id", ondelete="CASCADE")
    card: int = Field(foreign_key="card.id", ondelete="CASCADE")
    position: int
    seconds_used: int
    timed_out: bool = False
    points: int | None = None
    """Key points on the checklist; None for a sealed card asked question-only."""
    recalled: int | None = None
    """Bit mask of the points covered (bit i: point i)."""
    points_fp: str | None = None
    notes: str = ""
    """What the learner typed while answering: their own text, kept with the session."""
    review: int | None = Field(default=None, foreign_key="review.id", ondelete="SET NULL")
    """The graded review this question was counted as, if the learner chose to count it."""


class DueCount(SQLModel, table=True):
    """Active cards per deck, due day (NULL: new) and lock state, kept by triggers on ``cardstate``.

    Home's counts (cards, new, due today, locked) add up a few hundred of these rows instead of
    joining 100,000 cards to their states.
    """

    __table_args__ = (Index("ix_duecount_deck_id_due_locked", "deck_id", "due", "locked"),)

    id: int | None = Field(default=None, primary_key=True)
    deck_id: str
    due: date | None = None
    locked: bool
    cards: int
    suspended: bool = False
    """Schema 0006: Home's due and new counts leave suspended and buried cards out."""
    leech: bool = False
    buried_on: date | None = None


class DayCount(SQLModel, table=True):
    """Reviews per deck and study day, kept by triggers on ``review``.

    ``reviews`` counts every grade (drills too), ``graded`` the grades that are not drills and
    ``passed`` those of them at ``PASSING_GRADE`` (3) or more: the heatmap, streaks, retention and
    "reviewed today" read these ~700 rows a deck instead of 1,000,000 reviews.
    """

    deck_id: str = Field(primary_key=True)
    study_day: date = Field(primary_key=True)
    reviews: int
    graded: int
    passed: int


class Setting(SQLModel, table=True):
    """User preferences such as the daily new-card limit."""

    model_config = {"defer_build": True}

    key: str = Field(primary_key=True)
    value: str
