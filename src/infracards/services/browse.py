"""Browse: every card as a row, which rows a search, a tag and a state filter let through,
where the search matched, and the rows sorted by any column.

Search looks in a card's id, prompt, tags and deck id, and in its answer: free answers are
searched in SQL, sealed ones only once their deck is unlocked (opened in memory, never stored).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

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


STATES = ("new", "due", "suspended", "leech", "learned")
"""Browse's state filter: new (never reviewed), due (today or overdue, not suspended),
suspended, leech (lapsed ``leech-threshold`` times), learned (passed its last graded review
and not due yet)."""


def row_states(row: BrowseRow, today: date) -> set[str]:
    states = set()
    if row.suspended:
        states.add("suspended")
    if row.leech:
        states.add("leech")
    if row.due is None:
        states.add("new")
    elif not row.suspended:
        if row.due <= today:
            states.add("due")
        elif row.repetitions > 0:
            states.add("learned")
    return states


def matches(
    row: BrowseRow,
    text: str,
    *,
    words: list[str],
    tag: str | None,
    in_answer: bool,
    state: str | None = None,
    today: date | None = None,
) -> bool:
    """Every search word is in the row's ``search_text``, or all are in its answer; the tag
    and state filters are exact (``today`` decides what is due)."""
    if tag is not None and tag not in row.tags:
        return False
    if state is not None:
        assert today is not None, "the state filter needs the study day"
        if state not in row_states(row, today):
            return False
    return in_answer or all(word in text for word in words)


def matched_in(row: BrowseRow, *, words: list[str], in_answer: bool) -> str:
    """Where a search matched: the fields holding every word (id, prompt, tags, deck), or
    "answer" when only the answer (free, or opened after an unlock) has them all."""
    if not words:
        return ""
    fields = {
        "id": row.card_id.casefold(),
        "prompt": row.prompt.casefold(),
        "tags": " ".join(row.tags).casefold(),
        "deck": row.deck_id.casefold(),
    }
    found = [name for name, value in fields.items() if all(word in value for word in words)]
    if found:
        return ", ".join(found)
    if in_answer:
        return "answer"
    return "+".join(name for name, value in fields.items() if any(word in value for word in words))


SORT_COLUMNS: dict[str, Callable[[BrowseRow], Any]] = {
    "Id": lambda row: (row.deck_id, row.card_id),
    "Prompt": lambda row: row.prompt,
    "Tags": lambda row: row.tags,
    "EF": lambda row: row.easiness,
    "Interval": lambda row: (row.due is not None, row.interval),
    "Due": lambda row: (row.due is None, row.due or date.max),
    "Reviews": lambda row: row.reviews,
    "Answer": lambda row: row.locked,
    "State": lambda row: (row.suspended, row.leech, row.due is None, row.due or date.max),
}
"""Browse's columns and what each sorts by (ties keep deck order: the sort is stable)."""


def sort_rows(rows: list[BrowseRow], *, column: str | None, descending: bool) -> list[BrowseRow]:
    """The rows in deck order (``column`` None) or sorted by one column."""
    if column is None:
        return list(rows)
    return sorted(rows, key=SORT_COLUMNS[column], reverse=descending)


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
