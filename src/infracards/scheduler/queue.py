"""Today's study queue as an immutable value, so undo is just "keep the previous queue"."""

from __future__ import annotations

from dataclasses import dataclass, replace

from infracards.scheduler.sm2 import is_drill_grade


@dataclass(frozen=True, slots=True)
class StudyQueue:
    """Cards left in a session: first-time reviews of the day, then same-day drills.

    Card references are opaque integers (database keys); the queue never looks them up.
    """

    pending: tuple[int, ...] = ()
    """Cards whose review today still counts for SM-2, in study order."""
    drills: tuple[int, ...] = ()
    """Cards graded below 4 today, repeated until graded 4 or more (SM-2 step 7)."""

    @property
    def current(self) -> int | None:
        """The card to show now, or None when the session is finished."""
        if self.pending:
            return self.pending[0]
        return self.drills[0] if self.drills else None

    @property
    def current_is_drill(self) -> bool:
        """A drill answer is logged but changes neither EF, repetitions nor interval."""
        return not self.pending and bool(self.drills)

    @property
    def remaining(self) -> int:
        """Showings still ahead, counting each card once."""
        return len(self.pending) + len(self.drills)

    def after_grade(self, quality: int) -> StudyQueue:
        """The queue once the current card got ``quality``."""
        card = self.current
        if card is None:
            raise ValueError("the session has no card left to grade")
        if self.pending:
            pending, drills = self.pending[1:], self.drills
        else:
            pending, drills = (), self.drills[1:]
        if is_drill_grade(quality):
            drills = (*drills, card)
        return replace(self, pending=pending, drills=drills)
