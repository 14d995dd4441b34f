"""Answers as the learner sees them: free ones from the deck, sealed ones opened in memory.

Decrypted answers are never written anywhere: not the database, not a cache, not a log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infracards.card_text import MAX_KEY_POINTS, text_problem
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
        return read_payload(plaintext, card_id=card.card_id)


def read_payload(plaintext: bytes, *, card_id: str) -> Answer:
    """What an opened sealed answer holds, checked as strictly as a free card's text: a JSON
    object with exactly ``answer`` (text) and ``key_points`` (at most 64 texts).

    A blob that decrypts is only as good as what was sealed: ``{"answer": 123}`` sealed with the
    release's key must be "deck corrupted", not a crash when it is shown.
    """

    def corrupted(why: str) -> DeckCorruptedError:
        return DeckCorruptedError(
            f"deck corrupted at {card_id}: its sealed answer {why}; reinstall the deck"
        )

    from infracards.seal.encoding import parse_json  # base64 and all: for sealed text only

    try:
        payload = parse_json(plaintext)
    except ValueError as error:
        raise corrupted(f"is not valid JSON ({error})") from None
    if not isinstance(payload, dict) or set(payload) != {"answer", "key_points"}:
        raise corrupted("must be an object with exactly answer and key_points")
    problem = text_problem(payload["answer"])
    if problem is not None:
        raise corrupted(f"has an answer that is not valid: {problem}")
    points = payload["key_points"]
    if not isinstance(points, list) or len(points) > MAX_KEY_POINTS:
        raise corrupted(f"must have key_points as a list of at most {MAX_KEY_POINTS} texts")
    for index, point in enumerate(points):
        problem = text_problem(point)
        if problem is not None:
            raise corrupted(f"has key_points[{index}] not valid: {problem}")
    return Answer(markdown=payload["answer"], key_points=tuple(points))
