"""The learner's statistics for a study day, for the stats screen and `infracards stats`."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine

from infracards.services.library import require_deck
from infracards.services.settings import study_day_at
from infracards.store.db import transaction
from infracards.store.stats import Stats, compute_stats


def load_stats(engine: Engine, *, now: datetime, deck_id: str | None = None) -> Stats:
    if deck_id is not None:
        require_deck(engine, deck_id)
    today = study_day_at(engine, now=now)
    with transaction(engine) as session:
        return compute_stats(session, today=today, deck_id=deck_id)
