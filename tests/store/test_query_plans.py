"""The hot queries read the indexes and running counts they were written for, not whole tables.

At 100,000 cards a scan of ``card`` reads ~200 MB of prompts and answers, and a sort of every
due card costs tens of milliseconds, so these plans are what keeps Home, the first card and
grading fast. ``ANALYZE`` statistics from a large collection are written in, so SQLite plans the
way it would for a heavy user rather than for the tiny test deck.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, TextClause

import infracards.store.practice as practice
import infracards.store.queries as queries
import infracards.store.reads as reads
import infracards.store.stats as stats
from infracards.paths import database_path

PARAMS: dict[str, Any] = {
    "deck": "sample",
    "today": "2025-01-06",
    "locked_too": True,
    "after_due": "2025-01-01",
    "after_position": 3,
    "after_card": 7,
    "log_mark": 10,
    "limit": 100,
    "cards": "[1, 2, 3]",
}


@pytest.fixture
def db(engine: Engine, home: Path) -> sqlite3.Connection:
    with closing(sqlite3.connect(database_path(home))) as connection:
        # Statistics of a 100k-card collection: 100k states in 1 deck, 1M reviews on 700 days.
        connection.execute("ANALYZE")
        connection.execute("DELETE FROM sqlite_stat1")
        connection.executemany(
            "INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)",
            [
                (
                    "cardstate",
                    "ix_cardstate_queue",
                    "100000 100000 99000 99000 130 1 1 1 1",
                ),
                ("cardstate", None, "100000"),
                ("card", "ix_card_retired_tags_deck_id", "100000 99000 5000 5000"),
                ("card", "sqlite_autoindex_card_1", "100000 100000 1"),
                ("review", "ix_review_study_day", "1000000 1500"),
                ("review", "ix_review_card_drill_grade_reviewed_at", "1000000 10 8 2 1"),
                ("review", "ix_review_checked", "5000 2"),
                ("duecount", "ix_duecount_deck_id_due_locked", "300 300 2 1"),
                ("daycount", "sqlite_autoindex_daycount_1", "700 700 1"),
            ],
        )
        connection.commit()
    connection = sqlite3.connect(database_path(home))
    yield connection
    connection.close()


def plan(db: sqlite3.Connection, statement: TextClause | str) -> list[str]:
    sql = statement if isinstance(statement, str) else statement.text
    return [row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {sql}", PARAMS)]


def test_a_page_of_the_queue_is_one_index_range_in_study_order(db: sqlite3.Connection) -> None:
    steps = plan(db, queries._DUE_PAGE)
    assert steps[0].startswith(
        "SEARCH s USING COVERING INDEX ix_cardstate_queue"
        " (deck_id=? AND retired=? AND suspended=? AND (due,position"
    )
    assert not any("TEMP B-TREE" in step or step.startswith("SCAN") for step in steps), steps
    # "Graded since the queue was read?" is a seek in a covering index, per card.
    assert any(
        step.startswith("SEARCH r USING COVERING INDEX ix_review_") and "(card=?)" in step
        for step in steps
    ), steps


def test_a_mock_draw_reads_best_grades_and_checks_from_indexes_only(
    db: sqlite3.Connection,
) -> None:
    """150 candidates at 1M reviews: each best grade is one seek, each card's checks come
    from the partial index of the few reviews that have one (schema 0007)."""
    rows = plan(db, practice._CANDIDATE_ROWS)
    assert (
        "SEARCH r USING COVERING INDEX ix_review_card_drill_grade_reviewed_at (card=? AND drill=?)"
        in rows
    ), rows
    checks = plan(db, practice._CANDIDATE_CHECKS)
    assert "SEARCH r USING INDEX ix_review_checked (card=?)" in checks, checks
    assert not any(step.startswith("SCAN") and "VIRTUAL" not in step for step in rows + checks)


def test_new_cards_are_read_in_deck_order_from_the_same_index(db: sqlite3.Connection) -> None:
    assert plan(db, queries._NEW_CARDS) == [
        "SEARCH cardstate USING COVERING INDEX ix_cardstate_queue"
        " (deck_id=? AND retired=? AND suspended=? AND due=?)"
    ]


def test_drills_are_checked_card_by_card(db: sqlite3.Connection) -> None:
    steps = plan(db, queries._QUEUED_OR_HIDDEN_AMONG)
    assert "SEARCH s USING INTEGER PRIMARY KEY (rowid=?)" in steps, steps
    assert not any(step.startswith("SCAN s") for step in steps), steps


@pytest.mark.parametrize(
    "statement",
    [
        queries._DUE_COUNT,
        reads._DECK_COUNTS,
        reads._REVIEWED_ON,
        queries._TODAYS_REVIEWS,
        reads._DECK_ROWS,
    ],
)
def test_counts_read_only_running_counts(
    db: sqlite3.Connection, statement: TextClause | str
) -> None:
    tables = " ".join(plan(db, statement))
    for table in ("card ", "cardstate", "review"):
        assert table not in tables, tables


def test_todays_log_is_a_range_of_the_study_day_index(db: sqlite3.Connection) -> None:
    for statement in (
        queries._TODAYS_LOG,
        queries._TODAYS_LOG_ONE_DECK,
        reads._INTRODUCED_ON,
        reads._INTRODUCED_IN_ONE_DECK,
    ):
        steps = plan(db, statement)
        assert any("ix_review_study_day (study_day=?)" in step for step in steps), steps
        assert not any(step.startswith("SCAN") for step in steps), steps


STATS_PARAMS = {
    "today": "2025-01-06",
    "yesterday": "2025-01-05",
    "year": "2024-01-08",
    "weeks": "2024-10-21",
    "since": "2024-12-08",
    "last": "2025-02-04",
    "deck": "sample",
    "passing": 3,
}


def stats_plan(db: sqlite3.Connection, sql: str, deck: str) -> list[str]:
    query = sql.format(deck=deck)
    return [row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {query}", STATS_PARAMS)]


@pytest.mark.parametrize("deck", ["", stats._IN_DECK])
@pytest.mark.parametrize(
    "sql", [stats._HEATMAP, stats._STREAKS, stats._RETENTION, stats._REVIEWS, stats._FORECAST]
)
def test_per_day_statistics_read_only_running_counts(
    db: sqlite3.Connection, sql: str, deck: str
) -> None:
    tables = " ".join(stats_plan(db, sql, deck))
    for table in ("card ", "cardstate", "review", " c ", " s ", " r "):
        assert table not in f"{tables} ", tables


@pytest.mark.parametrize("deck", ["", " AND c.deck_id = :deck"])
def test_the_pass_over_cards_reads_no_answers_and_sorts_only_recent_reviews(
    db: sqlite3.Connection, deck: str
) -> None:
    steps = stats_plan(db, stats._CARDS, deck)
    assert any(
        step.startswith("SEARCH c USING COVERING INDEX ix_card_retired_tags_deck_id")
        for step in steps
    ), steps
    assert not any(step.startswith("SCAN c") for step in steps), steps
    assert sum("TEMP B-TREE FOR GROUP BY" in step for step in steps) == 2, steps  # recent, tags
