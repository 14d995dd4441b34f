"""The learner's statistics for a study day, for the stats screen and `infracards stats`:
reviews and retention (``store.stats``), and interview practice: the key points missed most,
mock interview scores over time, and leeches."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine

from infracards.services.answers import AnswerBook
from infracards.services.keypoints import KeyPointStats, key_point_stats
from infracards.services.library import require_deck
from infracards.services.mock import MockReport, mock_reports
from infracards.services.settings import study_day_at
from infracards.store.db import transaction
from infracards.store.practice import LeechCard, leech_cards
from infracards.store.stats import Stats, compute_stats


def load_stats(engine: Engine, *, now: datetime, deck_id: str | None = None) -> Stats:
    if deck_id is not None:
        require_deck(engine, deck_id)
    today = study_day_at(engine, now=now)
    with transaction(engine) as session:
        return compute_stats(session, today=today, deck_id=deck_id)


@dataclass(frozen=True, slots=True)
class PracticeStats:
    key_points: KeyPointStats
    mocks: tuple[MockReport, ...]
    """Every mock interview, oldest first: the score over time."""
    leeches: tuple[LeechCard, ...]


def load_practice_stats(
    engine: Engine, answers: AnswerBook, *, deck_id: str | None = None
) -> PracticeStats:
    """Key points are named where their text can be shown (free cards, unlocked decks)."""
    with transaction(engine) as session:
        leeches = tuple(leech_cards(session, deck_id=deck_id))
    return PracticeStats(
        key_points=key_point_stats(engine, answers, deck_id=deck_id),
        mocks=tuple(mock_reports(engine, deck_id=deck_id)),
        leeches=leeches,
    )
