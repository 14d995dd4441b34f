"""Extra study once today's queue is done (README "Study controls"): study ahead, more new cards
today, cram (a topic, the weakest cards, the most-missed key points), and the final pass in
the last days before an interview.

Study ahead, cram and the final pass are practice outside the schedule, with one rule: each
grade is logged (as ``practice`` ahead, cram or final, and as a drill), the key points ticked
are recorded, and the card's SM-2 state (EF, repetitions, interval, due date) does not change,
so the normal reviews keep SM-2's exact intervals. "More new cards today" is different: it
raises today's new-card limit, and those cards are normal first reviews (a new card has no
schedule to distort).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from infracards.errors import InfracardsError
from infracards.scheduler import study_day
from infracards.services.plan import FINAL_PASS_DAYS
from infracards.services.review import Practice
from infracards.store.db import transaction
from infracards.store.practice import (
    active_among,
    due_ahead,
    not_reviewed_since,
    topic_cards,
    topic_counts,
    weakest,
)
from infracards.store.practice_reads import check_counts
from infracards.store.reads import load_prefs

AHEAD_DAYS = 7
CRAM_CARDS = 20

AHEAD = "ahead"
CRAM = "cram"
FINAL = "final"


@dataclass(frozen=True, slots=True)
class PracticeOptions:
    """What the extra-study menu offers, with how many cards each holds."""

    ahead: int
    topics: tuple[tuple[str, int], ...]
    weakest: int
    most_missed: int
    final_pass: int | None
    """Cards in the final pass; None outside its window (the last days before the interview)."""


def practice_options(engine: Engine, *, deck_id: str, now: datetime) -> PracticeOptions:
    with transaction(engine) as session:
        prefs = load_prefs(session)
        today = study_day(now, rollover_hour=prefs.rollover_hour)
        locked_too = prefs.study_locked
        ahead = due_ahead(
            session, deck_id=deck_id, today=today, days=AHEAD_DAYS, locked_too=locked_too
        )
        topics = topic_counts(session, deck_id=deck_id, locked_too=locked_too)
        weak = weakest(session, deck_id=deck_id, limit=CRAM_CARDS, locked_too=locked_too)
        interview = prefs.interview_date
        window = interview is not None and 0 <= (interview - today).days <= FINAL_PASS_DAYS
        final = _final_pass_cards(session, deck_id, today, locked_too) if window else None
    return PracticeOptions(
        ahead=len(ahead),
        topics=tuple(topics),
        weakest=len(weak),
        most_missed=len(_most_missed_cards(engine, deck_id)),
        final_pass=len(final) if final is not None else None,
    )


def study_ahead(engine: Engine, *, deck_id: str, now: datetime) -> Practice:
    """Cards due in the next ``AHEAD_DAYS`` days, soonest first."""
    with transaction(engine) as session:
        prefs = load_prefs(session)
        today = study_day(now, rollover_hour=prefs.rollover_hour)
        cards = due_ahead(
            session, deck_id=deck_id, today=today, days=AHEAD_DAYS, locked_too=prefs.study_locked
        )
    return _practice(AHEAD, f"Study ahead: due in the next {AHEAD_DAYS} days", cards)


def cram_topic(engine: Engine, *, deck_id: str, topic: str) -> Practice:
    with transaction(engine) as session:
        locked_too = load_prefs(session).study_locked
        cards = topic_cards(session, deck_id=deck_id, topic=topic, locked_too=locked_too)
    return _practice(CRAM, f"Cram: {topic}", cards)


def cram_weakest(engine: Engine, *, deck_id: str) -> Practice:
    with transaction(engine) as session:
        locked_too = load_prefs(session).study_locked
        cards = weakest(session, deck_id=deck_id, limit=CRAM_CARDS, locked_too=locked_too)
    return _practice(CRAM, f"Cram: the {CRAM_CARDS} weakest cards (lowest EF)", cards)


def most_missed(engine: Engine, *, deck_id: str) -> Practice:
    """Cards by the share of their key points missed over every recorded check."""
    return _practice(
        CRAM, "Cram: the key points you miss most", _most_missed_cards(engine, deck_id)
    )


def _most_missed_cards(engine: Engine, deck_id: str) -> list[int]:
    with transaction(engine) as session:
        counts = check_counts(session, deck_id=deck_id)
        allowed = active_among(
            session,
            deck_id=deck_id,
            card_pks=sorted({row.card_pk for row in counts}),
            locked_too=load_prefs(session).study_locked,
        )
    tally: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for row in counts:
        tally[row.card_pk][0] += row.checks * row.points
        tally[row.card_pk][1] += row.checks * (row.points - row.mask.bit_count())
    missed = [(misses / checked, pk) for pk, (checked, misses) in tally.items() if misses]
    ranked = [pk for _, pk in sorted(missed, key=lambda item: (-item[0], item[1]))]
    return [pk for pk in ranked if pk in allowed][:CRAM_CARDS]


def final_pass(engine: Engine, *, deck_id: str, now: datetime) -> Practice:
    """Every card not reviewed in the last ``FINAL_PASS_DAYS`` study days, weakest first."""
    with transaction(engine) as session:
        prefs = load_prefs(session)
        today = study_day(now, rollover_hour=prefs.rollover_hour)
        cards = _final_pass_cards(session, deck_id, today, prefs.study_locked)
    return _practice(FINAL, "Final pass before the interview", cards)


def _final_pass_cards(session: Session, deck_id: str, today: date, locked_too: bool) -> list[int]:
    since = today - timedelta(days=FINAL_PASS_DAYS)
    return not_reviewed_since(session, deck_id=deck_id, since=since, locked_too=locked_too)


def _practice(kind: str, title: str, cards: list[int]) -> Practice:
    if not cards:
        raise InfracardsError(f"{title}: no card to practise")
    return Practice(kind=kind, title=title, cards=tuple(cards))
