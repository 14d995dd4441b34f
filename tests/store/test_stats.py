"""Statistics against a hand-built review history in a real store, checked number by number.

The history (today is Monday 2025-01-06):

* grades through ``grade_card`` (so states and due dates are real), sample deck and a second deck:
  q01 5 on 12-30, 4 on 12-31, 5 today · q02 2 (+ a drill 4) on 01-02, 3 on 01-03 (overdue since
  01-04) · q03 5 on 01-04, then retired · q04 4 on 01-05, 1 today (+ drills 2, 4) · o1 3 today;
  o2 is never reviewed.
* older logs inserted directly on q01: 2024-01-07 (just outside the year), 2024-01-08 (2),
  2024-06-10..16 (one a day: the longest streak, 7), 2024-11-04 (a 2 and a drill 4).
"""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from rich.cells import cell_len
from sqlalchemy import Engine, text, update
from sqlmodel import col

from infracards.services.formatting import stats_document, stats_report
from infracards.services.library import add_deck
from infracards.services.report import write_report
from infracards.store import stats as stats_module
from infracards.store.db import open_store, transaction
from infracards.store.models import Card, Review
from infracards.store.reads import find_card
from infracards.store.stats import (
    Stats,
    TagStats,
    Totals,
    compute_stats,
    count_quartiles,
    shade_level,
)
from tests.conftest import grade_by_id

OTHER_DECK = """\
format: infracards-deck/v1
id: other
title: Other deck
version: 1
language: en
cards:
  - id: o1
    prompt: "What is NCCL?"
    tags: [communication]
    answer: "NVIDIA's collective communication library."
  - id: o2
    prompt: "What does ZeRO-2 shard?"
    tags: [memory]
    answer: "Optimizer states and gradients."
"""

D = date.fromisoformat


def grade(
    engine: Engine,
    card_id: str,
    quality: int,
    day: str,
    *,
    drill: bool = False,
    deck: str = "sample",
) -> None:
    study_day = D(day)
    noon = datetime(study_day.year, study_day.month, study_day.day, 10, tzinfo=UTC)
    grade_by_id(
        engine,
        card_id,
        quality,
        now=noon,
        today=study_day,
        drill=drill,
        deck_id=deck,
        duration_ms=1000,
    )


def log(engine: Engine, day: str, *grades: int, drills: tuple[int, ...] = ()) -> None:
    """Old reviews of q01, written directly: only the log matters for the statistics."""
    with transaction(engine) as session:
        [card] = find_card(session, card_id="q01", deck_id="sample")
        for quality, drill in [*((g, False) for g in grades), *((g, True) for g in drills)]:
            session.add(
                Review(
                    card=card.pk,
                    reviewed_at=datetime.fromisoformat(day).replace(hour=9, tzinfo=UTC),
                    study_day=D(day),
                    grade=quality,
                    drill=drill,
                    easiness_centi_before=250,
                    repetitions_before=0,
                    interval_before=0,
                    easiness_centi_after=250,
                    repetitions_after=0,
                    interval_after=0,
                )
            )


def build_history(engine: Engine, tmp_path: Path) -> None:
    """The history described in the module docstring."""
    other = tmp_path / "other.yaml"
    other.write_text(OTHER_DECK, encoding="utf-8")
    add_deck(engine, other)

    log(engine, "2024-01-07", 5)
    log(engine, "2024-01-08", 4, 2)
    for day in range(10, 17):
        log(engine, f"2024-06-{day}", [5, 4, 3, 2, 1, 0, 5][day - 10])
    log(engine, "2024-11-04", 2, drills=(4,))

    grade(engine, "q01", 5, "2024-12-30")
    grade(engine, "q01", 4, "2024-12-31")
    grade(engine, "q02", 2, "2025-01-02")
    grade(engine, "q02", 4, "2025-01-02", drill=True)
    grade(engine, "q02", 3, "2025-01-03")
    grade(engine, "q03", 5, "2025-01-04")
    grade(engine, "q04", 4, "2025-01-05")
    grade(engine, "q01", 5, "2025-01-06")
    grade(engine, "q04", 1, "2025-01-06")
    grade(engine, "q04", 2, "2025-01-06", drill=True)
    grade(engine, "q04", 4, "2025-01-06", drill=True)
    grade(engine, "o1", 3, "2025-01-06", deck="other")

    with transaction(engine) as session:  # gone from the deck file; its history stays
        session.execute(update(Card).where(col(Card.card_id) == "q03").values(retired=True))


@pytest.fixture
def history(engine: Engine, tmp_path: Path) -> Engine:
    build_history(engine, tmp_path)
    return engine


def stats_for(engine: Engine, today: date, deck_id: str | None = None) -> Stats:
    with transaction(engine) as session:
        return compute_stats(session, today=today, deck_id=deck_id)


def test_heatmap_counts_every_review_of_the_last_365_days(history: Engine, today: date) -> None:
    stats = stats_for(history, today)
    assert stats.heatmap == (
        (D("2024-01-08"), 2),  # 2024-01-07 is 365 days back: outside
        *((D(f"2024-06-{day}"), 1) for day in range(10, 17)),
        (D("2024-11-04"), 2),  # drills count here: they are study too
        (D("2024-12-30"), 1),
        (D("2024-12-31"), 1),
        (D("2025-01-02"), 2),
        (D("2025-01-03"), 1),
        (D("2025-01-04"), 1),  # a retired card's history still counts
        (D("2025-01-05"), 1),
        (D("2025-01-06"), 5),
    )
    assert stats.totals.reviews == 24


def test_streaks_count_consecutive_study_days(history: Engine, today: date) -> None:
    stats = stats_for(history, today)
    assert (stats.current_streak, stats.longest_streak) == (5, 7)  # 01-02..06; June 10..16


@pytest.mark.parametrize(
    ("day", "current"),
    [
        ("2025-01-07", 5),  # nothing yet today: the streak still runs from yesterday
        ("2025-01-08", 0),  # a day missed
        ("2025-01-05", 4),  # later reviews are not counted
        ("2025-01-01", 2),  # the gap day itself: 12-30, 12-31
    ],
)
def test_the_current_streak_counts_back_from_today_or_yesterday(
    history: Engine, day: str, current: int
) -> None:
    stats = stats_for(history, D(day))
    assert (stats.current_streak, stats.longest_streak) == (current, 7)


def test_forecast_counts_overdue_cards_today_and_skips_retired_and_new_ones(
    history: Engine, today: date
) -> None:
    stats = stats_for(history, today)
    assert len(stats.forecast) == 30
    assert stats.forecast[0] == (today, 1)  # q02 (due 01-04); q03 is retired
    assert stats.forecast[-1][0] == D("2025-02-04")
    assert {day: n for day, n in stats.forecast if n} == {
        D("2025-01-06"): 1,
        D("2025-01-07"): 2,  # q04 (failed today), o1
        D("2025-01-22"): 1,  # q01: interval ceil(6 × 2.60) = 16
    }
    later = stats_for(history, D("2025-01-23"))  # q01 is overdue by then too
    assert later.forecast[0] == (D("2025-01-23"), 4)


def test_retention_excludes_drills(history: Engine, today: date) -> None:
    stats = stats_for(history, today)
    assert len(stats.retention_daily) == 30
    assert stats.retention_daily[0] == (D("2024-12-08"), 0, 0)
    assert {day: (n, p) for day, n, p in stats.retention_daily if n} == {
        D("2024-12-30"): (1, 1),
        D("2024-12-31"): (1, 1),
        D("2025-01-02"): (1, 0),  # the 2, not the drill 4
        D("2025-01-03"): (1, 1),
        D("2025-01-04"): (1, 1),
        D("2025-01-05"): (1, 1),
        D("2025-01-06"): (3, 2),  # q01 5, q04 1, o1 3; q04's drills left out
    }


def test_weekly_retention_covers_twelve_iso_weeks(history: Engine, today: date) -> None:
    stats = stats_for(history, today)
    mondays = [monday for monday, _, _ in stats.retention_weekly]
    assert mondays == [D("2024-10-21") + timedelta(weeks=n) for n in range(12)]
    assert {monday: (n, p) for monday, n, p in stats.retention_weekly if n} == {
        D("2024-11-04"): (1, 0),
        D("2024-12-30"): (6, 5),  # Mon 12-30 .. Sun 01-05, across the new year
        D("2025-01-06"): (3, 2),
    }


def test_topics_split_tags_and_average_ef_over_reviewed_cards(history: Engine, today: date) -> None:
    stats = stats_for(history, today)
    assert stats.tags_since == D("2024-12-08")
    # TagStats(tag, cards, reviews, passed, average EF, reviewed cards)
    assert stats.by_tag == (
        # q01 (EF 2.70; 3 reviews in 30 days, all kept: 11-04 is older), q04 (1.96; 2, 1 kept),
        # o1 (2.36; 1, 1)
        TagStats("communication", 3, 6, 5, Decimal("2.34"), 3),
        # q02 (EF 2.04: 2 reviews, 1 kept) and o2 (new: no EF to average)
        TagStats("memory", 2, 2, 1, Decimal("2.04"), 1),
        TagStats("tensor-parallel", 1, 2, 1, Decimal("1.96"), 1),
        TagStats("zero", 1, 2, 1, Decimal("2.04"), 1),
    )  # "pipeline" is gone: its only card is retired
    assert stats.by_tag[0].retention == pytest.approx(5 / 6)
    # (2.70 + 2.04 + 1.96 + 2.36) / 4 = 2.265, rounded half up
    assert stats.totals == Totals(cards=5, reviewed_cards=4, reviews=24, average_ef=Decimal("2.27"))


def test_a_deck_filter_narrows_every_number(history: Engine, today: date) -> None:
    sample = stats_for(history, today, "sample")
    assert sample.deck_id == "sample"
    assert sample.heatmap[-1] == (today, 4)
    assert sample.totals == Totals(
        cards=3, reviewed_cards=3, reviews=23, average_ef=Decimal("2.23")
    )
    assert sample.by_tag[0] == TagStats("communication", 2, 5, 4, Decimal("2.33"), 2)
    assert sample.forecast[1] == (D("2025-01-07"), 1)
    assert (sample.current_streak, sample.longest_streak) == (5, 7)

    other = stats_for(history, today, "other")
    assert other.heatmap == ((today, 1),)
    assert (other.current_streak, other.longest_streak) == (1, 1)
    assert other.retention_weekly[-1] == (today, 1, 1)
    assert other.totals == Totals(cards=2, reviewed_cards=1, reviews=1, average_ef=Decimal("2.36"))


@pytest.mark.parametrize("deck_id", [None, "sample", "other"])
def test_per_day_numbers_from_running_counts_equal_the_log(
    history: Engine, today: date, deck_id: str | None
) -> None:
    """Heatmap, retention, streak days and totals, recounted from every review row."""
    stats = stats_for(history, today, deck_id)
    in_deck = "" if deck_id is None else " AND c.deck_id = :deck"
    log = (
        "SELECT r.study_day, count(*), sum(NOT r.drill), sum(NOT r.drill AND r.grade >= 3)"
        f" FROM review r JOIN card c ON c.id = r.card WHERE 1{in_deck}"
        " GROUP BY r.study_day ORDER BY r.study_day"
    )
    with transaction(history) as session:
        days = [
            (D(day), n, graded, passed)
            for day, n, graded, passed in session.execute(text(log), {"deck": deck_id})
        ]
    year = today - timedelta(days=stats_module.HEATMAP_DAYS - 1)
    assert stats.heatmap == tuple((day, n) for day, n, _, _ in days if year <= day <= today)
    assert stats.totals.reviews == sum(n for _, n, _, _ in days)
    graded = {day: (g, p) for day, _, g, p in days if g}
    assert all(graded.get(day, (0, 0)) == (n, p) for day, n, p in stats.retention_daily)
    assert stats.retention_daily and any(n for _, n, _ in stats.retention_daily)


def test_the_only_deck_loaded_needs_no_filter(engine: Engine, today: date) -> None:
    grade(engine, "q01", 4, "2025-01-05")
    grade(engine, "q02", 2, "2025-01-06")
    everything = stats_for(engine, today)
    assert stats_for(engine, today, "sample") == dataclasses.replace(everything, deck_id="sample")
    assert stats_for(engine, today, "missing").totals == Totals(0, 0, 0, None)


def test_nothing_reviewed_yet(engine: Engine, today: date) -> None:
    stats = stats_for(engine, today)
    assert stats.heatmap == ()
    assert (stats.current_streak, stats.longest_streak) == (0, 0)
    assert all(n == 0 for _, n in stats.forecast)
    assert stats.totals == Totals(cards=4, reviewed_cards=0, reviews=0, average_ef=None)
    assert [t.tag for t in stats.by_tag] == [
        "communication",
        "memory",
        "pipeline",
        "tensor-parallel",
        "zero",
    ]
    assert all(t.average_ef is None and t.retention is None for t in stats.by_tag)
    assert "average EF –" in stats_report(stats)


def test_an_empty_store(home: Path, today: date) -> None:
    engine = open_store(home)
    stats = stats_for(engine, today)
    assert stats.by_tag == ()
    assert stats.totals == Totals(cards=0, reviewed_cards=0, reviews=0, average_ef=None)
    json.dumps(stats_document(stats))
    engine.dispose()


def test_the_json_document(history: Engine, today: date) -> None:
    document = json.loads(json.dumps(stats_document(stats_for(history, today))))
    assert document["today"] == "2025-01-06" and document["deck"] is None
    assert document["totals"] == {
        "cards": 5,
        "reviewed_cards": 4,
        "reviews": 24,
        "average_ef": 2.27,
    }
    assert document["streak"] == {"current": 5, "longest": 7}
    assert document["heatmap"][-1] == {"day": "2025-01-06", "reviews": 5}
    assert document["forecast"][1] == {"day": "2025-01-07", "due": 2}
    assert document["retention"]["daily"][-1] == {
        "day": "2025-01-06",
        "reviews": 3,
        "passed": 2,
        "rate": 0.6667,
    }
    assert document["retention"]["weekly"][0]["rate"] is None
    assert document["tags"]["reviews_since"] == "2024-12-08"
    assert document["tags"]["topics"][0] == {
        "tag": "communication",
        "cards": 3,
        "reviewed_cards": 3,
        "reviews": 6,
        "passed": 5,
        "rate": 0.8333,
        "average_ef": 2.34,
    }


def test_the_text_report_fits_80_columns(history: Engine, today: date) -> None:
    report = stats_report(stats_for(history, today))
    assert max(cell_len(line) for line in report.splitlines()) <= 80
    assert "Streak     5 days (longest 7)" in report
    assert "  2024-12-23                         no reviews" in report
    assert "Cards      5 active, 4 reviewed, average EF 2.27" in report
    assert "  2024-12-30  █████████████████░░░  83% of 6" in report


def test_one_review_on_one_day_reads_in_the_singular(engine: Engine, today: date) -> None:
    grade(engine, "q01", 4, today.isoformat())
    report = stats_report(stats_for(engine, today))
    assert "1 in the last 365 days on 1 day\n" in report
    assert "Streak     1 day (longest 1)" in report
    with transaction(engine) as session:
        out = io.StringIO()
        write_report(session, out, today=today)
    assert "- Streak: 1 day now, longest 1 day\n" in out.getvalue()


def test_quartiles_shade_the_busiest_days_darkest() -> None:
    quartiles = count_quartiles([0, 1, 2, 3, 4, 5, 6, 7, 8])
    assert quartiles == (2, 4, 6)
    assert [shade_level(n, quartiles) for n in (0, 1, 2, 3, 5, 6, 7, 50)] == [
        0,
        1,
        1,
        2,
        3,
        3,
        4,
        4,
    ]
    assert count_quartiles([]) == (0, 0, 0)
    assert shade_level(3, count_quartiles([3])) == 1


def test_the_stats_module_does_not_import_textual() -> None:
    code = "import sys, infracards.store.stats; print('textual' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_a_new_learner_sees_only_the_weeks_since_their_first_review(
    engine: Engine, today: date
) -> None:
    assert "  No reviews yet.\n" in stats_report(stats_for(engine, today))
    grade(engine, "q01", 4, (today - timedelta(days=7)).isoformat())
    grade(engine, "q02", 5, today.isoformat())
    report = stats_report(stats_for(engine, today))
    weeks = report.split("Retention by week")[1].split("\n\n")[0].splitlines()[1:]
    assert weeks == [
        "  2024-12-30  ████████████████████ 100% of 1",
        "  2025-01-06  ████████████████████ 100% of 1",
    ]


def test_the_forecast_has_a_scale(history: Engine, today: date) -> None:
    report = stats_report(stats_for(history, today))
    chart = report.split("Due in the next 30 days")[1].split("\n\n")[0].splitlines()[1:]
    assert chart[0].startswith("  2 ┤") and chart[-2] == "  0 └" + "─" * 30
    assert chart[-1].split() == ["01-06", "01-20", "02-04"]
    bars = [line[5:] for line in chart[:-2]]
    assert len(bars) == 4 and all(len(line) <= 30 for line in bars)
    assert [line[:2] for line in bars] == [" █", " █", "██", "██"]  # 1 today, 2 tomorrow (peak)


def test_the_topics_say_ef_averages_the_reviewed_cards(history: Engine, today: date) -> None:
    report = stats_report(stats_for(history, today))
    assert "Topics (reviews since 2024-12-08; EF: average of the cards seen)" in report
    assert "  tag                  cards  seen reviews  kept    EF" in report
    assert "  communication            3     3       6   83%  2.34" in report
