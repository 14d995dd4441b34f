"""The raw floor: plain ``sqlite3`` (and plain ``cryptography``) doing each workload's I/O.

No app logic: no validation, no scheduler, no ORM. Each floor uses the same pragmas as the
infracards store (WAL, ``synchronous=FULL``), so the ratio to it measures what our code adds
on top of what SQLite itself needs.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import textwrap
import time
from datetime import datetime, timedelta
from pathlib import Path

import yaml
from measure import in_child
from workload import TODAY


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    return db


def load(deck_path: Path, folder: Path) -> float:
    """YAML parse with PyYAML's fastest stock loader (C) plus one ``executemany``."""
    started = time.perf_counter()
    with open(deck_path, encoding="utf-8") as handle:
        document = yaml.load(handle, Loader=yaml.CSafeLoader)
    db = _connect(folder / "floor.db")
    db.execute(
        "CREATE TABLE card (id INTEGER PRIMARY KEY, card_id TEXT UNIQUE, prompt TEXT,"
        " tags TEXT, answer TEXT)"
    )
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO card (card_id, prompt, tags, answer) VALUES (?, ?, ?, ?)",
        (
            (card["id"], card["prompt"], " ".join(card.get("tags", ())), card["answer"])
            for card in document["cards"]
        ),
    )
    db.execute("COMMIT")
    db.close()
    return time.perf_counter() - started


def queue(database: Path, runs: int) -> list[float]:
    """Counts of new and due cards, reviews today, and the ids due today in order."""
    db = _connect(database)
    today = TODAY.isoformat()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        db.execute(
            "SELECT count(*) FILTER (WHERE s.due IS NULL), count(*) FILTER (WHERE s.due <= ?)"
            " FROM cardstate s JOIN card c ON c.id = s.card WHERE c.retired = 0",
            (today,),
        ).fetchone()
        db.execute("SELECT count(*) FROM review WHERE study_day = ?", (today,)).fetchone()
        db.execute(
            "SELECT s.card FROM cardstate s JOIN card c ON c.id = s.card"
            " WHERE c.retired = 0 AND s.due <= ? ORDER BY s.due, s.card",
            (today,),
        ).fetchall()
        samples.append(time.perf_counter() - started)
    db.close()
    return samples


def grade(database: Path, grades: int) -> list[float]:
    """One transaction per grade: read the state, append the review, update the state, commit
    (one fsync under ``synchronous=FULL``). What the app costs above this is Python."""
    db = _connect(database)
    day = TODAY.isoformat()
    pending = [
        pk
        for (pk,) in db.execute(
            "SELECT card FROM cardstate WHERE due <= ? ORDER BY due LIMIT ?", (day, grades)
        )
    ]
    at = (datetime.combine(TODAY, datetime.min.time()) + timedelta(hours=12)).isoformat(sep=" ")
    os.sync()  # the history just written must not be flushed inside the timed commits
    samples = []
    for pk in pending:
        started = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        ef, reps, interval, due = db.execute(
            "SELECT easiness_centi, repetitions, interval, due FROM cardstate WHERE card = ?", (pk,)
        ).fetchone()
        after = (TODAY + timedelta(days=interval + 1)).isoformat()
        db.execute(
            "INSERT INTO review (card, reviewed_at, study_day, grade, drill, duration_ms,"
            " easiness_centi_before, repetitions_before, interval_before, due_before,"
            " easiness_centi_after, repetitions_after, interval_after, due_after)"
            " VALUES (?, ?, ?, 4, 0, 4000, ?, ?, ?, ?, ?, ?, ?, ?)",
            (pk, at, day, ef, reps, interval, due, ef, reps + 1, interval + 1, after),
        )
        db.execute(
            "UPDATE cardstate SET repetitions = ?, interval = ?, due = ?, last_review_at = ?"
            " WHERE card = ?",
            (reps + 1, interval + 1, after, at, pk),
        )
        db.execute("COMMIT")
        samples.append(time.perf_counter() - started)
    db.close()
    return samples


def stats(database: Path, runs: int) -> list[float]:
    """Heatmap (reviews per day), 30-day forecast (cards due per day), retention per day."""
    db = _connect(database)
    year_ago = (TODAY - timedelta(days=365)).isoformat()
    horizon = (TODAY + timedelta(days=30)).isoformat()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        db.execute(
            "SELECT study_day, count(*), sum(grade >= 3) FROM review GROUP BY study_day"
        ).fetchall()
        db.execute(
            "SELECT s.due, count(*) FROM cardstate s JOIN card c ON c.id = s.card"
            " WHERE c.retired = 0 AND s.due <= ? GROUP BY s.due",
            (horizon,),
        ).fetchall()
        db.execute(
            "SELECT study_day, sum(grade >= 3), count(*) FROM review"
            " WHERE study_day >= ? AND drill = 0 GROUP BY study_day",
            (year_ago,),
        ).fetchall()
        samples.append(time.perf_counter() - started)
    db.close()
    return samples


_EXPORT = textwrap.dedent(
    """
    import csv, json, sqlite3, sys, time
    fmt, database = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(database)
    start = time.perf_counter()
    query = (
        "SELECT c.deck_id, c.card_id, r.* FROM review r JOIN card c ON c.id = r.card "
        "ORDER BY c.deck_id, r.reviewed_at, r.id"
    )
    with open("/dev/null", "w", encoding="utf-8") as out:
        cursor = db.execute(query)
        if fmt == "json":
            for row in cursor:
                out.write(json.dumps(row) + ",\\n")
        else:
            csv.writer(out).writerows(cursor)
    ELAPSED = time.perf_counter() - start
    """
)


def export(database: Path, fmt: str) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of dumping every review with its card id, in a fresh process.

    The floor reads the same joined rows and writes them with ``csv.writer`` / ``json.dumps``
    per row: the I/O any export must do.
    """
    return in_child(_EXPORT, fmt, str(database))


_IMPORT = textwrap.dedent(
    """
    import json, sqlite3, sys, time
    document, database, deck_id = sys.argv[1], sys.argv[2], sys.argv[3]
    db = sqlite3.connect(database, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    start = time.perf_counter()
    with open(document, encoding="utf-8") as handle:
        decks = json.load(handle)["decks"]
    db.execute("BEGIN IMMEDIATE")
    for deck in (deck for deck in decks if deck["id"] == deck_id):
        pks = dict(db.execute("SELECT card_id, id FROM card WHERE deck_id = ?", (deck["id"],)))
        db.executemany(
            "INSERT INTO review (card, reviewed_at, study_day, grade, drill, duration_ms,"
            " easiness_centi_before, repetitions_before, interval_before,"
            " easiness_centi_after, repetitions_after, interval_after)"
            " VALUES (?, ?, ?, ?, ?, ?, 250, 0, 0, 250, 0, 0)",
            (
                (pks[r["card_id"]], r["reviewed_at"], r["study_day"], r["grade"], r["drill"],
                 r["duration_ms"])
                for r in deck["reviews"]
            ),
        )
    db.execute("COMMIT")
    ELAPSED = time.perf_counter() - start
    """
)


def import_file(database: Path, document: Path, *, deck_id: str) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of parsing the same file with ``json`` and inserting one
    deck's reviews with one ``executemany``, in a fresh process: no checks, no replay, no
    triggers."""
    return in_child(_IMPORT, str(document), str(database), deck_id)


def unlock(answers: int, answer_bytes: int) -> float:
    """One Argon2id with the production parameters, then AES-256-GCM opens of every answer."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.argon2 import Argon2id

    from infracards.seal.release import PRODUCTION_KDF_PARAMS as kdf

    key = secrets.token_bytes(32)
    sealed = []
    for _ in range(answers):
        nonce = os.urandom(12)
        sealed.append((nonce, AESGCM(key).encrypt(nonce, os.urandom(answer_bytes), None)))
    started = time.perf_counter()
    Argon2id(
        salt=b"0" * 16,
        length=32,
        iterations=kdf.iterations,
        lanes=kdf.lanes,
        memory_cost=kdf.memory_kib,
    ).derive(b"card key symbols")
    cipher = AESGCM(key)
    for nonce, blob in sealed:
        cipher.decrypt(nonce, blob, None)
    return time.perf_counter() - started
