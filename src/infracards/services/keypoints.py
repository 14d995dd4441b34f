"""Key-point self-check: after reveal the 要点 come first, as a checklist the learner ticks;
their coverage suggests a grade, and the points said are recorded by index.

What is stored is the number of points, a bit mask of those said and a fingerprint of the
list, never a point's text: sealed key points must not reach the database, an export or a log.
The fingerprint (SHA-256 of deck id, card id and the points, 16 hex digits) lets statistics tell
a deck update that changed a card's points from the list the learner checked: checks made
against another list are kept in the log but not counted per point, because index 2 of the old
list need not be index 2 of the new one.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from infracards.errors import InfracardsError
from infracards.records import CardRecord, RecalledPoints
from infracards.services.answers import AnswerBook
from infracards.store.file import reading
from infracards.store.practice_reads import CheckCounts, check_counts
from infracards.store.reads import load_card

if TYPE_CHECKING:
    from infracards.store.file import Store

CHECKABLE_POINTS = 16
"""Points beyond this many are shown but not ticked (decks have 3–7)."""
POINT_KEYS = "abcdefghi"
"""Keys that tick points 1–9 (none of them a grade 0–5 or another key of the review)."""
RECOGNISED_KEY = "r"


def fingerprint(deck_id: str, card_id: str, key_points: tuple[str, ...]) -> str:
    """Which list of key points a check was made against (not reversible to the text)."""
    digest = hashlib.sha256(b"infracards key points v1\0")
    for part in (deck_id, card_id, *key_points[:CHECKABLE_POINTS]):
        digest.update(part.encode("utf-8") + b"\0")
    return digest.hexdigest()[:16]


def suggested_grade(points: int, covered: int, *, recognised: bool) -> int:
    """The SM-2 grade the coverage suggests (the README states the rule):
    all → 5, all but one → 4, half or more → 3, some → 2, none but recognised → 1, none → 0."""
    if points < 1 or not 0 <= covered <= points:
        raise ValueError(f"{covered} of {points} points")
    if covered == points:
        return 5
    if covered and covered == points - 1:
        return 4
    if 2 * covered >= points:
        return 3
    if covered:
        return 2
    return 1 if recognised else 0


class KeyPointCheck:
    """The checklist of one card while the learner ticks it (the review's and the mock's)."""

    def __init__(self, card: CardRecord, key_points: tuple[str, ...]) -> None:
        self.key_points = key_points
        self.points = min(len(key_points), CHECKABLE_POINTS)
        self.fingerprint = fingerprint(card.deck_id, card.card_id, key_points)
        self.ticked: set[int] = set()
        self.recognised = False
        self.touched = False
        """The learner used the checklist (a tick or "recognised"): then it is recorded."""

    def toggle(self, index: int) -> bool:
        """Tick or untick point ``index`` (0-based); False if there is no such point."""
        if not 0 <= index < self.points:
            return False
        self.ticked ^= {index}
        self.touched = True
        return True

    def toggle_recognised(self) -> None:
        """ "None said, but I recognised the answer": the difference between 1 and 0."""
        self.recognised = not self.recognised
        self.touched = True

    @property
    def suggested(self) -> int:
        return suggested_grade(self.points, len(self.ticked), recognised=self.recognised)

    def recorded(self) -> RecalledPoints:
        return RecalledPoints(self.points, frozenset(self.ticked), self.fingerprint)

    def record_for(self, grade: int) -> RecalledPoints | None:
        """What a review graded ``grade`` records: the ticks, if the learner used the checklist
        or confirmed its suggestion; None if they ignored it and graded by feel (an empty
        checklist is then not evidence that nothing was said)."""
        return self.recorded() if self.touched or grade == self.suggested else None


def open_check(answers: AnswerBook, card: CardRecord) -> KeyPointCheck | None:
    """The checklist for a card, or None: a sealed card of a locked deck is studied
    question-only, and a card without key points has nothing to check."""
    try:
        answer = answers.answer_for(card)
    except InfracardsError:
        return None
    if answer is None or not answer.key_points:
        return None
    return KeyPointCheck(card, answer.key_points)


# --- statistics: the key points missed most often ---------------------------------------------


@dataclass(frozen=True, slots=True)
class MissedPoint:
    """One key point of one card: how often it was checked and missed."""

    deck_id: str
    card_id: str
    topic: str
    index: int
    points: int
    checks: int
    misses: int
    text: str | None
    """The point itself, for free cards and unlocked decks (held in memory, never stored)."""

    @property
    def rate(self) -> float:
        return self.misses / self.checks if self.checks else 0.0


@dataclass(frozen=True, slots=True)
class TopicMisses:
    topic: str
    checks: int
    """Points checked in this topic (a check of 5 points counts 5)."""
    misses: int
    worst: tuple[MissedPoint, ...]

    @property
    def rate(self) -> float:
        return self.misses / self.checks if self.checks else 0.0


@dataclass(frozen=True, slots=True)
class KeyPointStats:
    points: tuple[MissedPoint, ...]
    """Every point checked at least once and missed at least once, most missed first."""
    topics: tuple[TopicMisses, ...]
    """Topics by share of points missed, highest first."""
    cards_checked: int
    older_checks: int
    """Checks made against a card's earlier key points (a deck update changed them)."""

    def for_card(self, deck_id: str, card_id: str) -> tuple[MissedPoint, ...]:
        return tuple(p for p in self.points if (p.deck_id, p.card_id) == (deck_id, card_id))


TOPIC_WORST = 3


def key_point_stats(
    store: Store, answers: AnswerBook, *, deck_id: str | None = None
) -> KeyPointStats:
    """Misses per key point from every recorded check (reviews, practice and mock questions)."""
    with reading(store) as db:
        counts = check_counts(db, deck_id=deck_id)
        cards = {pk: load_card(db, pk=pk) for pk in {row.card_pk for row in counts}}
    return summarise_checks(counts, cards, answers)


def summarise_checks(
    counts: list[CheckCounts], cards: dict[int, CardRecord], answers: AnswerBook
) -> KeyPointStats:
    """Per point of each card's current list: checks and misses (pure, for tests too)."""
    by_card: dict[int, list[CheckCounts]] = defaultdict(list)
    for row in counts:
        by_card[row.card_pk].append(row)
    points: list[MissedPoint] = []
    topic_checks: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    older = 0
    for pk, rows in by_card.items():
        card = cards[pk]
        check = open_check(answers, card)
        if check is not None:
            current, texts = check.fingerprint, check.key_points
        else:  # sealed and locked now: the list most recently checked, without its text
            current, texts = max(rows, key=lambda row: row.last_checked).fingerprint, ()
        per_index: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        size = 0
        for row in rows:
            if row.fingerprint != current:
                older += row.checks
                continue
            size = row.points
            for index in range(row.points):
                per_index[index][0] += row.checks
                per_index[index][1] += 0 if row.mask >> index & 1 else row.checks
        for index, (checks, misses) in sorted(per_index.items()):
            topic_checks[card.topic][0] += checks
            topic_checks[card.topic][1] += misses
            if misses:
                points.append(
                    MissedPoint(
                        deck_id=card.deck_id,
                        card_id=card.card_id,
                        topic=card.topic,
                        index=index,
                        points=size,
                        checks=checks,
                        misses=misses,
                        text=texts[index] if index < len(texts) else None,
                    )
                )
    points.sort(key=lambda p: (-p.misses, -p.rate, p.deck_id, p.card_id, p.index))
    topics = [
        TopicMisses(
            topic=topic,
            checks=checks,
            misses=misses,
            worst=tuple(p for p in points if p.topic == topic)[:TOPIC_WORST],
        )
        for topic, (checks, misses) in topic_checks.items()
    ]
    topics.sort(key=lambda t: (-t.rate, -t.misses, t.topic))
    return KeyPointStats(tuple(points), tuple(topics), len(by_card), older)
