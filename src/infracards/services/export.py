"""Progress export (JSON, CSV) and import, streaming and lossless; no printing here.

The JSON document (``infracards-progress/v1``, schema in ``schemas/``) holds each deck's cards
with their SM-2 state and the complete review log. It never holds an answer's text or a card
key: prompts are public, answers are not. Reviews are streamed from the database in chunks, so
exporting a million of them needs no more memory than exporting ten.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Engine
from sqlmodel import Session

from infracards import __version__
from infracards.card_text import MAX_KEY_POINTS, is_unicode
from infracards.errors import InfracardsError, ProgressError
from infracards.files import read_regular_file
from infracards.records import MAX_DURATION_MS
from infracards.scheduler import replay, study_day
from infracards.services.library import require_deck
from infracards.services.mock import MAX_QUESTIONS
from infracards.store.db import transaction
from infracards.store.progress import (
    ImportedReview,
    add_mock,
    add_reviews,
    card_keys,
    card_logs,
    card_rows,
    deck_headers,
    is_loaded,
    logged_times,
    mock_rows,
    mock_starts,
    review_ids,
    review_rows,
    store_replays,
    stored_time,
)
from infracards.store.queries import set_leech, set_suspended
from infracards.store.reads import load_prefs
from infracards.terminal_text import echo, json_safe, quoted, terminal_safe

PROGRESS_FORMAT = "infracards-progress/v1"
MAX_PROGRESS_BYTES = 512 << 20
"""An export of 1,000,000 reviews over 100,000 cards is about 360 MB."""
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
    "key_points",
    "recalled",
    "practice",
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
    (ef_after, reps_after, interval_after, due_after, points, recalled, fp, practice) = row[11:]
    entry = {
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
    if points is not None:
        entry["key_points"] = _key_points_entry(points, recalled, fp)
    if practice is not None:
        entry["practice"] = practice
    return entry


def _key_points_entry(points: int, recalled: int | None, fingerprint: str) -> dict[str, Any]:
    """A key-point check as exported: how many points, which were said (indexes), and the
    fingerprint of the list; never a point's text."""
    return {"count": points, "recalled": _said(points, recalled), "fingerprint": fingerprint}


def _mock_entries(session: Session, deck_id: str) -> list[dict[str, Any]]:
    """The deck's mock interviews, each with its questions (their notes are the learner's)."""
    mocks, questions = mock_rows(session, deck_id=deck_id)
    asked: dict[int, list[dict[str, Any]]] = {}
    for (
        mock,
        card_id,
        position,
        seconds,
        timed_out,
        points,
        recalled,
        fp,
        notes,
        counted,
    ) in questions:
        asked.setdefault(mock, []).append(
            {
                "card_id": card_id,
                "position": position,
                "seconds_used": seconds,
                "timed_out": bool(timed_out),
                "key_points": _key_points_entry(points, recalled, fp) if points else None,
                "notes": notes,
                "counted_review_at": _stored_time(counted),
            }
        )
    return [
        {
            "started_at": _stored_time(started),
            "ended_at": _stored_time(ended),
            "study_day": day,
            "questions": planned,
            "seconds_per_question": seconds,
            "topic": topic,
            "asked": asked.get(mock, []),
        }
        for mock, started, ended, day, planned, seconds, topic in mocks
    ]


def _decks(session: Session, deck_id: str | None) -> list[tuple[str, str, int]]:
    decks = deck_headers(session, deck_id=deck_id)
    if deck_id is not None and not decks:
        raise InfracardsError(f"no deck {quoted(deck_id)} is loaded; see `infracards deck list`")
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
        suspended,
        leech,
    ) in card_rows(session, deck_id=deck_id):
        entry = {
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
        # Written only when set, as the other optional fields: a document without flags is
        # the same as before they were exported.
        if suspended:
            entry["suspended"] = True
        if leech:
            entry["leech"] = True
        yield entry


def write_json(
    session: Session,
    out: IO[str],
    *,
    now: datetime,
    deck_id: str | None = None,
    since: date | None = None,
) -> None:
    """Write the full progress document, streaming the review log.

    Every value goes through ``json_safe``: text that reached the store with control
    characters in it is written as ``\\uXXXX`` escapes, the same JSON, safe on a terminal.
    """
    encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode

    def dumps(value: object) -> str:
        return json_safe(encode(value))

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
        out.write("]")
        mocks = _mock_entries(session, deck)
        if mocks:
            out.write(', "mock_sessions": [' + ",".join("\n  " + dumps(m) for m in mocks) + "]")
        out.write("}")
    out.write("\n]}\n")


def write_csv(
    session: Session, out: IO[str], *, deck_id: str | None = None, since: date | None = None
) -> None:
    """The review log as one spreadsheet row per review (ISO dates, UTC times)."""
    _decks(session, deck_id)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    shown: dict[str, str] = {}  # ids as written: made safe once each, not once per review
    for row in review_rows(session, deck_id=deck_id, since=since):
        deck, card_id, at, day, grade, drill, duration = row[:7]
        if deck not in shown:
            shown[deck] = terminal_safe(deck, one_line=True)
        if card_id not in shown:
            shown[card_id] = terminal_safe(card_id, one_line=True)
        writer.writerow(
            (
                shown[deck],
                shown[card_id],
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
                "" if row[15] is None else row[15],
                "" if row[15] is None else " ".join(map(str, _said(row[15], row[16]))),
                row[18] or "",
            )
        )


def _said(points: int, recalled: int | None) -> list[int]:
    return [index for index in range(points) if (recalled or 0) >> index & 1]


# --- import ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import added; importing the same document twice adds nothing."""

    decks: tuple[str, ...]
    added: int
    already_present: int
    cards_recomputed: int
    mock_sessions: int = 0
    """Mock interviews added (one already here, by start time, is not added again)."""
    suspended: int = 0
    """Cards suspended here because the document has them suspended."""
    leeches: int = 0
    """Cards flagged as leeches here because the document has them flagged."""


def _fail(where: str, problem: str) -> ProgressError:
    return ProgressError(f"{where}: {problem}; nothing was imported")


def _field(mapping: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(mapping, dict) or key not in mapping:
        raise _fail(where, f"missing {quoted(key)}")
    value = mapping[key]
    if isinstance(value, bool) and kind is not bool:
        raise _fail(f"{where}.{key}", "expected a number, got true/false")
    if not isinstance(value, kind):
        expected = "true or false" if kind is bool else getattr(kind, "__name__", kind)
        raise _fail(f"{where}.{key}", f"expected {expected}")
    if isinstance(value, str) and not is_unicode(value):
        raise _fail(f"{where}.{key}", "is not valid text (it holds a lone surrogate, \\udXXX)")
    return value


def _parse_time(text: str, where: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise _fail(where, f"{quoted(text)} is not an ISO time") from None
    if moment.utcoffset() is None:
        raise _fail(where, "times must carry a UTC offset")
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+01:00 is in year 0 in UTC
        raise _fail(where, f"{quoted(text)} is outside the years 1 to 9999 in UTC") from None


def _parse_day(text: str, where: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise _fail(where, f"{quoted(text)} is not an ISO date") from None


def parse_document(data: bytes, *, source: str) -> dict[str, Any]:
    """Decode and check the envelope of a progress document."""
    try:
        document = json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise _fail(source, f"not a JSON progress document ({echo(error)})") from None
    except MemoryError:
        raise _fail(source, "too large to read in the memory this machine has free") from None
    fmt = _field(document, "format", str, source)
    if fmt != PROGRESS_FORMAT:
        if fmt.startswith("infracards-progress/"):
            raise _fail(
                source,
                f"format {echo(fmt)} needs a newer infracards (this one reads {PROGRESS_FORMAT})",
            )
        raise _fail(source, f"format {quoted(fmt)} is not an infracards progress export")
    _field(document, "decks", list, source)
    return document


def _listed(ids: list[str], *, shown: int = 8) -> str:
    """Deck ids from a file, as a message lists them: a few, each cut short."""
    if not ids:
        return "none"
    more = f", … ({len(ids) - shown} more)" if len(ids) > shown else ""
    return ", ".join(echo(deck_id, limit=40) for deck_id in ids[:shown]) + more


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
    added = present = mocks_added = suspended = leeches = 0
    touched: set[int] = set()
    decks: list[str] = []
    ids = [
        _field(deck, "id", str, f"{source}: decks[{n}]") for n, deck in enumerate(document["decks"])
    ]
    if only_deck is not None and only_deck not in ids:
        raise _fail(source, f"no progress for deck {quoted(only_deck)} (it has {_listed(ids)})")
    for d_index, (deck, deck_id) in enumerate(zip(document["decks"], ids, strict=True)):
        if only_deck is not None and deck_id != only_deck:
            continue
        where = f"{source}: decks[{d_index}]"
        if not is_loaded(session, deck_id=deck_id):
            raise _fail(
                where,
                f"deck {quoted(deck_id)} is not loaded here; run `infracards deck add` first,"
                " or import the other decks alone with --deck",
            )
        decks.append(deck_id)
        cards = card_keys(session, deck_id=deck_id)
        to_suspend: list[int] = []
        to_flag: list[int] = []
        for c_index, card in enumerate(_field(deck, "cards", list, where)):
            at = f"{where}.cards[{c_index}]"
            card_id = _field(card, "card_id", str, at)
            if card_id not in cards:
                raise _fail(at, f"no card {quoted(card_id)} in deck {deck_id}")
            if _optional(card, "suspended", bool, at):
                to_suspend.append(cards[card_id])
            if _optional(card, "leech", bool, at):
                to_flag.append(cards[card_id])
        existing = logged_times(session, deck_id=deck_id)
        new_rows: list[ImportedReview] = []
        for r_index, entry in enumerate(_field(deck, "reviews", list, where)):
            row = _review(entry, f"{where}.reviews[{r_index}]", cards=cards, deck_id=deck_id)
            if (row[0], row[1]) in existing:
                present += 1
                continue
            existing.add((row[0], row[1]))
            new_rows.append(row)
            touched.add(row[0])
        if new_rows:
            add_reviews(session, new_rows)
            added += len(new_rows)
        mocks_added += _import_mocks(session, deck, deck_id=deck_id, cards=cards, where=where)
        # Flags carry no time, so the document cannot tell whether one here is newer: an
        # import adds the flags it holds and never clears one (it never unsuspends a card).
        suspended += set_suspended(session, card_pks=to_suspend, suspended=True)
        leeches += set_leech(session, card_pks=to_flag, leech=True)
    replay_cards(session, card_pks=touched)
    return ImportReport(
        decks=tuple(decks),
        added=added,
        already_present=present,
        cards_recomputed=len(touched),
        mock_sessions=mocks_added,
        suspended=suspended,
        leeches=leeches,
    )


PRACTICE_KINDS = ("ahead", "cram", "final")
_FINGERPRINT = re.compile(r"[0-9a-f]{16}")
MAX_NOTES_CHARS = 64 * 1024
MAX_TOPIC_CHARS = 64
MAX_SECONDS_PER_QUESTION = 60 * 60
"""A mock-interview question takes 1 to 60 minutes."""


def _review(entry: Any, at: str, *, cards: dict[str, int], deck_id: str) -> ImportedReview:
    """One review of the document, every field checked and in range, as the store adds it."""
    card_id = _field(entry, "card_id", str, at)
    if card_id not in cards:
        raise _fail(at, f"no card {quoted(card_id)} in deck {deck_id}")
    moment = _parse_time(_field(entry, "reviewed_at", str, at), f"{at}.reviewed_at")
    grade = _field(entry, "grade", int, at)
    if not 0 <= grade <= 5:
        raise _fail(f"{at}.grade", f"{echo(grade)} is not a grade from 0 to 5")
    duration = _field(entry, "duration_ms", int, at)
    if not 0 <= duration <= MAX_DURATION_MS:
        raise _fail(
            f"{at}.duration_ms",
            f"{echo(duration, limit=40)} is not a duration from 0 to {MAX_DURATION_MS} ms (a year)",
        )
    day = _parse_day(_field(entry, "study_day", str, at), f"{at}.study_day")
    drill = _field(entry, "drill", bool, at)
    points, recalled, fingerprint = _parse_key_points(entry, at) or (None, None, None)
    practice = _parse_practice(entry, drill=drill, where=at)
    return (
        cards[card_id],
        stored_time(moment),
        day,
        grade,
        drill,
        duration,
        points,
        recalled,
        fingerprint,
        practice,
    )


def _optional(mapping: Any, key: str, kind: type, where: str) -> Any:
    """An optional field: None when absent or null, else checked as ``_field`` checks."""
    if not isinstance(mapping, dict) or mapping.get(key) is None:
        return None
    return _field(mapping, key, kind, where)


def _whole(mapping: Any, key: str, where: str, *, least: int, most: int, what: str) -> int:
    """A whole-number field from ``least`` to ``most``."""
    value = _field(mapping, key, int, where)
    if not least <= value <= most:
        raise _fail(
            f"{where}.{key}", f"{echo(value, limit=40)} is not {what} from {least} to {most}"
        )
    return int(value)


def _parse_key_points(entry: Any, where: str) -> tuple[int, int, str] | None:
    """An exported key-point check as (count, bit mask, fingerprint); None when absent."""
    value = _optional(entry, "key_points", dict, where)
    if value is None:
        return None
    where = f"{where}.key_points"
    count = _whole(value, "count", where, least=1, most=MAX_KEY_POINTS, what="a number of points")
    said = _field(value, "recalled", list, where)
    for index, point in enumerate(said):
        if isinstance(point, bool) or not isinstance(point, int) or not 0 <= point < count:
            raise _fail(
                f"{where}.recalled[{index}]",
                f"{echo(point, limit=40)} is not a point's index from 0 to {count - 1}",
            )
    fingerprint = _field(value, "fingerprint", str, where)
    if not _FINGERPRINT.fullmatch(fingerprint):
        raise _fail(f"{where}.fingerprint", "expected 16 lowercase hex digits")
    return count, sum(1 << index for index in set(said)), fingerprint


def _check_columns(check: tuple[int, int, str] | None) -> dict[str, Any]:
    points, recalled, fingerprint = check or (None, None, None)
    return {"points": points, "recalled": recalled, "points_fp": fingerprint}


def _parse_practice(entry: Any, *, drill: bool, where: str) -> str | None:
    value = _optional(entry, "practice", str, where)
    if value is None:
        return None
    if value not in PRACTICE_KINDS:
        raise _fail(
            f"{where}.practice",
            f"{quoted(value, limit=40)} is not one of {', '.join(PRACTICE_KINDS)}",
        )
    if not drill:
        raise _fail(f"{where}.drill", "a practice review is logged as a drill (true)")
    return str(value)


def _import_mocks(
    session: Session, deck: dict[str, Any], *, deck_id: str, cards: dict[str, int], where: str
) -> int:
    """Add the document's mock interviews this home does not have (matched by start time)."""
    mocks = _optional(deck, "mock_sessions", list, where) or []
    known = mock_starts(session, deck_id=deck_id)
    added = 0
    for m_index, mock in enumerate(mocks):
        at = f"{where}.mock_sessions[{m_index}]"
        started = _parse_time(_field(mock, "started_at", str, at), f"{at}.started_at")
        ended = _optional(mock, "ended_at", str, at)
        topic = _optional(mock, "topic", str, at)
        if topic is not None and not 1 <= len(topic) <= MAX_TOPIC_CHARS:
            raise _fail(f"{at}.topic", f"expected a topic of 1 to {MAX_TOPIC_CHARS} characters")
        planned = _whole(
            mock, "questions", at, least=1, most=MAX_QUESTIONS, what="a number of questions"
        )
        row = {
            "deck_id": deck_id,
            "started_at": started,
            "ended_at": _parse_time(ended, f"{at}.ended_at") if ended is not None else None,
            "study_day": _parse_day(_field(mock, "study_day", str, at), f"{at}.study_day"),
            "questions": planned,
            "seconds_per_question": _whole(
                mock,
                "seconds_per_question",
                at,
                least=1,
                most=MAX_SECONDS_PER_QUESTION,
                what="a time in seconds",
            ),
            "topic": topic,
        }
        questions: list[dict[str, Any]] = []
        for n, question in enumerate(_field(mock, "asked", list, at)):
            asked = _mock_question(
                session,
                question,
                cards=cards,
                deck_id=deck_id,
                planned=planned,
                where=f"{at}.asked[{n}]",
            )
            if any(q["position"] == asked["position"] for q in questions):
                raise _fail(f"{at}.asked[{n}].position", "another question has this position")
            questions.append(asked)
        if started in known:
            continue  # checked all the same: a damaged file changes nothing
        add_mock(session, mock=row, questions=questions)
        known.add(started)
        added += 1
    return added


def _mock_question(
    session: Session,
    question: Any,
    *,
    cards: dict[str, int],
    deck_id: str,
    planned: int,
    where: str,
) -> dict[str, Any]:
    card_id = _field(question, "card_id", str, where)
    if card_id not in cards:
        raise _fail(where, f"no card {quoted(card_id)} in deck {deck_id}")
    notes = _field(question, "notes", str, where)
    if len(notes) > MAX_NOTES_CHARS:
        raise _fail(f"{where}.notes", f"longer than {MAX_NOTES_CHARS} characters")
    counted = _optional(question, "counted_review_at", str, where)
    review = None
    if counted is not None:
        moment = _parse_time(counted, f"{where}.counted_review_at")
        review = review_ids(session, card_pk=cards[card_id]).get(moment)
    return {
        "card": cards[card_id],
        "position": _whole(
            question, "position", where, least=1, most=planned, what="a question's position"
        ),
        "seconds_used": _whole(
            question,
            "seconds_used",
            where,
            least=0,
            most=MAX_DURATION_MS // 1000,
            what="a time in seconds",
        ),
        "timed_out": _field(question, "timed_out", bool, where),
        "notes": notes,
        "review": review,
        **_check_columns(_parse_key_points(question, where)),
    }


def replay_cards(session: Session, *, card_pks: set[int]) -> None:
    """Recompute each card's state (and each review's before/after) from its log, oldest first.

    One read of all their logs and two bulk writes: linear in the number of reviews, however
    they are spread (100,000 reviews of one card take as long as 100,000 cards of one). A
    drill, and a practice review (logged as one), leaves the state alone, as grading does.
    """
    if not card_pks:
        return
    store_replays(
        session,
        (
            (card, log, list(replay((grade, drill, day) for _, grade, drill, day, _ in log)))
            for card, log in card_logs(session, card_pks=card_pks)
        ),
    )


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
    """Read and check a progress file's envelope (before any store is opened): a regular file
    of at most ``MAX_PROGRESS_BYTES``, never a FIFO or a device."""
    data = read_regular_file(
        path, max_bytes=MAX_PROGRESS_BYTES, what="progress file", error=ProgressError
    )
    return parse_document(data, source=echo(path))


def import_progress(
    engine: Engine, document: dict[str, Any], *, source: str, only_deck: str | None = None
) -> ImportReport:
    """Merge a checked document in one write transaction (all or nothing)."""
    with transaction(engine, write=True) as session:
        return import_document(session, document, source=source, only_deck=only_deck)
