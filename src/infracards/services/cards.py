"""One card by its id, with its answer opened when a stored key allows (for `infracards show`)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.records import Answer, CardRecord
from infracards.services.answers import AnswerBook
from infracards.store.db import transaction
from infracards.store.queries import card_id_spans, find_card
from infracards.terminal_text import echo, quoted


def lookup_card(engine: Engine, *, card_id: str, deck_id: str | None = None) -> CardRecord:
    """The card with this id, or an error that names the ids each deck has."""
    with transaction(engine) as session:
        cards = find_card(session, card_id=card_id, deck_id=deck_id)
        spans = card_id_spans(session, deck_id=deck_id) if not cards else []
    if not cards:
        where = f" in deck {quoted(deck_id)}" if deck_id else ""
        hint = "; ".join(
            f"{echo(deck)} has {echo(first)} … {echo(last)}" for deck, first, last in spans
        )
        raise InfracardsError(
            f"no card {quoted(card_id)}{where}; {hint or 'see `infracards deck list`'}"
        )
    if len(cards) > 1:
        decks = ", ".join(echo(card.deck_id) for card in cards)
        raise InfracardsError(
            f"card {quoted(card_id)} is in several decks ({decks}); pick one with --deck"
        )
    return cards[0]


def open_answer(engine: Engine, home: Path, card: CardRecord) -> tuple[Answer | None, list[str]]:
    """The card's answer (None while sealed and locked) and notices about stored keys."""
    if not card.locked:
        return AnswerBook().answer_for(card), []
    from infracards.services.unlock import open_saved_keys

    opened, notices = open_saved_keys(engine, home, only=card.deck_id)
    return AnswerBook(opened).answer_for(card), notices
