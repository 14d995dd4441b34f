"""The data SQLite triggers keep (schema 0003) always equals what it summarises.

``cardstate`` copies its card's deck, position, retired flag and lock state; ``duecount`` counts
active cards per deck, due day and lock state; ``daycount`` counts reviews per deck and study
day. Every test here changes the store the way the app (or a raw bulk load) does and then
recomputes all three from ``card``, ``cardstate`` and ``review``.
"""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from infracards.paths import database_path
from infracards.scheduler.sm2 import PASSING_GRADE
from infracards.services.export import import_document
from infracards.services.library import add_deck, ensure_builtin_deck
from infracards.services.study import Graded, undo_grade
from infracards.store.db import transaction
from tests.conftest import SAMPLE_DECK, grade_by_id, write_release

TRIGGERS = {
    "card_delete",
    "card_update",
    "cardstate_delete",
    "cardstate_insert",
    "cardstate_update",
    "review_delete",
    "review_insert",
    "review_update",
}


def assert_counts_match(path: Path) -> None:
    """Copies and running counts equal a recount from the tables they summarise."""
    with closing(sqlite3.connect(path)) as db:
        stale = db.execute(
            "SELECT c.card_id FROM card c JOIN cardstate s ON s.card = c.id"
            " WHERE s.deck_id IS NOT c.deck_id OR s.position IS NOT c.position"
            " OR s.retired IS NOT c.retired OR s.locked IS NOT (c.answer IS NULL)"
        ).fetchall()
        assert stale == []
        bucket = "deck_id, due, locked, suspended, leech, buried_on"
        due = db.execute(
            f"SELECT {bucket}, count(*) FROM cardstate WHERE NOT retired"
            f" GROUP BY {bucket} ORDER BY {bucket}"
        ).fetchall()
        assert (
            db.execute(f"SELECT {bucket}, cards FROM duecount ORDER BY {bucket}").fetchall() == due
        )
        days = db.execute(
            "SELECT c.deck_id, r.study_day, count(*), sum(NOT r.drill),"
            " sum(NOT r.drill AND r.grade >= ?) FROM review r JOIN card c ON c.id = r.card"
            " GROUP BY c.deck_id, r.study_day ORDER BY c.deck_id, r.study_day",
            (PASSING_GRADE,),
        ).fetchall()
        assert (
            db.execute(
                "SELECT deck_id, study_day, reviews, graded, passed FROM daycount"
                " ORDER BY deck_id, study_day"
            ).fetchall()
            == days
        )


# Deck edits that move every copied column: q02 becomes sealed (locked), q04 leaves (retired),
# q01 moves to the end (position).
SEALED_Q02 = SAMPLE_DECK.replace(
    'answer: "切分优化器状态 (optimizer states)。"',
    "sealed: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIj",
).replace("version: 1", "version: 2")
WITHOUT_Q04 = SAMPLE_DECK.split("  - id: q04\n")[0].replace("version: 1", "version: 3")
_Q01_START = SAMPLE_DECK.index("  - id: q01\n")
_Q02_START = SAMPLE_DECK.index("  - id: q02\n")
Q01_LAST = (
    SAMPLE_DECK[:_Q01_START] + SAMPLE_DECK[_Q02_START:] + SAMPLE_DECK[_Q01_START:_Q02_START]
).replace("version: 1", "version: 4")


def test_triggers_exist_at_head(engine: Engine, home: Path) -> None:
    with closing(sqlite3.connect(database_path(home))) as db:
        names = {
            row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        }
    assert names == TRIGGERS


def test_a_deck_life_keeps_copies_and_counts_exact(
    engine: Engine, home: Path, sample_deck: Path, today: date, now: datetime
) -> None:
    path = database_path(home)
    assert_counts_match(path)
    graded = [
        grade_by_id(engine, "q01", 2, now=now, today=today),
        grade_by_id(engine, "q01", 4, now=now + timedelta(minutes=1), today=today, drill=True),
        grade_by_id(engine, "q02", 5, now=now + timedelta(minutes=2), today=today),
        grade_by_id(engine, "q03", 3, now=now + timedelta(days=1), today=today + timedelta(days=1)),
    ]
    assert_counts_match(path)
    undo_grade(engine, graded=graded[-1])
    undo_grade(engine, graded=graded[1])
    assert_counts_match(path)

    for text in (
        SEALED_Q02,
        WITHOUT_Q04,
        Q01_LAST,
        SAMPLE_DECK.replace("version: 1", "version: 5"),
    ):
        write_release(sample_deck, text)
        add_deck(engine, sample_deck)
        assert_counts_match(path)

    # Import replays the merged log, rewriting every review's before/after and every state.
    earlier = {
        "card_id": "q01",
        "reviewed_at": "2025-01-04T09:00:00Z",
        "study_day": "2025-01-04",
        "grade": 4,
        "drill": False,
        "duration_ms": 5,
    }
    document = {
        "format": "infracards-progress/v1",
        "decks": [{"id": "sample", "cards": [], "reviews": [earlier]}],
    }
    with transaction(engine, write=True) as session:
        assert import_document(session, document, source="test").added == 1
    assert_counts_match(path)


def test_random_grades_undos_and_edits_keep_counts_exact(
    engine: Engine, home: Path, sample_deck: Path, today: date, now: datetime
) -> None:
    rng = random.Random(6)
    path = database_path(home)
    history: list[Graded] = []
    texts = [SAMPLE_DECK, SEALED_Q02, WITHOUT_Q04, Q01_LAST]
    for step in range(150):
        action = rng.random()
        if action < 0.6:
            card_id = rng.choice(["q01", "q02", "q03"])
            day = today + timedelta(days=rng.randint(0, 20))
            moment = now + timedelta(days=(day - today).days, minutes=step)
            drill = rng.random() < 0.2
            quality = rng.randint(0, 5)
            history.append(
                grade_by_id(engine, card_id, quality, now=moment, today=day, drill=drill)
            )
        elif action < 0.85 and history:
            undo_grade(engine, graded=history.pop(rng.randrange(len(history))))
        else:
            write_release(sample_deck, rng.choice(texts))
            add_deck(engine, sample_deck, allow_older=True)  # releases in any order
        assert_counts_match(path)
    assert_counts_match(path)


def test_suspending_burying_and_leeches_move_the_counts(
    engine: Engine, home: Path, today: date, now: datetime
) -> None:
    """Schema 0005: suspended and buried cards leave Home's due and new counts (and the queue),
    and are still counted as cards."""
    from infracards.records import StudyPrefs
    from infracards.store.queries import bury, set_suspended
    from infracards.store.reads import deck_summaries, find_card

    path = database_path(home)
    grade_by_id(engine, "q01", 4, now=now - timedelta(days=1), today=today - timedelta(days=1))
    with transaction(engine, write=True) as session:
        pks = {c: find_card(session, card_id=c, deck_id="sample")[0].pk for c in ("q01", "q02")}
        set_suspended(session, card_pks=[pks["q02"]], suspended=True)  # a new card
        bury(session, card_pks=[pks["q01"]], day=today)  # due today
    assert_counts_match(path)
    with transaction(engine) as session:
        [summary] = deck_summaries(session, today=today, prefs=StudyPrefs())
    assert (summary.total, summary.new, summary.due, summary.suspended) == (4, 2, 0, 1)
    with transaction(engine) as session:
        [tomorrow] = deck_summaries(session, today=today + timedelta(days=1), prefs=StudyPrefs())
    assert tomorrow.due == 1  # buried for one study day only
    # Eight lapses make q03 a leech: flagged and suspended, by the grade's own transaction.
    for lapse in range(8):
        moment = now + timedelta(days=lapse)
        grade_by_id(engine, "q03", 1, now=moment, today=today + timedelta(days=lapse))
    assert_counts_match(path)
    with transaction(engine) as session:
        [summary] = deck_summaries(session, today=today, prefs=StudyPrefs())
    assert (summary.suspended, summary.leeches, summary.new) == (2, 1, 1)
    with transaction(engine, write=True) as session:
        set_suspended(session, card_pks=list(pks.values()), suspended=False)
        bury(session, card_pks=[pks["q01"]], day=None)
    assert_counts_match(path)


def test_deleting_a_card_or_a_deck_takes_its_counts_along(
    engine: Engine, home: Path, today: date, now: datetime
) -> None:
    grade_by_id(engine, "q01", 5, now=now, today=today)
    grade_by_id(engine, "q02", 1, now=now, today=today)
    grade_by_id(engine, "q02", 4, now=now, today=today, drill=True)
    path = database_path(home)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("DELETE FROM card WHERE card_id = 'q02'")
    assert_counts_match(path)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("DELETE FROM deck WHERE id = 'sample'")
    assert_counts_match(path)
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM duecount").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM daycount").fetchone() == (0,)


def test_a_raw_sqlite3_bulk_load_is_counted(engine: Engine, home: Path) -> None:
    """The benchmarks load 100k cards and 1M reviews this way, with only the base columns."""
    path = database_path(home)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "INSERT INTO deck (id, title, version, language, source, digest)"
            " VALUES ('bulk', 'Bulk', 1, 'en', 'bench', '')"
        )
        db.executemany(
            "INSERT INTO card (id, deck_id, card_id, position, prompt, tags, key_points, answer,"
            " retired) VALUES (?, 'bulk', ?, ?, 'p', 't', '[]', ?, ?)",
            [(100 + n, f"b{n}", n, None if n % 3 else "a", int(n == 4)) for n in range(9)],
        )
        db.executemany(
            "INSERT INTO cardstate (card, easiness_centi, repetitions, interval, due)"
            " VALUES (?, 250, 1, 1, ?)",
            [(100 + n, None if n % 2 else f"2025-01-0{n % 5 + 1}") for n in range(9)],
        )
        db.executemany(
            "INSERT INTO review (card, reviewed_at, study_day, grade, drill, duration_ms,"
            " easiness_centi_before, repetitions_before, interval_before,"
            " easiness_centi_after, repetitions_after, interval_after)"
            " VALUES (?, '2025-01-05 08:00:00.000000', ?, ?, ?, 1, 250, 0, 0, 250, 1, 1)",
            [(100 + n % 9, f"2025-01-0{n % 3 + 1}", n % 6, n % 4 == 0) for n in range(40)],
        )
    assert_counts_match(path)


@pytest.mark.parametrize("column", ["study_day", "grade", "drill", "card"])
def test_rewriting_a_logged_review_moves_its_count(
    engine: Engine, home: Path, today: date, now: datetime, column: str
) -> None:
    ensure_builtin_deck(engine)
    grade_by_id(engine, "q01", 5, now=now, today=today)
    grade_by_id(engine, "q01", 4, now=now, today=today, drill=True)
    path = database_path(home)
    value = {
        "study_day": "'2024-12-31'",
        "grade": "1",
        "drill": "NOT drill",
        "card": "(SELECT id FROM card WHERE deck_id = 'module03' LIMIT 1)",
    }[column]
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(f"UPDATE review SET {column} = {value} WHERE id = (SELECT min(id) FROM review)")
    assert_counts_match(path)
