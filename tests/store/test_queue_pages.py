"""Today's queue read a page at a time shows exactly what one query over every card would.

The page size is cut to 4 so a 30-card deck spans many pages; the expected order comes from an
independent query joining ``card`` to ``cardstate`` (due day, then deck position; then new cards
in deck order within the daily limit), the way ``build_queue`` read it before paging.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

import infracards.store.queries as queries
from infracards.records import StudyPrefs
from infracards.scheduler import SM2State, StudyQueue
from infracards.services.library import add_deck
from infracards.services.study import Graded, grade_card, undo_grade
from infracards.store.db import transaction
from infracards.store.queries import build_queue, load_queue_page, set_card_state
from infracards.store.reads import find_card, load_card
from tests.conftest import SAMPLE_DECK, write_release

CARDS = 30
SEALED = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIj"


@pytest.fixture(autouse=True)
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queries, "QUEUE_PAGE", 4)


@pytest.fixture
def deck(engine: Engine, tmp_path: Path, today: date) -> str:
    """30 cards: every fifth sealed, the last retired, positions shuffled; due days with many
    ties, some new."""
    header = SAMPLE_DECK.split("cards:\n")[0].replace("id: sample", "id: pages")
    entries = [
        f"  - id: p{n:02d}\n    prompt: 第 {n} 题\n"
        + (f"    sealed: {SEALED}\n" if n % 5 == 0 else f"    answer: 答案 {n}\n")
        for n in range(CARDS)
    ]
    cards = "".join(entries)
    path = write_release(tmp_path / "pages.yaml", header + "cards:\n" + cards)
    add_deck(engine, path)
    with transaction(engine, write=True) as session:
        for n in range(CARDS):
            if n % 4 == 3:
                continue  # new
            [card] = find_card(session, card_id=f"p{n:02d}", deck_id="pages")
            due = today - timedelta(days=(n * 7) % 5) + timedelta(days=int(n % 9 == 0) * 3)
            set_card_state(
                session,
                card_pk=card.pk,
                state=SM2State(repetitions=1, interval=1),
                due=due,
                last_review_at=None,
            )
    # Reordered, so deck positions no longer follow the cards' keys; the last card is retired.
    reordered = entries[-3::-2] + entries[-2::-2]
    add_deck(engine, write_release(path, header + "cards:\n" + "".join(reordered)))
    return "pages"


def expected(engine: Engine, today: date, prefs: StudyPrefs) -> list[int]:
    unlocked = "" if prefs.study_locked else " AND c.answer IS NOT NULL"
    base = (
        "SELECT c.id FROM card c JOIN cardstate s ON s.card = c.id"
        f" WHERE c.deck_id = 'pages' AND NOT c.retired{unlocked}"
    )
    with engine.connect() as connection:
        due = connection.execute(
            text(f"{base} AND s.due <= :today ORDER BY s.due, c.position"),
            {"today": today.isoformat()},
        ).scalars()
        new = connection.execute(
            text(f"{base} AND s.due IS NULL ORDER BY c.position LIMIT :n"),
            {"n": prefs.new_per_day},
        ).scalars()
        return [*due, *new]


def next_queue(engine: Engine, queue: StudyQueue) -> StudyQueue:
    if queue.needs_loading:
        with transaction(engine) as session:
            queue = load_queue_page(session, queue=queue)
    return queue


@pytest.mark.parametrize("study_locked", [True, False])
def test_pages_follow_the_order_of_one_query_and_count_every_card(
    engine: Engine, deck: str, today: date, study_locked: bool
) -> None:
    prefs = StudyPrefs(new_per_day=3, study_locked=study_locked)
    want = expected(engine, today, prefs)
    assert len(want) > 3 * queries.QUEUE_PAGE
    with transaction(engine) as session:
        queue = build_queue(session, deck_id=deck, today=today, prefs=prefs)
    assert len(queue.pending) == queries.QUEUE_PAGE and queue.remaining == len(want)
    shown = []
    while True:
        queue = next_queue(engine, queue)
        if queue.current is None:
            break
        assert queue.remaining == len(want) - len(shown)
        shown.append(queue.current)
        queue = queue.after_grade(5)
    assert shown == want


def test_grading_across_pages_with_drills_and_undo(
    engine: Engine, deck: str, today: date, now: datetime
) -> None:
    prefs = StudyPrefs(new_per_day=2)
    want = expected(engine, today, prefs)
    with transaction(engine) as session:
        queue = build_queue(session, deck_id=deck, today=today, prefs=prefs)
    history: list[tuple[StudyQueue, Graded]] = []
    shown: list[tuple[int, bool, int]] = []
    undone = False
    step = 0
    while True:
        queue = next_queue(engine, queue)
        card_pk = queue.current
        if card_pk is None:
            break
        quality = 3 if step % 7 == 2 else 5
        if queue.current_is_drill:
            quality = 4
        with transaction(engine) as session:
            card = load_card(session, pk=card_pk)
        graded = grade_card(
            engine,
            card=card,
            quality=quality,
            drill=queue.current_is_drill,
            now=now + timedelta(seconds=step),
            today=today,
            duration_ms=1,
            session_id=None,
        )
        shown.append((card_pk, queue.current_is_drill, quality))
        history.append((queue, graded))
        queue = queue.after_grade(quality)
        step += 1
        if not undone and step == queries.QUEUE_PAGE + 1:  # just past the first page boundary
            undone = True
            for _ in range(2):
                queue, graded = history.pop()
                undo_grade(engine, graded=graded)
                shown.pop()
    assert undone
    assert [pk for pk, drill, _ in shown if not drill] == want
    failed = [pk for pk, drill, quality in shown if not drill and quality < 4]
    assert failed and [pk for pk, drill, _ in shown if drill] == failed


def test_a_card_graded_on_a_clock_moved_back_is_not_shown_twice(
    engine: Engine, deck: str, today: date, now: datetime
) -> None:
    prefs = StudyPrefs(new_per_day=0)
    with transaction(engine) as session:
        queue = build_queue(session, deck_id=deck, today=today, prefs=prefs)
    first = queue.current
    assert first is not None
    with transaction(engine) as session:
        card = load_card(session, pk=first)
    # Graded 5 as a new card would be, "yesterday": due again today, after the first page.
    with transaction(engine, write=True) as session:
        set_card_state(session, card_pk=first, state=SM2State(), due=None, last_review_at=None)
    grade_card(
        engine,
        card=card,
        quality=5,
        drill=False,
        now=now - timedelta(days=1),
        today=today - timedelta(days=1),
        duration_ms=1,
        session_id=None,
    )
    with transaction(engine) as session:
        assert load_card(session, pk=first).due == today
    shown = []
    queue = queue.after_grade(5)
    while (queue := next_queue(engine, queue)).current is not None:
        shown.append(queue.current)
        queue = queue.after_grade(5)
    assert first not in shown and len(shown) == len(set(shown))


def test_a_short_queue_is_read_whole(engine: Engine, today: date) -> None:
    """The sample deck's four cards fit one page: nothing is left to load, as before paging."""
    with transaction(engine) as session:
        queue = build_queue(session, deck_id="sample", today=today, prefs=StudyPrefs())
    assert len(queue.pending) == 4 and queue.unloaded == 0 and queue.bookmark is None
