"""Queries through SQLAlchemy: deck sync, the study queue, Browse, undo and the report. The
session comes first, everything else is keyword-only, and results are frozen values (never
live ORM rows), so no widget holds a session or triggers a lazy load. Reads that the CLI makes
without SQLAlchemy are in ``store.reads``."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy import Table, exists, func, insert, text, update
from sqlmodel import Session, col, select

from infracards.records import BrowseRow, StudyPrefs, SyncReport, WeakCard
from infracards.scheduler import SM2State, StudyQueue
from infracards.scheduler.sm2 import DRILL_UNTIL
from infracards.store.db import session_connection
from infracards.store.grading import write_state
from infracards.store.models import Card, CardState, Deck, Review, StudySession
from infracards.store.reads import from_centi, stored_state

if TYPE_CHECKING:
    from infracards.deck import Deck as DeckFile  # parsing YAML is not needed to query


_CARD_STATE: Table = CardState.__table__  # type: ignore[attr-defined]
_CARD: Table = Card.__table__  # type: ignore[attr-defined]
# What a start reads before the first card is drawn goes through these tables (or plain SQL),
# not the ORM classes: the first ORM statement in a process configures every mapper and
# compiles an ORM context (~5 ms), which can wait until after the first frame.
_STUDY_SESSION: Table = StudySession.__table__  # type: ignore[attr-defined]
_REVIEW: Table = Review.__table__  # type: ignore[attr-defined]
_CARD_LABEL = (_CARD.c.id, _CARD.c.deck_id, _CARD.c.card_id, _CARD.c.prompt, _CARD.c.tags)
"""What names a card on screen: its key, deck, id, prompt and tags."""


# --- decks -------------------------------------------------------------------------------------


def deck_with_digest(session: Session, *, digest: str) -> tuple[str, int] | None:
    """(id, version) of the deck last synced from a file with exactly these bytes, if any."""
    row = session.exec(select(Deck.id, Deck.version).where(Deck.digest == digest)).first()
    return (row[0], row[1]) if row else None


_CARD_COLUMNS = ("position", "prompt", "tags", "key_points", "answer", "sealed", "calculators")


def sync_deck(
    session: Session, *, deck: DeckFile, source: str, keyslots: str | None, digest: str
) -> SyncReport:
    """Load or update a deck: match cards by id, keep progress, retire the cards it dropped.

    ``digest`` is the release's (its deck file and key slots): the same one is not synced again.

    Cards move as plain rows in bulk statements: a 100,000-card deck is one ``executemany`` of
    inserts (plus one for the changed cards), not 100,000 ORM objects.
    """
    row = session.get(Deck, deck.deck_id)
    created = row is None
    if row is None:
        row = Deck(id=deck.deck_id, title="", version=0, language="", source="", digest="")
    previous_version = None if created else row.version
    new_title = deck.title if not created and row.title != deck.title else None
    row.title, row.version, row.language = deck.title, deck.version, deck.language
    row.source, row.digest = source, digest
    row.lock_header = json.dumps(deck.lock, sort_keys=True) if deck.lock is not None else None
    keyslots_changed = not created and row.keyslots != keyslots
    row.keyslots = keyslots
    row.notation = deck.notation
    session.add(row)
    session.flush()

    stored = {
        card_id: (pk, retired, values)
        for card_id, pk, retired, *values in session.execute(
            select(
                Card.card_id, Card.id, Card.retired, *(getattr(Card, c) for c in _CARD_COLUMNS)
            ).where(Card.deck_id == deck.deck_id)
        )
    }
    added: list[tuple[object, ...]] = []
    changed: list[dict[str, object]] = []
    updated: list[str] = []
    restored: list[str] = []
    for position, card in enumerate(deck.cards, start=1):
        values = (
            position,
            card.prompt,
            card.tags_text,
            card.key_points_json,
            card.answer,
            card.sealed,
            json.dumps(list(card.calculators)),
        )
        old = stored.get(card.card_id)
        if old is None:
            added.append((deck.deck_id, card.card_id, *values))
            continue
        pk, retired, old_values = old
        if retired:
            restored.append(card.card_id)
        elif tuple(old_values) != values:
            updated.append(card.card_id)
        else:
            continue
        changed.append(
            {"id": pk, "retired": False, **dict(zip(_CARD_COLUMNS, values, strict=True))}
        )
    listed = {card.card_id for card in deck.cards}
    retired = sorted(
        card_id
        for card_id, (_, was_retired, _) in stored.items()
        if card_id not in listed and not was_retired
    )
    changed += ({"id": stored[card_id][0], "retired": True} for card_id in retired)
    if changed:
        session.execute(update(Card), changed)  # bulk UPDATE by primary key: one executemany
    if added:
        # Plain DB-API executemany: SQLAlchemy's per-row parameter processing doubled the time.
        session.connection().exec_driver_sql(
            f"INSERT INTO card (deck_id, card_id, {', '.join(_CARD_COLUMNS)}, retired)"
            f" VALUES (?, ?, {', '.join('?' * len(_CARD_COLUMNS))}, 0)",
            added,
        )
        session.execute(
            insert(CardState).from_select(
                ["card", "deck_id", "position", "retired", "locked"],
                sa.select(
                    col(Card.id),
                    col(Card.deck_id),
                    col(Card.position),
                    col(Card.retired),
                    col(Card.answer).is_(None),
                ).where(
                    col(Card.deck_id) == deck.deck_id,
                    ~exists().where(col(CardState.card) == col(Card.id)),
                ),
            )
        )
    return SyncReport(
        deck_id=deck.deck_id,
        version=deck.version,
        created=created,
        added=tuple(str(row[1]) for row in added),
        updated=tuple(updated),
        retired=tuple(retired),
        restored=tuple(restored),
        keyslots_changed=keyslots_changed,
        previous_version=previous_version,
        new_title=new_title,
    )


# --- cards -------------------------------------------------------------------------------------


# Only the columns Browse shows, as plain rows: through the ORM, loading 100k cards with their
# 1.5 KB answers took 6 s. Review counts come from the (card, reviewed_at) index, per card.
_BROWSE = (
    sa.select(
        *_CARD_LABEL,
        _CARD_STATE.c.easiness_centi,
        _CARD_STATE.c.interval,
        _CARD_STATE.c.due,
        select(func.count()).where(_REVIEW.c.card == _CARD.c.id).scalar_subquery(),
        _CARD.c.answer.is_(None),
        _CARD_STATE.c.repetitions,
        _CARD_STATE.c.suspended,
        _CARD_STATE.c.leech,
        _CARD_STATE.c.buried_on,
    )
    .join_from(_CARD, _CARD_STATE, _CARD_STATE.c.card == _CARD.c.id)
    .order_by(_CARD.c.deck_id, _CARD.c.position)
)


def browse_rows(
    session: Session, *, deck_id: str | None = None, include_retired: bool = False
) -> list[BrowseRow]:
    """Every card with its state and review count, in deck order."""
    query = _BROWSE
    if deck_id is not None:
        query = query.where(_CARD.c.deck_id == deck_id)
    if not include_retired:
        query = query.where(_CARD.c.retired == False)  # noqa: E712
    return [
        BrowseRow(
            pk=pk,
            deck_id=deck,
            card_id=card_id,
            prompt=prompt,
            tags=tuple(tags.split()),
            easiness=from_centi(easiness_centi),
            interval=interval,
            due=due,
            reviews=reviews,
            locked=bool(locked),
            repetitions=repetitions,
            suspended=bool(suspended),
            leech=bool(leech),
            buried_on=buried_on,
        )
        for (
            pk,
            deck,
            card_id,
            prompt,
            tags,
            easiness_centi,
            interval,
            due,
            reviews,
            locked,
            repetitions,
            suspended,
            leech,
            buried_on,
        ) in session.connection().execute(query)
    ]


def cards_whose_answer_has(
    session: Session, *, words: list[str], deck_id: str | None = None
) -> set[int]:
    """Active cards whose stored answer (free ones; sealed ones are ciphertext here) contains
    every word, ignoring ASCII case. SQLite scans the answers: ~0.3 s for 100k cards."""
    if not words:
        return set()
    found = " AND ".join(f"instr(lower(answer), :word{n}) > 0" for n in range(len(words)))
    query = text(
        "SELECT id FROM card WHERE answer IS NOT NULL AND NOT retired"
        f" AND (:deck IS NULL OR deck_id = :deck) AND {found}"
    )
    params = {"deck": deck_id, **{f"word{n}": word for n, word in enumerate(words)}}
    return set(session.connection().execute(query, params).scalars())


# --- the study queue ---------------------------------------------------------------------------


QUEUE_PAGE = 100
"""Due cards read at a time: a day with 37,000 due cards starts in a millisecond, not 350 ms."""

# One range of ix_cardstate_queue, in study order (due day, then deck position), resuming after
# the last card read. A card graded since the queue was built (by this session or another
# process) is not read again, even if a clock moved backwards made it due.
_DUE_PAGE = """
SELECT s.card, s.due, s.position FROM cardstate s
WHERE s.deck_id = :deck AND s.retired = 0 AND s.suspended = 0 AND s.due <= :today
  AND (:locked_too OR NOT s.locked) AND s.buried_on IS NOT :today
  AND (s.due, s.position, s.card) > (:after_due, :after_position, :after_card)
  AND NOT EXISTS (SELECT 1 FROM review r WHERE r.card = s.card AND r.id > :log_mark)
ORDER BY s.due, s.position, s.card LIMIT :limit
"""
_DUE_COUNT = text(
    "SELECT coalesce(sum(cards), 0) FROM duecount"
    " WHERE deck_id = :deck AND due <= :today AND (:locked_too OR NOT locked)"
    " AND NOT suspended AND buried_on IS NOT :today"
)
_NEW_CARDS = text(
    """
SELECT card FROM cardstate
WHERE deck_id = :deck AND retired = 0 AND suspended = 0 AND due IS NULL
  AND (:locked_too OR NOT locked) AND buried_on IS NOT :today
ORDER BY position LIMIT :limit
"""
)
_TODAYS_REVIEWS = text(
    "SELECT coalesce(sum(reviews), 0), coalesce(sum(reviews) FILTER (WHERE deck_id = :deck), 0)"
    " FROM daycount WHERE study_day = :today"
)
# Plain SQL, read as plain tuples from the sqlite3 cursor: a day holds thousands of reviews,
# and SQLAlchemy's rows cost as much again as fetching them (2.2 ms for 3,300).
_TODAYS_LOG = """
SELECT r.card, r.grade, r.drill, r.due_before IS NULL FROM review r
JOIN cardstate s ON s.card = r.card
WHERE r.study_day = :today AND s.deck_id = :deck AND r.practice IS NULL
ORDER BY r.reviewed_at, r.id
"""
# When every review of the day is this deck's (one deck, or one studied today), the join that
# finds the deck's reviews (half of the ~4 ms for 4,000 reviews) can go.
_TODAYS_LOG_ONE_DECK = (
    "SELECT card, grade, drill, due_before IS NULL FROM review WHERE study_day = :today"
    " AND practice IS NULL ORDER BY reviewed_at, id"
)
# The drills not to show as drills: due again (or new: the caller adds those), so studied as
# such first, or suspended or buried since they were graded today. One pass over the list (two
# took 2.9 ms for 600 drills); CROSS JOIN keeps SQLite from scanning every due card to test it
# against the list.
_QUEUED_OR_HIDDEN_AMONG = """
SELECT s.card FROM json_each(:cards) AS j CROSS JOIN cardstate AS s ON s.card = j.value
WHERE (s.deck_id = :deck AND s.retired = 0 AND s.due <= :today
       AND (:locked_too OR NOT s.locked) AND s.suspended = 0 AND s.buried_on IS NOT :today)
   OR s.suspended OR s.buried_on IS :today
"""
_LOG_MARK = text("SELECT coalesce(max(id), 0) FROM review")


@dataclass(frozen=True, slots=True)
class _QueueBookmark:
    """What ``load_queue_page`` needs to read on where the queue left off."""

    deck_id: str
    today: date
    locked_too: bool
    log_mark: int
    """The newest review id when the queue was built: cards reviewed after it are skipped."""
    after: tuple[str, int, int]
    """(due, position, card) of the last due card read."""
    due_left: int
    new: tuple[int, ...]
    """Today's new cards, shown after every due card."""


def build_queue(
    session: Session,
    *,
    deck_id: str,
    today: date,
    prefs: StudyPrefs,
    deck_unlocked: bool = False,
) -> StudyQueue:
    """Today's queue: due cards, then new cards within the daily limit, then pending drills.

    Sealed cards are in it where ``prefs.studies_sealed`` (``deck_unlocked``: its card key is
    stored).
    Drills are read back from today's log, so quitting and restarting keeps step 7's promise.
    Due cards beyond the first ``QUEUE_PAGE`` are read later by ``load_queue_page``.
    """
    connection = session.connection()
    driver = session_connection(session)  # plain tuples, for the reads of many rows
    locked_too = prefs.studies_sealed(deck_unlocked=deck_unlocked)
    params = {"deck": deck_id, "today": today.isoformat(), "locked_too": locked_too}

    last_grade: dict[int, int] = {}
    introduced: set[int] = set()
    reviewed_due = 0
    day_total, deck_today = connection.execute(_TODAYS_REVIEWS, params).one()
    log = _TODAYS_LOG_ONE_DECK if deck_today == day_total else _TODAYS_LOG
    for card, grade, drill, first_time in (
        driver.execute(log, params).fetchall() if deck_today else ()
    ):
        last_grade[card] = grade
        if not drill and first_time:
            introduced.add(card)
        reviewed_due += not drill and not first_time
    room = max(0, prefs.new_limit(today) - len(introduced))
    new = tuple(connection.execute(_NEW_CARDS, {**params, "limit": room}).scalars()) if room else ()
    drills = [card for card, grade in last_grade.items() if grade < DRILL_UNTIL]
    if drills:  # a drill that is due again or new (a clock moved back, say) is studied first
        among = {**params, "cards": json.dumps(drills)}
        rows = driver.execute(_QUEUED_OR_HIDDEN_AMONG, among).fetchall()
        queued = {card for (card,) in rows}.union(new)
        drills = [card for card in drills if card not in queued]

    mark = connection.execute(_LOG_MARK).scalar_one()
    due_total = connection.execute(_DUE_COUNT, params).scalar_one()
    if prefs.max_reviews_per_day is not None:  # the daily cap counts today's due reviews
        due_total = min(due_total, max(0, prefs.max_reviews_per_day - reviewed_due))
    bookmark = _QueueBookmark(
        deck_id=deck_id,
        today=today,
        locked_too=locked_too,
        log_mark=mark,
        after=("", -1, -1),
        due_left=due_total,
        new=new,
    )
    return load_queue_page(session, queue=StudyQueue(drills=tuple(drills), bookmark=bookmark))


def load_queue_page(session: Session, *, queue: StudyQueue) -> StudyQueue:
    """Append the next page of due cards to ``pending`` (and the new cards after the last one)."""
    mark = queue.bookmark
    if not isinstance(mark, _QueueBookmark):
        return queue
    limit = min(QUEUE_PAGE, mark.due_left)
    params = {
        "deck": mark.deck_id,
        "today": mark.today.isoformat(),
        "locked_too": mark.locked_too,
        "after_due": mark.after[0],
        "after_position": mark.after[1],
        "after_card": mark.after[2],
        "log_mark": mark.log_mark,
        "limit": limit,
    }
    # Plain tuples from the sqlite3 cursor: SQLAlchemy's rows took 0.9 of 1.2 ms a page.
    rows = session_connection(session).execute(_DUE_PAGE, params).fetchall() if limit > 0 else []
    cards = tuple(card for card, _due, _position in rows)
    due_left = mark.due_left - len(cards)
    if len(cards) < limit or due_left <= 0:  # every due card read: the new ones follow
        return queue.with_page((*cards, *mark.new), unloaded=0, bookmark=None)
    card, due, position = rows[-1]
    bookmark = replace(mark, after=(due, position, card), due_left=due_left)
    return queue.with_page(cards, unloaded=due_left + len(mark.new), bookmark=bookmark)


def set_card_state(
    session: Session,
    *,
    card_pk: int,
    state: SM2State,
    due: date | None,
    last_review_at: datetime | None,
) -> None:
    """Store a card's SM-2 state (after an undo or a replay of its log) in this transaction."""
    write_state(
        session_connection(session),
        card_pk=card_pk,
        state=state,
        due=due,
        last_review_at=last_review_at,
    )
    # The UPDATE bypasses the ORM: a CardState this session already loaded must be read again.
    loaded = session.identity_map.get(session.identity_key(CardState, card_pk))
    if loaded is not None:
        session.expire(loaded)


def undo_review(session: Session, *, review_id: int) -> int:
    """Delete a logged grade and put the card's state back exactly; returns the card pk."""
    review = session.get(Review, review_id)
    if review is None:
        raise LookupError(review_id)
    card_pk = review.card
    if not review.drill:
        previous = session.exec(  # the last grade before it; drills never set it
            select(func.max(Review.reviewed_at)).where(
                Review.card == card_pk,
                Review.id != review_id,
                Review.drill == False,  # noqa: E712
            )
        ).first()
        before = stored_state(
            review.easiness_centi_before, review.repetitions_before, review.interval_before
        )
        set_card_state(
            session, card_pk=card_pk, state=before, due=review.due_before, last_review_at=previous
        )
    session.delete(review)
    session.flush()
    return card_pk


_SET_FLAGS = (
    "UPDATE cardstate SET {values} FROM json_each(:cards) AS j"
    " WHERE cardstate.card = j.value AND ({changed})"
)


def _set_flags(session: Session, card_pks: list[int], values: dict[str, object]) -> int:
    """Set columns of these cards' states; returns how many cards changed (rows that already
    hold the values are not written)."""
    sql = _SET_FLAGS.format(
        values=", ".join(f"{column} = :{column}" for column in values),
        changed=" OR ".join(f"{column} IS NOT :{column}" for column in values),
    )
    params = {**values, "cards": json.dumps(card_pks)}
    return session.connection().execute(text(sql), params).rowcount


def set_suspended(session: Session, *, card_pks: list[int], suspended: bool) -> int:
    """Suspend (out of every queue and count) or unsuspend cards; returns how many changed."""
    return _set_flags(session, card_pks, {"suspended": int(suspended)})


def set_leech(session: Session, *, card_pks: list[int], leech: bool) -> int:
    """Flag cards as leeches or clear the flag; returns how many changed."""
    return _set_flags(session, card_pks, {"leech": int(leech)})


def bury(session: Session, *, card_pks: list[int], day: date | None) -> int:
    """Hide cards from ``day``'s queue (None: unbury); their schedule stays as it is."""
    return _set_flags(session, card_pks, {"buried_on": day.isoformat() if day else None})


_FLAGS = text("SELECT suspended, leech, buried_on FROM cardstate WHERE card = :pk")


def flags_of(session: Session, *, pk: int) -> tuple[bool, bool, date | None]:
    """(suspended, leech, buried on) of one card."""
    suspended, leech, buried_on = session.connection().execute(_FLAGS, {"pk": pk}).one()
    return bool(suspended), bool(leech), date.fromisoformat(buried_on) if buried_on else None


def start_session(session: Session, *, now: datetime, study_day: date, deck_id: str) -> int:
    values = {"started_at": now, "study_day": study_day, "deck_id": deck_id}
    inserted = session.connection().execute(insert(_STUDY_SESSION), values).inserted_primary_key
    assert inserted is not None  # an INSERT of one row always has its key
    return int(inserted[0])


def end_session(session: Session, *, session_id: int, now: datetime) -> None:
    session.execute(
        update(StudySession).where(col(StudySession.id) == session_id).values(ended_at=now)
    )


def reopen_session(session: Session, *, session_id: int) -> None:
    """The session goes on (an undo from its summary): it has no end time again."""
    session.execute(
        update(StudySession).where(col(StudySession.id) == session_id).values(ended_at=None)
    )


def weakest_cards(
    session: Session, *, deck_id: str | None = None, limit: int = 10
) -> list[WeakCard]:
    """Reviewed cards by lowest EF, then most lapses (one grouped query)."""
    lapses = (
        select(Review.card, func.count().label("n"))
        .where(Review.drill == False, Review.grade < 3)  # noqa: E712
        .group_by(col(Review.card))
        .subquery()
    )
    query = (
        select(Card, CardState, func.coalesce(lapses.c.n, 0).label("lapses"))
        .join(CardState, col(CardState.card) == Card.id)
        .outerjoin(lapses, lapses.c.card == Card.id)
        .where(col(CardState.due).is_not(None), Card.retired == False)  # noqa: E712
        .order_by(
            col(CardState.easiness_centi), func.coalesce(lapses.c.n, 0).desc(), col(Card.position)
        )
        .limit(limit)
    )
    if deck_id is not None:
        query = query.where(Card.deck_id == deck_id)
    return [
        WeakCard(
            deck_id=card.deck_id,
            card_id=card.card_id,
            prompt=card.prompt,
            easiness=from_centi(state.easiness_centi),
            lapses=count,
            due=state.due,
        )
        for card, state, count in session.exec(query)
    ]
