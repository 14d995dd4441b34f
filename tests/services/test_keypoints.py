"""Key-point self-check through a ReviewSession on a real store: the suggested grade, what a
review records (indexes, never text), and the most-missed points per card and per topic."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from infracards.paths import database_path
from infracards.services.answers import AnswerBook
from infracards.services.keypoints import fingerprint, key_point_stats, suggested_grade
from infracards.services.library import add_deck
from infracards.services.review import ReviewSession
from tests.conftest import SAMPLE_DECK, write_release

Q01_POINTS = ("等价于 Reduce-Scatter + All-Gather", "每卡发送 2(N-1)/N·S")


def started(engine: Engine, now: datetime) -> ReviewSession:
    session = ReviewSession(engine, deck_id="sample", clock=lambda: now, answers=AnswerBook())
    session.start()
    return session


def logged_checks(home: Path) -> list[tuple[str, int, int | None, int | None, str | None]]:
    with closing(sqlite3.connect(database_path(home))) as db:
        return db.execute(
            "SELECT c.card_id, r.grade, r.points, r.recalled, r.points_fp FROM review r"
            " JOIN card c ON c.id = r.card ORDER BY r.id"
        ).fetchall()


@pytest.mark.parametrize(
    ("points", "said", "recognised", "grade"),
    [
        (5, 5, False, 5),  # all
        (5, 4, False, 4),  # all but one
        (5, 3, False, 3),  # half or more
        (6, 3, False, 3),
        (5, 2, False, 2),  # some
        (5, 1, False, 2),
        (5, 0, True, 1),  # none, but recognised
        (5, 0, False, 0),  # none
        (3, 2, False, 4),
        (3, 1, False, 2),
        (2, 1, False, 4),  # all but one wins over "half"
        (1, 1, False, 5),
        (1, 0, True, 1),
        (7, 4, True, 3),  # recognised matters only when nothing was said
    ],
)
def test_the_suggested_grade_follows_the_readme_rule(
    points: int, said: int, recognised: bool, grade: int
) -> None:
    assert suggested_grade(points, said, recognised=recognised) == grade


def test_a_review_records_the_points_said_by_index_and_the_list_they_were_checked_against(
    engine: Engine, home: Path, now: datetime
) -> None:
    review = started(engine, now)
    check = review.reveal()
    assert check is not None and check.key_points == Q01_POINTS
    assert review.suggested_grade == 0  # nothing ticked yet
    assert review.toggle_point(1) and review.suggested_grade == 4  # 1 of 2: all but one
    assert not review.toggle_point(2)  # q01 has two points
    review.grade(4)
    [(card_id, grade, points, mask, fp)] = logged_checks(home)
    assert (card_id, grade, points, mask) == ("q01", 4, 2, 0b10)
    assert fp == fingerprint("sample", "q01", Q01_POINTS) and len(fp) == 16


def test_an_ignored_checklist_is_not_recorded_but_a_confirmed_empty_one_is(
    engine: Engine, home: Path, now: datetime
) -> None:
    review = started(engine, now)
    review.reveal()
    review.grade(5)  # graded by feel, checklist untouched: no evidence about the points
    assert review.reveal() is None  # q02 has no key points
    review.grade(5)
    # q03 is sealed and its deck locked: studied question-only, no checklist
    assert review.reveal() is None and review.suggested_grade is None
    review.grade(4)
    review.reveal()
    review.grade(4)  # q04: no key points either
    assert [(c, p) for c, _, p, _, _ in logged_checks(home)] == [
        ("q01", None),
        ("q02", None),
        ("q03", None),
        ("q04", None),
    ]


def test_confirming_the_suggestion_records_an_empty_check(
    engine: Engine, home: Path, now: datetime
) -> None:
    review = started(engine, now)
    review.reveal()
    review.grade(review.suggested_grade or 0)  # "I said none of it": 0, confirmed
    assert logged_checks(home)[0][:4] == ("q01", 0, 2, 0)


def test_recognised_turns_a_0_into_a_1_and_undo_takes_the_check_with_the_grade(
    engine: Engine, home: Path, now: datetime
) -> None:
    review = started(engine, now)
    review.reveal()
    assert review.toggle_recognised() and review.suggested_grade == 1
    review.grade(1)
    assert logged_checks(home)[0][:4] == ("q01", 1, 2, 0)
    review.undo()
    assert logged_checks(home) == []
    assert review.check is None  # the card is back on its question side


def grade_checked(engine: Engine, now: datetime, said: list[set[int]]) -> None:
    """Review q01 once per entry on consecutive days, ticking the given points."""
    for day, points in enumerate(said):
        moment = now + timedelta(days=day * 10)
        review = ReviewSession(engine, deck_id="sample", clock=lambda m=moment: m)
        review.start()
        while review.card is not None and review.card.card_id != "q01":
            review.grade(5)
        if review.card is None:
            continue
        review.reveal()
        for index in points:
            review.toggle_point(index)
        review.grade(review.suggested_grade or 0)
        review.end()


def test_the_most_missed_points_per_card_and_per_topic(engine: Engine, now: datetime) -> None:
    grade_checked(engine, now, [set(), {0}, {0}, {0, 1}])
    stats = key_point_stats(engine, AnswerBook(), deck_id="sample")
    assert stats.cards_checked == 1 and stats.older_checks == 0
    [second, first] = stats.for_card("sample", "q01")
    assert (second.index, second.checks, second.misses) == (1, 4, 3)
    assert (first.index, first.checks, first.misses) == (0, 4, 1)
    assert second.text == Q01_POINTS[1]
    [topic] = stats.topics
    assert (topic.topic, topic.checks, topic.misses) == ("communication", 8, 4)
    assert topic.worst[0] == second


def test_a_deck_update_that_changes_the_key_points_starts_their_count_again(
    engine: Engine, now: datetime, sample_deck: Path
) -> None:
    grade_checked(engine, now, [set(), {1}])
    changed = SAMPLE_DECK.replace(
        '"每卡发送 2(N-1)/N·S"]', '"每卡发送 2(N-1)/N·S", "Ring 的带宽最优"]'
    ).replace("version: 1", "version: 2")
    write_release(sample_deck, changed)
    add_deck(engine, sample_deck)
    stats = key_point_stats(engine, AnswerBook(), deck_id="sample")
    # Index 1 of the old list is not index 1 of the new one: the old checks stay in the log
    # but are not counted per point.
    assert stats.points == () and stats.older_checks == 2
    grade_checked(engine, now + timedelta(days=40), [{2}])
    stats = key_point_stats(engine, AnswerBook(), deck_id="sample")
    assert [(p.index, p.checks, p.misses, p.text) for p in stats.points] == [
        (0, 1, 1, "等价于 Reduce-Scatter + All-Gather"),
        (1, 1, 1, "每卡发送 2(N-1)/N·S"),
    ]
    assert stats.older_checks == 2
