"""The learner's statistics for a study day, for the stats screen and `infracards stats`."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from infracards.records import Stats
from infracards.services.library import require_deck
from infracards.services.settings import study_day_at
from infracards.store.file import reading
from infracards.store.stats import compute_stats

if TYPE_CHECKING:
    from infracards.store.file import Store


def load_stats(store: Store, *, now: datetime, deck_id: str | None = None) -> Stats:
    if deck_id is not None:
        require_deck(store, deck_id)
    today = study_day_at(store, now=now)
    with reading(store) as db:
        return compute_stats(db, today=today, deck_id=deck_id)
