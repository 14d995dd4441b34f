"""Today's study queue as an immutable value, so undo is just "keep the previous queue"."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace

from infracards.scheduler.sm2 import is_drill_grade


@dataclass(frozen=True, slots=True)
class StudyQueue:
    """Cards left in a session: first-time reviews of the day, then same-day drills.

    Card references are opaque integers (database keys); the queue never looks them up.
    A long queue (tens of thousands of due cards) is read from the store a page at a time:
    ``unloaded`` counts the cards still to come after ``pending``, and ``needs_loading`` says
    when the store must append the next page (``with_page``) before ``current`` can answer.
    """

    pending: tuple[int, ...] = ()
    """Cards whose review today still counts for SM-2, in study order (those loaded so far)."""
    drills: tuple[int, ...] = ()
    """Cards graded below 4 today, repeated until graded 4 or more (SM-2 step 7)."""
    unloaded: int = 0
    """Cards that come after ``pending``, before any drill, not read from the store yet."""
    bookmark: Hashable = None
    """Where the store resumes reading (its own value; the queue only carries it)."""

    @property
    def needs_loading(self) -> bool:
        """True when every loaded card is done but the store holds more for ``pending``."""
        return not self.pending and self.unloaded > 0

    @property
    def current(self) -> int | None:
        """The card to show now, or None when the session is finished."""
        if self.pending:
            return self.pending[0]
        if self.unloaded:
            raise LookupError("the next cards of the queue are not loaded yet")
        return self.drills[0] if self.drills else None

    @property
    def current_is_drill(self) -> bool:
        """A drill answer is logged but changes neither EF, repetitions nor interval."""
        return not self.pending and not self.unloaded and bool(self.drills)

    @property
    def remaining(self) -> int:
        """Showings still ahead, counting each card once."""
        return len(self.pending) + self.unloaded + len(self.drills)

    def with_page(self, cards: tuple[int, ...], *, unloaded: int, bookmark: Hashable) -> StudyQueue:
        """The queue once the store has read ``cards``, the next of ``pending``'s cards."""
        return replace(self, pending=(*self.pending, *cards), unloaded=unloaded, bookmark=bookmark)

    def without_current(self) -> StudyQueue:
        """The queue once the current card is taken out of the session (suspended, buried)."""
        if self.current is None:
            raise ValueError("the session has no card left")
        if self.pending:
            return replace(self, pending=self.pending[1:])
        return replace(self, drills=self.drills[1:])

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
