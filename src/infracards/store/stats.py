"""Learner statistics: review heatmap, streaks, due forecast, retention and topics.

Every number comes from SQL aggregates: over the running counts that triggers keep (reviews per
deck and day, cards per deck and due day), plus one grouped pass over the cards for the topics;
Python only reshapes the few hundred aggregated rows. At 1M reviews a Python loop over review
rows alone takes about a second, and the stats screen has 200 ms.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from infracards.records import Stats, TagStats, Totals
from infracards.scheduler.sm2 import PASSING_GRADE
from infracards.store.reads import Database, driver

HEATMAP_DAYS = 365
FORECAST_DAYS = 30
DAILY_DAYS = 30
"""Daily retention, and the reviews counted per tag, cover the last 30 days (Anki's "month")."""
WEEKS = 12
"""Weekly retention covers the current ISO week and the 11 before it."""

_HUNDREDTH = Decimal("0.01")

# Per-day numbers come from daycount (reviews, non-drill reviews and passed ones per deck and
# study day, kept by triggers: ~700 rows a deck for two years), the forecast from duecount
# (active cards per deck and due day). Only the per-tag numbers read cards and recent reviews.
# ``{deck}`` is "" for all decks or _IN_DECK.
_IN_DECK = " AND deck_id = :deck"

_HEATMAP = """
SELECT study_day, sum(reviews) FROM daycount
WHERE study_day BETWEEN :year AND :today{deck}
GROUP BY study_day ORDER BY study_day
"""

# Gaps and islands over the days studied: within a run of consecutive days,
# julianday(day) - row_number() is constant.
_STREAKS = """
WITH days AS (SELECT DISTINCT study_day AS day FROM daycount WHERE study_day <= :today{deck}),
runs AS (SELECT day, julianday(day) - row_number() OVER (ORDER BY day) AS run FROM days),
lengths AS (SELECT max(day) AS last, count(*) AS length FROM runs GROUP BY run)
SELECT coalesce(max(length), 0),
       coalesce(max(CASE WHEN last >= :yesterday THEN length END), 0)
FROM lengths
"""

# The last WEEKS weeks per day (~85 rows); days and weeks are both summed from it.
_RETENTION = """
SELECT study_day, sum(graded), sum(passed) FROM daycount
WHERE graded > 0 AND study_day BETWEEN :weeks AND :today{deck}
GROUP BY study_day ORDER BY study_day
"""

_REVIEWS = "SELECT coalesce(sum(reviews), 0), min(study_day) FROM daycount WHERE 1{deck}"

# Overdue cards count today; cards due after the last forecast day, and suspended ones, are
# left out.
_FORECAST = """
SELECT max(due, :today), sum(cards) FROM duecount
WHERE due <= :last AND NOT suspended{deck}
GROUP BY 1
"""

# One pass over the active cards in tag order (ix_card_retired_tags_deck_id, so no prompt or
# answer is read and no sort is needed), each joined to its state and to its non-drill reviews
# of the last DAILY_DAYS days: grouped by whole tag string, a few hundred rows that are then
# split on spaces (tags) and summed in all (totals).
_CARDS = """
WITH RECURSIVE recent AS (
    SELECT r.card, count(*) AS reviews, sum(r.grade >= :passing) AS passed FROM review r
    WHERE r.drill = 0 AND r.study_day BETWEEN :since AND :today
    GROUP BY r.card
),
grouped AS (
    SELECT c.tags AS tags,
           count(*) AS cards,
           count(s.due) AS reviewed,
           coalesce(sum(s.easiness_centi) FILTER (WHERE s.due IS NOT NULL), 0) AS ef_centi,
           coalesce(sum(recent.reviews), 0) AS reviews,
           coalesce(sum(recent.passed), 0) AS passed
    FROM card c JOIN cardstate s ON s.card = c.id LEFT JOIN recent ON recent.card = c.id
    WHERE c.retired = 0{deck}
    GROUP BY c.tags
),
split(tag, rest, cards, reviewed, ef_centi, reviews, passed) AS (
    SELECT '', tags || ' ', cards, reviewed, ef_centi, reviews, passed FROM grouped
    UNION ALL
    SELECT substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1),
           cards, reviewed, ef_centi, reviews, passed
    FROM split WHERE rest <> ''
)
SELECT tag, sum(cards), sum(reviewed), sum(ef_centi), sum(reviews), sum(passed)
FROM split WHERE tag <> '' GROUP BY tag
UNION ALL
SELECT NULL, coalesce(sum(cards), 0), coalesce(sum(reviewed), 0), coalesce(sum(ef_centi), 0),
       0, 0
FROM grouped
"""


def compute_stats(db: Database, *, today: date, deck_id: str | None = None) -> Stats:
    """All statistics for ``today`` (a study day), for one deck or (None) all decks."""
    first_monday = today - timedelta(days=today.weekday() + 7 * (WEEKS - 1))
    params: dict[str, Any] = {
        "today": today.isoformat(),
        "yesterday": (today - timedelta(days=1)).isoformat(),
        "year": (today - timedelta(days=HEATMAP_DAYS - 1)).isoformat(),
        "weeks": first_monday.isoformat(),
        "since": (today - timedelta(days=DAILY_DAYS - 1)).isoformat(),
        "last": (today + timedelta(days=FORECAST_DAYS - 1)).isoformat(),
        "deck": deck_id,
        "passing": PASSING_GRADE,
    }
    deck = _IN_DECK if deck_id is not None else ""

    connection = driver(db)

    def rows(sql: str, deck: str = deck) -> list[Any]:
        return connection.execute(sql.format(deck=deck), params).fetchall()

    heatmap = tuple((date.fromisoformat(day), count) for day, count in rows(_HEATMAP))
    [(longest, current)] = rows(_STREAKS)
    [(reviews, first_day)] = rows(_REVIEWS)
    per_day = {date.fromisoformat(day): (count, passed) for day, count, passed in rows(_RETENTION)}
    due = {date.fromisoformat(day): cards for day, cards in rows(_FORECAST)}

    tags: list[TagStats] = []
    totals = Totals(cards=0, reviewed_cards=0, reviews=reviews, average_ef=None)
    for tag, cards, reviewed, ef_centi, tag_reviews, passed in rows(
        _CARDS, " AND c.deck_id = :deck" if deck_id is not None else ""
    ):
        if tag is None:
            totals = Totals(cards, reviewed, reviews, _average_ef(ef_centi, reviewed))
        else:
            average = _average_ef(ef_centi, reviewed)
            tags.append(TagStats(tag, cards, tag_reviews, passed, average, reviewed))

    return Stats(
        today=today,
        deck_id=deck_id,
        heatmap=heatmap,
        current_streak=current,
        longest_streak=longest,
        forecast=tuple((day, due.get(day, 0)) for day in _days(today, FORECAST_DAYS)),
        retention_daily=tuple(
            (day, *per_day.get(day, (0, 0)))
            for day in _days(today - timedelta(days=DAILY_DAYS - 1), DAILY_DAYS)
        ),
        retention_weekly=tuple(
            _week(per_day, first_monday + timedelta(weeks=n)) for n in range(WEEKS)
        ),
        by_tag=tuple(sorted(tags, key=lambda tag: tag.tag)),
        totals=totals,
        first_day=date.fromisoformat(first_day) if first_day else None,
    )


def _days(first: date, count: int) -> list[date]:
    return [first + timedelta(days=n) for n in range(count)]


def _week(per_day: dict[date, tuple[int, int]], monday: date) -> tuple[date, int, int]:
    days = [per_day.get(monday + timedelta(days=n), (0, 0)) for n in range(7)]
    return monday, sum(d[0] for d in days), sum(d[1] for d in days)


def _average_ef(total_centi: int, cards: int) -> Decimal | None:
    """Exact mean of integer hundredths, rounded half up to two places."""
    if not cards:
        return None
    return (Decimal(total_centi) / cards / 100).quantize(_HUNDREDTH, rounding=ROUND_HALF_UP)


def count_quartiles(counts: Iterable[int]) -> tuple[int, int, int]:
    """Nearest-rank quartiles of the non-zero counts: the heatmap's shade boundaries."""
    ordered = sorted(count for count in counts if count > 0)
    if not ordered:
        return (0, 0, 0)
    n = len(ordered)
    q1, q2, q3 = (ordered[max(0, -(-k * n // 4) - 1)] for k in (1, 2, 3))
    return (q1, q2, q3)


def shade_level(count: int, quartiles: tuple[int, int, int]) -> int:
    """0 for no reviews, else 1–4 by quartile (4: busier than three quarters of study days)."""
    if count <= 0:
        return 0
    return 1 + sum(count > bound for bound in quartiles)
