"""Browse: every card as a row, and which rows a search and a tag filter let through.

Search looks in a card's id, prompt, tags and deck id, and in its answer: free answers are
searched in SQL, sealed ones only once their deck is unlocked (opened in memory, never stored).
"""

from __future__ import annotations

from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.records import BrowseRow, CardRecord
from infracards.services.answers import AnswerBook
from infracards.store.db import transaction
from infracards.store.queries import browse_rows, cards_whose_answer_has
from infracards.store.reads import load_card


def list_cards(engine: Engine, *, deck_id: str | None = None) -> list[BrowseRow]:
    with transaction(engine) as session:
        return browse_rows(session, deck_id=deck_id)


def search_text(row: BrowseRow) -> str:
    """What the search box looks in: card id, prompt, tags and deck id, case-folded."""
    return f"{row.card_id} {row.prompt} {' '.join(row.tags)} {row.deck_id}".casefold()


def matches(
    row: BrowseRow, text: str, *, words: list[str], tag: str | None, in_answer: bool
) -> bool:
    """Every search word is in the row's ``search_text``, or all are in its answer; the tag
    filter is exact."""
    if tag is not None and tag not in row.tags:
        return False
    return in_answer or all(word in text for word in words)


def opened_text(answers: AnswerBook, card: CardRecord) -> str:
    """A sealed answer and its key points, case-folded for search ('' if it cannot be opened:
    the card view says why when the card is shown)."""
    try:
        answer = answers.answer_for(card)
    except InfracardsError:
        return ""
    return "" if answer is None else f"{answer.markdown} {' '.join(answer.key_points)}".casefold()


def cards_with_answer_words(
    engine: Engine,
    answers: AnswerBook,
    *,
    rows: list[BrowseRow],
    words: tuple[str, ...],
    opened: dict[int, str],
    deck_id: str | None = None,
) -> frozenset[int]:
    """The cards among ``rows`` whose answer has every word. ``opened`` caches the sealed
    answers of unlocked decks, case-folded, between searches (~0.3 s for 100k answers)."""
    with transaction(engine) as session:
        hits = cards_whose_answer_has(session, words=list(words), deck_id=deck_id)
        for row in rows:
            if row.locked and row.pk not in opened and answers.is_unlocked(row.deck_id):
                opened[row.pk] = opened_text(answers, load_card(session, pk=row.pk))
    hits |= {pk for pk, text in opened.items() if all(word in text for word in words)}
    return frozenset(hits)
