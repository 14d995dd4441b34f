"""The learner's statistics for a study day, for the stats screen and `infracards stats`:
reviews and retention (``store.stats``), and interview practice: the key points missed most,
mock interview scores over time, and leeches."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from infracards.records import Stats
from infracards.services.answers import AnswerBook
from infracards.services.keypoints import KeyPointStats, key_point_stats
from infracards.services.library import require_deck
from infracards.services.mock_history import MockReport, mock_reports
from infracards.services.settings import study_day_at
from infracards.store.file import reading
from infracards.store.practice_reads import LeechCard, leech_cards
from infracards.store.stats import compute_stats

if TYPE_CHECKING:
    from infracards.store.file import Store


def load_stats(store: Store, *, now: datetime, deck_id: str | None = None) -> Stats:
    if deck_id is not None:
        require_deck(store, deck_id)
    today = study_day_at(store, now=now)
    with reading(store) as db:
        return compute_stats(db, today=today, deck_id=deck_id)


@dataclass(frozen=True, slots=True)
class PracticeStats:
    key_points: KeyPointStats
    mocks: tuple[MockReport, ...]
    """Every mock interview, oldest first: the score over time."""
    leeches: tuple[LeechCard, ...]


def load_practice_stats(
    store: Store, answers: AnswerBook, *, deck_id: str | None = None
) -> PracticeStats:
    """Key points are named where their text can be shown (free cards, unlocked decks)."""
    with reading(store) as db:
        leeches = tuple(leech_cards(db, deck_id=deck_id))
    return PracticeStats(
        key_points=key_point_stats(store, answers, deck_id=deck_id),
        mocks=tuple(mock_reports(store, deck_id=deck_id)),
        leeches=leeches,
    )
