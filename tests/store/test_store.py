"""Store behaviour against a real SQLite file: deck sync, grading, undo and the daily queue."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, text

from infracards.errors import StoreError
from infracards.paths import builtin_deck_path
from infracards.records import StudyPrefs
from infracards.scheduler import SM2State
from infracards.services.library import add_deck, ensure_builtin_deck
from infracards.services.study import grade_card, undo_grade
from infracards.store.db import session_connection, transaction
from infracards.store.grading import REVIEW_COLUMNS, load_state
from infracards.store.models import CardState, Review
from infracards.store.queries import browse_rows, build_queue, set_card_state
from infracards.store.reads import card_history, deck_summaries, find_card, load_card
from tests.conftest import SAMPLE_DECK, grade_by_id, write_release


def card(engine: Engine, card_id: str, deck_id: str = "sample"):  # type: ignore[no-untyped-def]
    with transaction(engine) as session:
        [record] = find_card(session, card_id=card_id, deck_id=deck_id)
        return record


def grade(
    engine: Engine, card_id: str, quality: int, *, today: date, now: datetime, drill: bool = False
):  # type: ignore[no-untyped-def]
    return grade_by_id(
        engine, card_id, quality, now=now, today=today, drill=drill, duration_ms=1200
    )


def dump(engine: Engine) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        return [
            *connection.execute(text("SELECT * FROM card ORDER BY id")).all(),
            *connection.execute(text("SELECT * FROM cardstate ORDER BY card")).all(),
            *connection.execute(text("SELECT * FROM review ORDER BY id")).all(),
        ]


def test_loading_the_same_file_twice_changes_nothing(engine: Engine, sample_deck: Path) -> None:
    before = dump(engine)
    report = add_deck(engine, sample_deck)
    assert not report.changed
    assert dump(engine) == before


def test_deck_update_keeps_progress_retires_and_restores(
    engine: Engine, sample_deck: Path, today: date, now: datetime
) -> None:
    grade(engine, "q02", 5, today=today, now=now)
    edited = (
        SAMPLE_DECK.replace("version: 1", "version: 2")
        .replace("ZeRO-1 切分了什么？", "ZeRO-1 切分了哪些状态？")
        .replace("  - id: q04\n", "  - id: q05\n")
    )
    write_release(sample_deck, edited)
    report = add_deck(engine, sample_deck)
    assert (report.version, report.added, report.updated, report.retired) == (
        2,
        ("q05",),
        ("q02",),
        ("q04",),
    )
    q02 = card(engine, "q02")
    assert q02.prompt == "ZeRO-1 切分了哪些状态？"
    assert q02.state == SM2State(easiness="2.6", repetitions=1, interval=1)
    assert card(engine, "q04").retired
    with transaction(engine) as session:
        assert [row.card_id for row in browse_rows(session, deck_id="sample")] == [
            "q01",
            "q02",
            "q03",
            "q05",
        ]
        assert len(card_history(session, pk=q02.pk)) == 1

    write_release(sample_deck, SAMPLE_DECK.replace("version: 1", "version: 3"))
    report = add_deck(engine, sample_deck)
    assert report.restored == ("q04",) and report.retired == ("q05",)
    assert not card(engine, "q04").retired


def test_grading_commits_state_and_log_and_undo_restores_both_exactly(
    engine: Engine, today: date, now: datetime
) -> None:
    before = dump(engine)
    graded = grade(engine, "q01", 4, today=today, now=now)
    after = card(engine, "q01")
    assert after.state == SM2State(repetitions=1, interval=1) and after.due == today + timedelta(
        days=1
    )
    with transaction(engine) as session:
        [entry] = card_history(session, pk=after.pk)
    assert (entry.grade, entry.drill, entry.duration_ms, entry.study_day) == (4, False, 1200, today)

    undo_grade(engine, graded=graded)
    assert dump(engine) == before


def test_a_grade_is_stored_exactly_as_the_orm_stores_the_same_review(
    engine: Engine, today: date, now: datetime
) -> None:
    """Grading writes plain SQL; the ORM must read its rows back, and write the same bytes."""
    local = now.astimezone(timezone(timedelta(hours=8)))  # the app's clock is local time
    graded = grade(engine, "q02", 3, today=today, now=local)
    with transaction(engine, write=True) as session:
        stored = session.get(Review, graded.review_id)
        assert stored is not None
        assert stored.reviewed_at == now and stored.reviewed_at.tzinfo is not None
        assert (stored.study_day, stored.due_after, stored.drill) == (
            today,
            today + timedelta(days=1),
            False,
        )
        twin = Review(**{**stored.model_dump(), "id": None})
        session.add(twin)
        session.flush()
        rows = session.connection().exec_driver_sql(
            "SELECT * FROM review WHERE id IN (?, ?) ORDER BY id", (stored.id, twin.id)
        )
        written, by_orm = (row[1:] for row in rows)
        session.rollback()
    assert written == by_orm
    assert card(engine, "q02").due == today + timedelta(days=1)


def test_a_card_graded_elsewhere_since_it_was_shown_continues_from_that_grade(
    engine: Engine, today: date, now: datetime
) -> None:
    shown = card(engine, "q01")  # on one app's screen...
    grade(engine, "q01", 5, today=today, now=now)  # ...while another app grades it first
    graded = grade_card(
        engine,
        card=shown,
        quality=5,
        drill=False,
        now=now,
        today=today,
        duration_ms=1,
        session_id=None,
    )
    assert graded.after == SM2State(easiness="2.70", repetitions=2, interval=6)
    assert card(engine, "q01").state == graded.after
    with engine.connect() as connection:
        log = connection.execute(
            text(
                "SELECT repetitions_before, easiness_centi_before, repetitions_after"
                " FROM review WHERE card = :pk ORDER BY id"
            ),
            {"pk": shown.pk},
        ).all()
    assert [tuple(row) for row in log] == [(0, 250, 1), (1, 260, 2)]


def test_the_grading_insert_binds_every_review_column() -> None:
    table = Review.__table__  # type: ignore[attr-defined]
    assert list(REVIEW_COLUMNS) == [column.name for column in table.columns if column.name != "id"]


def test_a_grade_on_a_store_busy_past_the_timeout_changes_nothing(
    engine: Engine, today: date, now: datetime
) -> None:
    event.listen(engine, "connect", lambda db, _: db.execute("PRAGMA busy_timeout=100"))
    engine.dispose()
    before = dump(engine)
    with closing(sqlite3.connect(database_path_of(engine))) as other:
        other.execute("BEGIN IMMEDIATE")  # another infracards process is writing
        with pytest.raises(StoreError, match=r"busy.*nothing was changed"):
            grade(engine, "q01", 5, today=today, now=now)
        other.rollback()
    assert dump(engine) == before
    grade(engine, "q01", 5, today=today, now=now)  # once the other writer is done, it works
    assert card(engine, "q01").state.repetitions == 1


def database_path_of(engine: Engine) -> str:
    database = engine.url.database
    assert database is not None
    return database


def test_a_state_written_beside_the_orm_is_read_fresh_in_the_same_session(
    engine: Engine, today: date
) -> None:
    pk = card(engine, "q02").pk
    stored = SM2State(easiness="2.36", repetitions=3, interval=9)
    with transaction(engine, write=True) as session:
        held = session.get(CardState, pk)  # the session's identity map now holds the row
        assert held is not None and held.repetitions == 0
        set_card_state(session, card_pk=pk, state=stored, due=today, last_review_at=None)
        assert load_card(session, pk=pk).state == stored
        assert held.repetitions == 3
        assert load_state(session_connection(session), pk=pk) == (stored, today)


def test_a_drill_is_logged_but_leaves_the_schedule_alone(
    engine: Engine, today: date, now: datetime
) -> None:
    grade(engine, "q01", 2, today=today, now=now)
    scheduled = card(engine, "q01")
    grade(engine, "q01", 5, today=today, now=now + timedelta(minutes=3), drill=True)
    assert card(engine, "q01") == scheduled
    with transaction(engine) as session:
        assert [e.drill for e in card_history(session, pk=scheduled.pk)] == [False, True]


def test_queue_has_due_then_new_within_the_limit(
    engine: Engine, today: date, now: datetime
) -> None:
    prefs = StudyPrefs(new_per_day=2)
    with transaction(engine) as session:
        queue = build_queue(session, deck_id="sample", today=today, prefs=prefs)
    ids = [load_card_id(engine, pk) for pk in queue.pending]
    assert ids == ["q01", "q02"]

    grade(engine, "q01", 5, today=today, now=now)
    grade(engine, "q02", 4, today=today, now=now)
    with transaction(engine) as session:
        # Both new cards of today are used up; nothing is due yet.
        assert build_queue(session, deck_id="sample", today=today, prefs=prefs).current is None
        tomorrow = build_queue(
            session, deck_id="sample", today=today + timedelta(days=1), prefs=prefs
        )
    assert [load_card_id(engine, pk) for pk in tomorrow.pending] == ["q01", "q02", "q03", "q04"]


def test_cards_failed_today_come_back_after_a_restart(
    engine: Engine, today: date, now: datetime
) -> None:
    grade(engine, "q01", 1, today=today, now=now)
    grade(engine, "q02", 3, today=today, now=now)
    grade(engine, "q02", 4, today=today, now=now, drill=True)
    with transaction(engine) as session:
        queue = build_queue(session, deck_id="sample", today=today, prefs=StudyPrefs(new_per_day=2))
    assert queue.pending == ()
    assert [load_card_id(engine, pk) for pk in queue.drills] == ["q01"]
    assert queue.current_is_drill


def test_locked_cards_can_be_left_out_of_study(engine: Engine, today: date) -> None:
    with transaction(engine) as session:
        queue = build_queue(
            session, deck_id="sample", today=today, prefs=StudyPrefs(study_locked=False)
        )
    assert "q03" not in [load_card_id(engine, pk) for pk in queue.pending]


def test_summaries_count_new_due_locked_and_reviews(
    engine: Engine, today: date, now: datetime
) -> None:
    grade(engine, "q01", 5, today=today, now=now)
    with transaction(engine) as session:
        [summary] = deck_summaries(session, today=today, prefs=StudyPrefs())
        [tomorrow] = deck_summaries(session, today=today + timedelta(days=1), prefs=StudyPrefs())
    assert (summary.total, summary.new, summary.due, summary.locked, summary.reviews_today) == (
        4,
        3,
        0,
        1,
        1,
    )
    assert (tomorrow.due, tomorrow.reviews_today) == (1, 0)


@pytest.mark.parametrize(
    "prefs",
    [
        StudyPrefs(),
        StudyPrefs(new_per_day=2),
        StudyPrefs(study_locked=False),
        StudyPrefs(new_per_day=0),
    ],
    ids=repr,
)
def test_new_today_is_what_the_review_will_show(
    engine: Engine, today: date, now: datetime, prefs: StudyPrefs
) -> None:
    """Home's "New today" and the review's new cards: the same limit, the same cards."""

    def counts() -> tuple[int, int]:
        with transaction(engine) as session:
            [summary] = deck_summaries(session, today=today, prefs=prefs)
            queue = build_queue(session, deck_id="sample", today=today, prefs=prefs)
            new = sum(load_card(session, pk=pk).due is None for pk in queue.pending)
        return summary.new_today, new

    first = counts()
    assert first[0] == first[1]
    grade(engine, "q01", 5, today=today, now=now)  # introduced today
    grade(engine, "q02", 2, today=today, now=now)  # introduced, then drilled
    grade(engine, "q02", 4, today=today, now=now, drill=True)
    after = counts()
    assert after[0] == after[1]
    expected_first = min(prefs.new_per_day, 4 if prefs.study_locked else 3)
    assert first[0] == expected_first
    assert after[0] == max(0, min(prefs.new_per_day - 2, expected_first - 2))


def test_each_decks_counts_of_today_are_its_own_with_one_deck_or_two_studied(
    engine: Engine, today: date, now: datetime, tmp_path: Path
) -> None:
    """One deck studied today is counted without the join to each review's deck; two are
    counted with it. Either way each deck's new-today and due-today are its own."""
    from tests.test_cli import ONE_CARD_EN

    second = tmp_path / "one.yaml"
    second.write_text(ONE_CARD_EN, encoding="utf-8")
    add_deck(engine, second)
    prefs = StudyPrefs(new_per_day=3, max_reviews_per_day=5)

    def today_counts() -> dict[str, tuple[int, int, int]]:
        with transaction(engine) as session:
            return {
                s.deck_id: (s.new_today, s.reviews_today, s.due_today)
                for s in deck_summaries(session, today=today, prefs=prefs)
            }

    before = today_counts()
    grade(engine, "q01", 5, today=today, now=now)  # sample: one new card introduced
    grade(engine, "q02", 2, today=today, now=now + timedelta(minutes=1))
    grade(engine, "q02", 4, today=today, now=now + timedelta(minutes=2), drill=True)
    one_deck = today_counts()
    assert one_deck["sample"] == (before["sample"][0] - 2, 3, before["sample"][2])
    assert one_deck["one"] == before["one"]
    grade_by_id(engine, "c2", 4, now=now + timedelta(minutes=3), today=today, deck_id="one")
    two_decks = today_counts()
    assert two_decks["sample"] == one_deck["sample"]
    assert two_decks["one"] == (before["one"][0] - 1, 1, before["one"][2])


def test_builtin_deck_loads_once_and_leaves_a_user_copy_alone(
    engine: Engine, tmp_path: Path
) -> None:
    assert ensure_builtin_deck(engine) is not None
    assert ensure_builtin_deck(engine) is None
    with transaction(engine) as session:
        assert {
            s.deck_id for s in deck_summaries(session, today=date(2025, 1, 6), prefs=StudyPrefs())
        } == {
            "module03",
            "sample",
        }

    shipped = builtin_deck_path()
    copy = tmp_path / "module03.yaml"
    copy.write_text(
        shipped.read_text(encoding="utf-8").replace("version: 1", "version: 99", 1),
        encoding="utf-8",
    )
    (tmp_path / "module03.keyslots.json").write_bytes(  # the release its slots are for
        shipped.with_name("module03.keyslots.json")
        .read_bytes()
        .replace(b'"version": 1', b'"version": 99')
    )
    add_deck(engine, copy)
    assert ensure_builtin_deck(engine) is None
    with transaction(engine) as session:
        versions = {
            s.deck_id: s.version
            for s in deck_summaries(session, today=date(2025, 1, 6), prefs=StudyPrefs())
        }
    assert versions["module03"] == 99


def load_card_id(engine: Engine, pk: int) -> str:
    with transaction(engine) as session:
        return load_card(session, pk=pk).card_id


def test_a_deck_larger_than_sqlites_variable_limit_syncs_and_updates(
    engine: Engine, tmp_path: Path
) -> None:
    """40,000 cards: more than one statement may bind (32,766), so no `IN (...)` of all ids."""

    def write(count: int, changed: int) -> Path:
        path = tmp_path / "big.yaml"
        body = "".join(
            f"  - id: c{n:05d}\n    prompt: 题 {n}{'（改）' if n == changed else ''}\n"
            f"    answer: 答 {n}\n"
            for n in range(count)
        )
        path.write_text(
            "format: infracards-deck/v1\nid: big\ntitle: Big\nversion: 1\nlanguage: zh-CN\n"
            f"cards:\n{body}",
            encoding="utf-8",
        )
        return path

    report = add_deck(engine, write(40_000, changed=-1))
    assert len(report.added) == 40_000
    with engine.connect() as connection:
        [(states,)] = connection.execute(
            text(
                "SELECT count(*) FROM cardstate JOIN card ON card.id = cardstate.card"
                " WHERE card.deck_id = 'big' AND cardstate.due IS NULL"
            )
        ).all()
    assert states == 40_000
    report = add_deck(engine, write(39_999, changed=7))
    assert (report.added, report.updated, report.retired) == ((), ("c00007",), ("c39999",))
    assert card(engine, "c00007", "big").prompt == "题 7（改）"


def test_new_stores_use_8k_pages_and_older_ones_keep_theirs(tmp_path: Path) -> None:
    """Cards (~2.5 KB) fit three to an 8 KB page; an existing 4 KB store opens unchanged."""
    import sqlite3

    from infracards.store.db import open_store

    open_store(tmp_path / "new").dispose()
    old = tmp_path / "old"
    old.mkdir()
    with sqlite3.connect(old / "infracards.db") as db:
        db.execute("PRAGMA page_size=4096")
        db.execute("PRAGMA journal_mode=WAL")
    engine = open_store(old)
    ensure_builtin_deck(engine)
    engine.dispose()
    sizes = {}
    for name in ("new", "old"):
        with sqlite3.connect(tmp_path / name / "infracards.db") as db:
            [(sizes[name],)] = db.execute("PRAGMA page_size").fetchall()
    assert sizes == {"new": 8192, "old": 4096}


def test_a_checkpoint_copies_the_log_into_the_database_file(
    engine: Engine, home: Path, tmp_path: Path, today: date, now: datetime
) -> None:
    import shutil
    import sqlite3
    from contextlib import closing

    from infracards.paths import database_path
    from infracards.store.db import checkpoint

    def reviews_in_the_file_alone() -> int:
        """The main file copied without its -wal: what a checkpoint has written so far."""
        copy = tmp_path / f"copy-{len(list(tmp_path.iterdir()))}.db"
        shutil.copyfile(database_path(home), copy)
        with closing(sqlite3.connect(copy)) as db:
            return db.execute("SELECT count(*) FROM review").fetchone()[0]

    with closing(sqlite3.connect(database_path(home))) as reader:
        reader.execute("SELECT 1 FROM deck").fetchall()  # keeps the log from closing
        grade(engine, "q01", 4, today=today, now=now)
        assert reviews_in_the_file_alone() == 0
        assert checkpoint(engine)
        assert reviews_in_the_file_alone() == 1


def test_a_checkpoint_that_cannot_run_is_only_skipped(tmp_path: Path) -> None:
    from sqlalchemy import create_engine

    from infracards.store.db import checkpoint

    broken = tmp_path / "not-a-database"
    broken.write_bytes(b"shopping list\n" * 400)
    assert checkpoint(create_engine(f"sqlite:///{broken}")) is False
