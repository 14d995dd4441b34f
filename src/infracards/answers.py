"""Answers as the learner sees them: free ones from the deck, sealed ones opened in memory."""

from __future__ import annotations

from dataclasses import dataclass

from infracards.store.queries import CardRecord


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer ready to show: Markdown plus the key points for self-grading."""

    markdown: str
    key_points: tuple[str, ...]


class AnswerBook:
    """Opens answers; sealed ones need the deck's release key, held only in memory."""

    def __init__(self) -> None:
        self._release_keys: dict[str, bytes] = {}

    def is_unlocked(self, deck_id: str) -> bool:
        return deck_id in self._release_keys

    def answer_for(self, card: CardRecord) -> Answer | None:
        """The card's answer, or None while it is sealed and the deck is locked."""
        if card.answer is not None:
            return Answer(markdown=card.answer, key_points=card.key_points)
        return None
