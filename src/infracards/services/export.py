"""Progress export (JSON, CSV) and import, streaming and lossless; no printing here.

The JSON document (``infracards-progress/v1``, schema in ``schemas/``) holds each deck's cards
with their SM-2 state and the complete review log. It never holds an answer's text or a card
key: prompts are public, answers are not. Reviews are streamed from the database in chunks, so
exporting a million of them needs no more memory than exporting ten.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Engine
from sqlmodel import Session

from infracards import __version__
from infracards.errors import InfracardsError, ProgressError
from infracards.scheduler import SM2State, replay, study_day
from infracards.services.library import require_deck
from infracards.store.db import transaction
from infracards.store.progress import (
    add_reviews,
    card_keys,
    card_log,
    card_rows,
    deck_headers,
    is_loaded,
    logged_times,
    review_rows,
    store_replay,
)
from infracards.store.reads import load_prefs

PROGRESS_FORMAT = "infracards-progress/v1"
CHUNK = 5000
"""Rows fetched per round trip while streaming reviews."""

CSV_COLUMNS = (
    "deck_id",
    "card_id",
    "reviewed_at",
    "study_day",
    "grade",
    "drill",
    "duration_ms",
    "easiness_before",
    "easiness_after",
    "repetitions_before",
    "repetitions_after",
    "interval_before",
    "interval_after",
    "due_before",
    "due_after",
)


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _stored_time(text: str | None) -> str | None:
    """A UTC time as SQLite holds it ("2025-01-06 10:00:00.123456") in ISO form with a Z."""
    return text.replace(" ", "T") + "Z" if text else None


def _ef(centi: int) -> str:
    return f"{centi // 100}.{centi % 100:02d}"


def _day(value: date | None) -> str | None:
    return value.isoformat() if value else None


def review_entry(row: Any) -> dict[str, Any]:
    """One review of the log as the progress document holds it (a million of these are built
    per export, so the row is unpacked once and both states are built inline)."""
    (_deck, card_id, at, day, grade, drill, duration_ms, ef, reps, interval, due) = row[:11]
    (ef_after, reps_after, interval_after, due_after) = row[11:]
    return {
        "card_id": card_id,
        "reviewed_at": _stored_time(at),
        "study_day": day,
        "grade": grade,
        "drill": bool(drill),
        "duration_ms": duration_ms,
        "before": {"easiness": _ef(ef), "repetitions": reps, "interval": interval, "due": due},
        "after": {
            "easiness": _ef(ef_after),
            "repetitions": reps_after,
            "interval": interval_after,
            "due": due_after,
        },
    }


def _decks(session: Session, deck_id: str | None) -> list[tuple[str, str, int]]:
    decks = deck_headers(session, deck_id=deck_id)
    if deck_id is not None and not decks:
        raise InfracardsError(f"no deck {deck_id!r} is loaded; see `infracards deck list`")
    return decks


def _card_entries(session: Session, deck_id: str) -> Iterator[dict[str, Any]]:
    for (
        card_id,
        prompt,
        tags,
        locked,
        retired,
        easiness,
        repetitions,
        interval,
        due,
        last,
    ) in card_rows(session, deck_id=deck_id):
        yield {
            "card_id": card_id,
            "prompt": prompt,
            "tags": tags.split(),
            "locked": bool(locked),
            "retired": bool(retired),
            "state": {
                "easiness": _ef(easiness),
                "repetitions": repetitions,
                "interval": interval,
                "due": due,
                "last_review_at": _stored_time(last),
            },
        }


def write_json(
    session: Session,
    out: IO[str],
    *,
    now: datetime,
    deck_id: str | None = None,
    since: date | None = None,
) -> None:
    """Write the full progress document, streaming the review log."""
    dumps = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
    header = {
        "format": PROGRESS_FORMAT,
        "app_version": __version__,
        "exported_at": _timestamp(now),
        "filters": {"deck": deck_id, "since": _day(since)},
    }
    out.write(dumps(header)[:-1] + ', "decks": [')
    reviews = review_rows(session, deck_id=deck_id, since=since)
    pending = next(reviews, None)
    for index, (deck, title, version) in enumerate(_decks(session, deck_id)):
        meta = {"id": deck, "title": title, "version": version}
        out.write(("," if index else "") + "\n" + dumps(meta)[:-1] + ', "cards": [')
        for number, card in enumerate(_card_entries(session, deck)):
            out.write(("," if number else "") + "\n  " + dumps(card))
        out.write('], "reviews": [')
        count = 0
        while pending is not None and pending[0] == deck:
            out.write(("," if count else "") + "\n  " + dumps(review_entry(pending)))
            count += 1
            pending = next(reviews, None)
        out.write("]}")
    out.write("\n]}\n")


def write_csv(
    session: Session, out: IO[str], *, deck_id: str | None = None, since: date | None = None
) -> None:
    """The review log as one spreadsheet row per review (ISO dates, UTC times)."""
    _decks(session, deck_id)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in review_rows(session, deck_id=deck_id, since=since):
        deck, card_id, at, day, grade, drill, duration = row[:7]
        writer.writerow(
            (
                deck,
                card_id,
                _stored_time(at),
                day,
                grade,
                "yes" if drill else "no",
                duration,
                _ef(row[7]),
                _ef(row[11]),
                row[8],
                row[12],
                row[9],
                row[13],
                row[10] or "",
                row[14] or "",
            )
        )


# --- import ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import added; importing the same document twice adds nothing."""

    decks: tuple[str, ...]
    added: int
    already_present: int
    cards_recomputed: int


def _fail(where: str, problem: str) -> ProgressError:
    return ProgressError(f"{where}: {problem}; nothing was imported")


def _field(mapping: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(mapping, dict) or key not in mapping:
        raise _fail(where, f"missing {key!r}")
    value = mapping[key]
    if isinstance(value, bool) and kind is not bool:
        raise _fail(f"{where}.{key}", "expected a number, got true/false")
    if not isinstance(value, kind):
        raise _fail(f"{where}.{key}", f"expected {getattr(kind, '__name__', kind)}")
    return value


def _parse_time(text: str, where: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise _fail(where, f"{text!r} is not an ISO time") from None
    if moment.utcoffset() is None:
        raise _fail(where, "times must carry a UTC offset")
    return moment.astimezone(UTC)


def _parse_day(text: str, where: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise _fail(where, f"{text!r} is not an ISO date") from None


def parse_document(data: bytes, *, source: str) -> dict[str, Any]:
    """Decode and check the envelope of a progress document."""
    try:
        document = json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise _fail(source, f"not a JSON progress document ({error})") from None
    fmt = _field(document, "format", str, source)
    if fmt != PROGRESS_FORMAT:
        if fmt.startswith("infracards-progress/"):
            raise _fail(
                source, f"format {fmt} needs a newer infracards (this one reads {PROGRESS_FORMAT})"
            )
        raise _fail(source, f"format {fmt!r} is not an infracards progress export")
    _field(document, "decks", list, source)
    return document


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")


def import_document(
    session: Session, document: dict[str, Any], *, source: str, only_deck: str | None = None
) -> ImportReport:
    """Merge a progress document into the store (caller commits; one transaction, all or nothing).

    Reviews are matched by deck, card id and review time. Every card that gained a review has its
    state recomputed by replaying its whole log in order, so two machines' histories combine.
    With ``only_deck``, the document's other decks are not read.
    """
    added = present = 0
    touched: set[int] = set()
    decks: list[str] = []
    ids = [
        _field(deck, "id", str, f"{source}: decks[{n}]") for n, deck in enumerate(document["decks"])
    ]
    if only_deck is not None and only_deck not in ids:
        raise _fail(
            source, f"no progress for deck {only_deck!r} (it has {', '.join(ids) or 'none'})"
        )
    for d_index, (deck, deck_id) in enumerate(zip(document["decks"], ids, strict=True)):
        if only_deck is not None and deck_id != only_deck:
            continue
        where = f"{source}: decks[{d_index}]"
        if not is_loaded(session, deck_id=deck_id):
            raise _fail(
                where,
                f"deck {deck_id!r} is not loaded here; run `infracards deck add` first,"
                " or import the other decks alone with --deck",
            )
        decks.append(deck_id)
        cards = card_keys(session, deck_id=deck_id)
        for c_index, card in enumerate(_field(deck, "cards", list, where)):
            card_id = _field(card, "card_id", str, f"{where}.cards[{c_index}]")
            if card_id not in cards:
                raise _fail(f"{where}.cards[{c_index}]", f"no card {card_id!r} in deck {deck_id}")
        existing = {
            (pk, moment.astimezone(UTC))
            for pk, moment in logged_times(session, card_pks=cards.values())
        }
        new_rows = []
        for r_index, entry in enumerate(_field(deck, "reviews", list, where)):
            at = f"{where}.reviews[{r_index}]"
            card_id = _field(entry, "card_id", str, at)
            if card_id not in cards:
                raise _fail(at, f"no card {card_id!r} in deck {deck_id}")
            pk = cards[card_id]
            moment = _parse_time(_field(entry, "reviewed_at", str, at), f"{at}.reviewed_at")
            grade = _field(entry, "grade", int, at)
            if not 0 <= grade <= 5:
                raise _fail(f"{at}.grade", f"{grade} is not a grade from 0 to 5")
            if (pk, moment) in existing:
                present += 1
                continue
            existing.add((pk, moment))
            duration = _field(entry, "duration_ms", int, at)
            new_rows.append(
                {
                    "card": pk,
                    "reviewed_at": moment,
                    "study_day": _parse_day(_field(entry, "study_day", str, at), f"{at}.study_day"),
                    "grade": grade,
                    "drill": _field(entry, "drill", bool, at),
                    "duration_ms": max(0, duration),
                }
            )
            touched.add(pk)
        if new_rows:
            add_reviews(session, new_rows)
            added += len(new_rows)
    for pk in sorted(touched):
        replay_card(session, card_pk=pk)
    session.flush()
    return ImportReport(
        decks=tuple(decks), added=added, already_present=present, cards_recomputed=len(touched)
    )


def replay_card(session: Session, *, card_pk: int) -> SM2State:
    """Recompute a card's state (and each review's before/after) from its log, oldest first."""
    log = card_log(session, card_pk=card_pk)
    steps = replay((review.grade, review.drill, review.study_day) for review in log)
    return store_replay(session, card_pk=card_pk, log=log, steps=steps)


EXPORT_FORMATS = ("json", "csv", "md")


def export_progress(
    engine: Engine,
    out: IO[str],
    *,
    fmt: str,
    now: datetime,
    deck_id: str | None = None,
    since: date | None = None,
    bom: bool = False,
) -> None:
    """Write one export format to ``out``; an unknown deck is refused before anything is written."""
    if deck_id is not None:
        require_deck(engine, deck_id)
    with transaction(engine) as session:
        if fmt == "json":
            write_json(session, out, now=now, deck_id=deck_id, since=since)
        elif fmt == "csv":
            if bom:
                out.write("\ufeff")
            write_csv(session, out, deck_id=deck_id, since=since)
        else:
            from infracards.services.report import write_report

            today = study_day(now, rollover_hour=load_prefs(session).rollover_hour)
            write_report(session, out, today=today, deck_id=deck_id)


def read_progress(path: Path) -> dict[str, Any]:
    """Read and check a progress file's envelope (before any store is opened)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InfracardsError(f"cannot read {path} ({error.strerror})") from None
    return parse_document(data, source=str(path))


def import_progress(
    engine: Engine, document: dict[str, Any], *, source: str, only_deck: str | None = None
) -> ImportReport:
    """Merge a checked document in one write transaction (all or nothing)."""
    with transaction(engine, write=True) as session:
        return import_document(session, document, source=source, only_deck=only_deck)
