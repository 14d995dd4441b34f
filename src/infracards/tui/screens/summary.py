"""End of a session: what was answered, how, and when the cards come back."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from infracards.scheduler import GRADE_MEANINGS
from infracards.services.study import Graded
from infracards.tui.text import literal


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """Counts for the end-of-session screen."""

    cards: int
    answers: int
    drills: int
    grades: dict[int, int]
    seconds: float
    next_due: dict[str, date]
    """Card id → next due date, for every card whose schedule this session changed."""
    left: int

    @classmethod
    def from_grades(
        cls, grades: Sequence[Graded], *, card_ids: Mapping[int, str], seconds: float, left: int
    ) -> SessionSummary:
        next_due = {card_ids[g.card_pk]: g.due for g in grades if not g.drill and g.due is not None}
        return cls(
            cards=len({g.card_pk for g in grades}),
            answers=len(grades),
            drills=sum(g.drill for g in grades),
            grades=dict(Counter(g.quality for g in grades)),
            seconds=seconds,
            next_due=next_due,
            left=left,
        )

    def render_text(self) -> str:
        minutes, seconds = divmod(round(self.seconds), 60)
        lines = [
            f"Cards reviewed   {self.cards}",
            f"Answers given    {self.answers} ({self.drills} same-day drills)",
            f"Time             {minutes} min {seconds:02d} s",
            "",
            "Grades",
        ]
        for quality in range(5, -1, -1):
            count = self.grades.get(quality, 0)
            lines.append(f"  {quality} {GRADE_MEANINGS[quality]:<36} {'█' * count} {count}")
        if self.next_due:
            first = min(self.next_due.values())
            soonest = sorted(card for card, due in self.next_due.items() if due == first)
            lines += ["", f"Next due         {first.isoformat()}: {', '.join(soonest)}"]
        if self.left:
            lines += ["", f"Left for later   {self.left} cards (run the review again to continue)"]
        return "\n".join(lines)


class SummaryScreen(Screen[None]):
    """Shown when a session ends or is left early."""

    BINDINGS = [
        Binding("enter,escape,q", "close", "Back to decks", id="close"),
        Binding("s", "stats", "Statistics", id="stats"),
    ]

    def __init__(self, summary: SessionSummary) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            "Session complete" if not self.summary.left else "Session paused", id="summary-title"
        )
        yield Static(literal(self.summary.render_text()), id="summary-body")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss()

    async def action_stats(self) -> None:
        """Close the summary and open the statistics it is part of."""
        self.dismiss()
        await self.app.run_action("app.stats")
