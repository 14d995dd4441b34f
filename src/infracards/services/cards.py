"""One card by its id, with its answer opened when a stored key allows (for `infracards show`)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from infracards.errors import InfracardsError
from infracards.records import Answer, CardRecord, ReviewEntry
from infracards.services.answers import AnswerBook
from infracards.store.file import reading
from infracards.store.reads import (
    active_card_ids,
    card_history,
    card_id_spans,
    find_card,
    load_card,
)
from infracards.terminal_text import echo, quoted

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from infracards.store.file import Store


def names_card(typed: str, card_id: str) -> bool:
    """Whether what was typed names this card id: in any case, with or without the zeros
    before its number ("Q3" for q03, as the README writes "Q3–Q33"), or the number alone
    ("13" for q13)."""
    if typed.casefold() == card_id.casefold():
        return True
    typed_stem, typed_number = _split_number(typed)
    stem, number = _split_number(card_id)
    return (
        typed_number is not None
        and typed_number == number
        and typed_stem.casefold() in ("", stem.casefold())
    )


def _split_number(card_id: str) -> tuple[str, int | None]:
    """("q", 3) for "q03"; (card_id, None) when it does not end in ASCII digits."""
    stem = card_id.rstrip("0123456789")
    digits = card_id[len(stem) :]
    return (stem, int(digits)) if digits else (card_id, None)


def lookup_card(store: Store, *, card_id: str, deck_id: str | None = None) -> CardRecord:
    """The card with this id (exactly, else as ``names_card`` reads it), or an error that
    names the ids each deck has, or the cards it could mean."""
    with reading(store) as db:
        cards = find_card(db, card_id=card_id, deck_id=deck_id)
        if not cards:
            named = [
                (deck, active)
                for deck, active in active_card_ids(db, deck_id=deck_id)
                if names_card(card_id, active)
            ]
            if len(named) == 1:
                cards = find_card(db, card_id=named[0][1], deck_id=named[0][0])
            elif named:
                could = " or ".join(f"{active} in {deck}" for deck, active in named)
                raise InfracardsError(
                    f"card {quoted(card_id)} could be {echo(could)}; pick one with --deck"
                    + ("" if deck_id is None else " or type the whole id")
                )
        spans = card_id_spans(db, deck_id=deck_id) if not cards else []
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


def open_answer(store: Store, home: Path, card: CardRecord) -> tuple[Answer | None, list[str]]:
    """The card's answer (None while sealed and locked) and notices about stored keys."""
    if not card.locked:
        return AnswerBook().answer_for(card), []
    from infracards.services.unlock import open_saved_keys

    opened, notices = open_saved_keys(store, home, only=card.deck_id)
    return AnswerBook(opened).answer_for(card), notices


def card_detail(store: Store, *, pk: int) -> tuple[CardRecord, list[ReviewEntry]]:
    """A card and its whole review log, oldest first (the card screen)."""
    with reading(store) as db:
        return load_card(db, pk=pk), card_history(db, pk=pk)


def set_card_suspended(
    engine: Engine, *, card_id: str, suspended: bool, deck_id: str | None = None
) -> CardRecord:
    """`infracards suspend` / `unsuspend`: the card leaves (or rejoins) every queue and count;
    its schedule and history stay as they are."""
    from infracards.store.db import transaction
    from infracards.store.queries import set_suspended

    card = lookup_card(engine, card_id=card_id, deck_id=deck_id)
    with transaction(engine, write=True) as session:
        set_suspended(session, card_pks=[card.pk], suspended=suspended)
    return card


def set_card_buried(engine: Engine, *, pk: int, day: date | None) -> None:
    """Hide a card from ``day``'s queue (None: unbury it); its schedule stays."""
    from infracards.store.db import transaction
    from infracards.store.queries import bury

    with transaction(engine, write=True) as session:
        bury(session, card_pks=[pk], day=day)


def card_flags(engine: Engine, *, pk: int) -> tuple[bool, bool, date | None]:
    """(suspended, leech, buried on) of a card."""
    from infracards.store.db import transaction
    from infracards.store.queries import flags_of

    with transaction(engine) as session:
        return flags_of(session, pk=pk)
