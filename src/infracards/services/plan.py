"""The interview date: readiness per topic and overall, the plan for the days left, and the
final pass (README "Interview date, readiness and the plan").

Readiness is the predicted share of the deck you could answer on the interview day if you
stopped studying today. Each card scores its chance of recall that day times how much of it you
said last time:

    recall = R ** (t / I)     t: days from the card's last graded review to the interview,
                              I: its SM-2 interval; a new card scores 0
    card   = recall × (key points said ÷ listed at its latest check; 1 if never checked)

where R, the recall left after one interval, is measured on your own log: the share of graded
reviews of already-learned cards passed (grade 3 or more) in the last ``RETENTION_DAYS`` days,
with ``PRIOR_REVIEWS`` reviews at ``PRIOR_RETENTION`` added so a short log does not swing it.
SM-2 schedules a card again when it judges recall to have dropped to about that level; reading
the interval as the time over which recall falls to R is the model's one assumption. Topics and
the deck average their active cards, suspended ones too (an interviewer may still ask them).

The plan: a card first studied on day d, then graded 4 each time, is reviewed on d, d + 1,
d + 7, d + 22, … (SM-2's intervals 1, 6, 15, …). To review every new card ``plan-reviews`` (N)
times before the interview day, the last day to start one is the interview day − 1 − that span,
and the new cards left are spread evenly over the days until then: ⌈new cards ÷ days⌉ a day.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from infracards.errors import InfracardsError
from infracards.records import NO_LIMIT, StudyPrefs
from infracards.scheduler import SM2State, review, study_day
from infracards.scheduler.sm2 import PASSING_GRADE
from infracards.services.settings import change_setting, validate_setting
from infracards.store.file import reading, writing
from infracards.store.practice_reads import (
    MemoryRow,
    card_ids,
    latest_coverage,
    memory_rows,
    new_card_count,
    recent_retention,
)
from infracards.store.reads import deck_ids, load_prefs, save_setting

if TYPE_CHECKING:
    from pathlib import Path

    from infracards.store.file import Store

RETENTION_DAYS = 90
PRIOR_RETENTION = 0.9
PRIOR_REVIEWS = 20
FINAL_PASS_DAYS = 3
"""The final pass is offered from this many days before the interview day, and holds every
card not reviewed in the last this-many study days."""
DRAGGING = 5
"""Cards listed as dragging readiness down."""
PLAN_GRADE = 4


@dataclass(frozen=True, slots=True)
class CardOutlook:
    """One card's predicted readiness on the interview day, and why it is low."""

    card_pk: int
    topic: str
    recall: float
    coverage: float | None
    """Key points said ÷ listed at its latest check (None: never checked)."""
    new: bool
    overdue_days: int

    @property
    def ready(self) -> float:
        return self.recall * (1.0 if self.coverage is None else self.coverage)


@dataclass(frozen=True, slots=True)
class Plan:
    new_cards: int
    """Unsuspended new cards you can study (sealed ones only with study-locked yes)."""
    reviews_each: int
    last_start: date
    """The last day a new card can be started and still get ``reviews_each`` reviews."""
    days: int
    """Study days from today to ``last_start``, both counted (0 or less: too late)."""

    @property
    def new_per_day(self) -> int | None:
        """New cards a day to start them all in time; None when it is too late for that."""
        if not self.new_cards:
            return 0
        return math.ceil(self.new_cards / self.days) if self.days > 0 else None


@dataclass(frozen=True, slots=True)
class Readiness:
    deck_id: str
    today: date
    interview: date
    retention: float
    """R: the recall left after one interval (from your log, see the module doc)."""
    overall: float
    topics: tuple[tuple[str, float, int], ...]
    """(topic, readiness, cards), least ready first."""
    dragging: tuple[tuple[str, CardOutlook], ...]
    """(card id, outlook) of the cards pulling readiness down most, least ready first."""
    new_cards: int
    """Cards never studied (suspended and sealed ones too): each scores 0."""
    plan: Plan

    @property
    def days_left(self) -> int:
        return (self.interview - self.today).days

    @property
    def final_pass_open(self) -> bool:
        return 0 <= self.days_left <= FINAL_PASS_DAYS


def reviews_span(reviews: int) -> int:
    """Days from a card's first review to its ``reviews``-th, graded 4 each time."""
    state, span = SM2State(), 0
    for _ in range(reviews - 1):
        state = review(state, PLAN_GRADE)
        span += state.interval
    return span


def make_plan(*, today: date, interview: date, new_cards: int, reviews_each: int) -> Plan:
    lead = 1 + reviews_span(reviews_each)
    # An interview date in the first years of the calendar (typed, or hand-edited) has no
    # day that far before it: the plan is simply too late, never an OverflowError.
    last_start = (
        interview - timedelta(days=lead) if (interview - date.min).days >= lead else date.min
    )
    return Plan(new_cards, reviews_each, last_start, (last_start - today).days + 1)


def retention_at_interval(reviews: int, passed: int) -> float:
    """R, shrunk towards ``PRIOR_RETENTION`` by ``PRIOR_REVIEWS`` pseudo-reviews."""
    value = (passed + PRIOR_RETENTION * PRIOR_REVIEWS) / (reviews + PRIOR_REVIEWS)
    return min(max(value, 0.01), 0.999)


def card_outlook(
    row: MemoryRow, *, interview: date, today: date, retention: float, said: tuple[int, int] | None
) -> CardOutlook:
    coverage = said[0] / said[1] if said and said[1] else None
    if row.due is None:
        return CardOutlook(row.card_pk, row.topic, 0.0, coverage, new=True, overdue_days=0)
    interval = max(1, row.interval)
    last_review = row.due - timedelta(days=row.interval)
    elapsed = max(0, (interview - last_review).days)
    recall = retention ** (elapsed / interval)
    overdue = max(0, (today - row.due).days)
    return CardOutlook(row.card_pk, row.topic, recall, coverage, new=False, overdue_days=overdue)


def readiness(
    store: Store, *, deck_id: str, now: datetime, home: Path | None = None
) -> Readiness | None:
    """Readiness and the plan for the interview date; None while no date is set.

    The plan's new cards are those the review will show: with `study-locked no`, a sealed card
    counts once its deck's card key, stored in ``home``, opens it (None: no key is looked for).
    """
    with reading(store) as db:
        prefs = load_prefs(db)
    if prefs.interview_date is None:
        return None
    unlocked = False
    if home is not None and not prefs.study_locked:
        from infracards.services.unlock import unlocked_decks  # with the seal: only if needed

        unlocked = deck_id in unlocked_decks(store, home)
    sealed_too = prefs.studies_sealed(deck_unlocked=unlocked)
    with reading(store) as db:
        today = study_day(now, rollover_hour=prefs.rollover_hour)
        since = today - timedelta(days=RETENTION_DAYS - 1)
        retention = retention_at_interval(
            *recent_retention(db, deck_id=deck_id, since=since, passing=PASSING_GRADE)
        )
        rows = memory_rows(db, deck_id=deck_id)
        coverage = latest_coverage(db, deck_id=deck_id)
        studyable = new_card_count(db, deck_id=deck_id, locked_too=sealed_too)
        outlooks = [
            card_outlook(
                row,
                interview=prefs.interview_date,
                today=today,
                retention=retention,
                said=coverage.get(row.card_pk),
            )
            for row in rows
        ]
        worst = sorted(outlooks, key=lambda o: (o.ready, o.card_pk))[:DRAGGING]
        names = card_ids(db, card_pks=[o.card_pk for o in worst])
    return summarise(
        deck_id=deck_id,
        today=today,
        prefs=prefs,
        interview=prefs.interview_date,
        retention=retention,
        outlooks=outlooks,
        dragging=tuple((names[o.card_pk], o) for o in worst),
        studyable_new=studyable,
    )


def summarise(
    *,
    deck_id: str,
    today: date,
    prefs: StudyPrefs,
    interview: date,
    retention: float,
    outlooks: list[CardOutlook],
    dragging: tuple[tuple[str, CardOutlook], ...],
    studyable_new: int,
) -> Readiness:
    """Topic and deck averages, and the plan for the ``studyable_new`` cards (pure)."""
    by_topic: dict[str, list[float]] = defaultdict(list)
    for outlook in outlooks:
        by_topic[outlook.topic].append(outlook.ready)
    topics = sorted(
        ((topic, sum(values) / len(values), len(values)) for topic, values in by_topic.items()),
        key=lambda item: (item[1], item[0]),
    )
    overall = sum(o.ready for o in outlooks) / len(outlooks) if outlooks else 0.0
    return Readiness(
        deck_id=deck_id,
        today=today,
        interview=interview,
        retention=retention,
        overall=overall,
        topics=tuple(topics),
        dragging=dragging,
        new_cards=sum(o.new for o in outlooks),
        plan=make_plan(
            today=today,
            interview=interview,
            new_cards=studyable_new,
            reviews_each=prefs.plan_reviews,
        ),
    )


def all_readiness(store: Store, *, now: datetime, home: Path | None = None) -> dict[str, Readiness]:
    """Every deck's readiness (empty while no interview date is set)."""
    with reading(store) as db:
        decks = deck_ids(db)
    found = {deck: readiness(store, deck_id=deck, now=now, home=home) for deck in decks}
    return {deck: value for deck, value in found.items() if value is not None}


def set_interview_date(store: Store, value: str) -> date | None:
    """`config interview-date` from the app: a date, or ``none`` to clear it."""
    stored = validate_setting("interview-date", value.strip())
    with writing(store) as db:
        save_setting(db, key="interview-date", value=stored)
    return None if stored == NO_LIMIT else date.fromisoformat(stored)


def accept_plan(store: Store, *, deck_id: str, now: datetime, home: Path | None = None) -> int:
    """Take the plan's new cards a day as ``new-per-day``; returns the value set."""
    outlook = readiness(store, deck_id=deck_id, now=now, home=home)
    if outlook is None:
        raise InfracardsError("set an interview date first: infracards config interview-date")
    per_day = outlook.plan.new_per_day
    if per_day is None:
        raise InfracardsError(
            f"too late to review every new card {outlook.plan.reviews_each} times before"
            f" {outlook.interview.isoformat()}; study them now and use the final pass"
        )
    change_setting(store, key="new-per-day", value=str(per_day))
    return per_day
