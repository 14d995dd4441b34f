"""Past mock interviews as reports: the end-of-interview report, `mock --report`, and the
score over time in Statistics and `infracards stats` (plain SQL: `stats` needs no SQLAlchemy)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from infracards.records import RecalledPoints
from infracards.store.file import reading
from infracards.store.practice_reads import StoredMock, mock_history

if TYPE_CHECKING:
    from infracards.store.file import Store


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """One question of a finished (or stored) mock interview."""

    card_id: str
    topic: str
    prompt: str
    recalled: RecalledPoints | None
    """None: a sealed card asked question-only (no checklist, not scored)."""
    seconds_used: int
    timed_out: bool
    counted: bool
    """The learner counted it as a normal graded review."""
    notes: str

    @property
    def missed(self) -> bool:
        return self.recalled is not None and self.recalled.covered < self.recalled.points


@dataclass(frozen=True, slots=True)
class MockReport:
    """The end-of-interview report, and each past interview's entry in the history."""

    mock_id: int
    deck_id: str
    started_at: datetime
    study_day: date
    seconds_per_question: int
    topic: str | None
    questions: tuple[QuestionResult, ...]

    @property
    def points(self) -> int:
        return sum(q.recalled.points for q in self.questions if q.recalled is not None)

    @property
    def covered(self) -> int:
        return sum(q.recalled.covered for q in self.questions if q.recalled is not None)

    @property
    def score(self) -> float | None:
        """Key points covered ÷ key points asked, over the questions with a checklist."""
        return self.covered / self.points if self.points else None

    @property
    def seconds_used(self) -> int:
        return sum(q.seconds_used for q in self.questions)

    @property
    def weakest_topics(self) -> tuple[tuple[str, float], ...]:
        """Topics with points missed, by coverage, lowest first."""
        totals: dict[str, list[int]] = {}
        for question in self.questions:
            if question.recalled is not None:
                tally = totals.setdefault(question.topic, [0, 0])
                tally[0] += question.recalled.covered
                tally[1] += question.recalled.points
        shares = [(topic, c / p) for topic, (c, p) in totals.items() if p and c < p]
        return tuple(sorted(shares, key=lambda item: (item[1], item[0])))

    @property
    def missed(self) -> tuple[str, ...]:
        """Cards with a key point missed: the ones to add to today's review."""
        return tuple(dict.fromkeys(q.card_id for q in self.questions if q.missed))


def report_of(stored: StoredMock) -> MockReport:
    return MockReport(
        mock_id=stored.mock_id,
        deck_id=stored.deck_id,
        started_at=stored.started_at,
        study_day=stored.study_day,
        seconds_per_question=stored.seconds_per_question,
        topic=stored.topic,
        questions=tuple(
            QuestionResult(
                card_id=q.card_id,
                topic=q.topic,
                prompt=q.prompt,
                recalled=q.recalled,
                seconds_used=q.seconds_used,
                timed_out=q.timed_out,
                counted=q.counted_at is not None,
                notes=q.notes,
            )
            for q in stored.questions
        ),
    )


def mock_reports(store: Store, *, deck_id: str | None = None) -> list[MockReport]:
    """Every past mock interview, oldest first (`mock --report`, Statistics' score over time)."""
    with reading(store) as db:
        return [report_of(stored) for stored in mock_history(db, deck_id=deck_id)]
