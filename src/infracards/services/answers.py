"""Answers as the learner sees them: free ones from the deck, sealed ones opened in memory.

Decrypted answers are never written anywhere: not the database, not a cache, not a log.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from infracards.errors import DeckCorruptedError
from infracards.records import Answer, CardRecord

if TYPE_CHECKING:
    from infracards.services.unlock import OpenedRelease


class AnswerBook:
    """Opens answers; sealed ones need their deck's release key, held only in memory."""

    def __init__(self, opened: list[OpenedRelease] | None = None) -> None:
        self._releases: dict[str, OpenedRelease] = {}
        for release in opened or []:
            self.add(release)

    def add(self, release: OpenedRelease) -> None:
        self._releases[release.deck_id] = release

    def is_unlocked(self, deck_id: str) -> bool:
        return deck_id in self._releases

    def answer_for(self, card: CardRecord) -> Answer | None:
        """The card's answer, or None while it is sealed and its deck is locked."""
        if card.answer is not None:
            return Answer(markdown=card.answer, key_points=card.key_points)
        release = self._releases.get(card.deck_id)
        if release is None or card.sealed is None:
            return None
        # Only a sealed answer of an unlocked deck needs `cryptography` (~10 ms to import).
        from infracards.seal import open_answer
        from infracards.seal.encoding import decode_b64

        plaintext = open_answer(
            release.release_key,
            card.deck_id,
            release.release,
            card.card_id,
            card.prompt,
            decode_b64(card.sealed, what=f"{card.card_id}.sealed"),
        )
        try:
            payload = json.loads(plaintext)
            return Answer(markdown=payload["answer"], key_points=tuple(payload["key_points"]))
        except (ValueError, KeyError, TypeError):
            raise DeckCorruptedError(
                f"deck corrupted at {card.card_id}: unreadable answer"
            ) from None
