"""One card by its id, with its answer opened when a stored key allows (for `infracards show`)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.records import Answer, CardRecord, ReviewEntry
from infracards.services.answers import AnswerBook
from infracards.store.db import transaction
from infracards.store.queries import (
    bury,
    card_history,
    card_id_spans,
    find_card,
    flags_of,
    load_card,
    set_suspended,
)
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


def card_detail(engine: Engine, *, pk: int) -> tuple[CardRecord, list[ReviewEntry]]:
    """A card and its whole review log, oldest first (the card screen)."""
    with transaction(engine) as session:
        return load_card(session, pk=pk), card_history(session, pk=pk)


def set_card_suspended(
    engine: Engine, *, card_id: str, suspended: bool, deck_id: str | None = None
) -> CardRecord:
    """`infracards suspend` / `unsuspend`: the card leaves (or rejoins) every queue and count;
    its schedule and history stay as they are."""
    card = lookup_card(engine, card_id=card_id, deck_id=deck_id)
    with transaction(engine, write=True) as session:
        set_suspended(session, card_pks=[card.pk], suspended=suspended)
    return card


def set_card_buried(engine: Engine, *, pk: int, day: date | None) -> None:
    """Hide a card from ``day``'s queue (None: unbury it); its schedule stays."""
    with transaction(engine, write=True) as session:
        bury(session, card_pks=[pk], day=day)


def card_flags(engine: Engine, *, pk: int) -> tuple[bool, bool, date | None]:
    """(suspended, leech, buried on) of a card."""
    with transaction(engine) as session:
        return flags_of(session, pk=pk)
