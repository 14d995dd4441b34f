"""Shared fixtures: every test gets its own INFRACARDS_HOME, a fixed clock and a small deck."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from infracards.cli import main
from infracards.paths import database_path
from infracards.records import RecalledPoints
from infracards.services.library import add_deck
from infracards.services.publish import create_secret, issue_keys, read_secret, seal_source
from infracards.services.study import Graded, grade_card
from infracards.store.db import open_store, transaction
from infracards.store.reads import find_card

SAMPLE_DECK = """\
format: infracards-deck/v1
id: sample
title: Sample deck
version: 1
language: zh-CN
lock:
  format: infracards-seal/v2
  aead: aes-256-gcm
  kdf: {alg: argon2id, memory_kib: 8192, iterations: 1, lanes: 1}
  commit: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
  revoked: []
  sealed: [q03]
  free: [q01, q02, q04]
cards:
  - id: q01
    prompt: "什么是 All-Reduce？"
    tags: [communication]
    key_points: ["等价于 Reduce-Scatter + All-Gather", "每卡发送 2(N-1)/N·S"]
    answer: |
      ## 核心回答
      All-Reduce 把每个 rank 的张量求和后分发给所有 rank。

      | 算法 | 每卡发送量 |
      | --- | --- |
      | Ring | 2(N−1)/N·S |

      ```python
      assert 2 * (8 - 1) / 8 == 1.75
      ```
  - id: q02
    prompt: "ZeRO-1 切分了什么？"
    tags: [memory, zero]
    answer: "切分优化器状态 (optimizer states)。"
  - id: q03
    prompt: "1F1B 的气泡率是多少？"
    tags: [pipeline]
    sealed: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIj
  - id: q04
    prompt: "TP 每层前向有几次 All-Reduce？"
    tags: [tensor-parallel, communication]
    answer: "两次：attention 之后一次，MLP 之后一次。"
"""
SAMPLE_SLOTS = '{"format":"infracards-keyslots/v1","deck":"sample","version":1,"slots":{}}'


def migrate_file(path: Path, revision: str, *, up: bool) -> None:
    """Move a database file up or down to an Alembic ``revision``, as a newer or an older
    infracards would leave it."""
    from alembic import command
    from sqlalchemy import create_engine

    from infracards.store.db import alembic_config

    config = alembic_config()
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.upgrade if up else command.downgrade)(config, revision)
    engine.dispose()


def db_rows(home: Path, sql: str) -> list[tuple[object, ...]]:
    """Rows straight from a home's database file (what is stored, whatever the app says)."""
    with closing(sqlite3.connect(database_path(home))) as db:
        return db.execute(sql).fetchall()


def write_release(path: Path, text: str) -> Path:
    """A hand-made sealed deck as a release ships it: its lock header listing the cards the
    text seals and leaves free, and key slots (none) for its deck id and version."""
    cards = re.findall(
        r"^  - id: (\S+)\n(?:    (?!sealed:|answer:).*\n)*    (sealed|answer):", text, re.M
    )
    sealed = [card_id for card_id, kind in cards if kind == "sealed"]
    free = [card_id for card_id, kind in cards if kind == "answer"]
    text = re.sub(
        r"^  sealed: \[.*\]\n  free: \[.*\]\n",
        f"  sealed: [{', '.join(sealed)}]\n  free: [{', '.join(free)}]\n",
        text,
        count=1,
        flags=re.M,
    )
    deck_id = re.search(r"^id: (\S+)$", text, re.M)
    version = re.search(r"^version: (\d+)$", text, re.M)
    assert deck_id is not None and version is not None
    path.write_text(text, encoding="utf-8")
    slots = {"format": "infracards-keyslots/v1", "deck": deck_id.group(1)}
    slots |= {"version": int(version.group(1)), "slots": {}}
    path.with_name(f"{deck_id.group(1)}.keyslots.json").write_text(json.dumps(slots), "utf-8")
    return path


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test writes only inside its own data folder (llm's pattern)."""
    home = tmp_path / "home"
    monkeypatch.setenv("INFRACARDS_HOME", str(home))
    return home


@pytest.fixture
def today() -> date:
    return date(2025, 1, 6)


@pytest.fixture
def now(today: date) -> datetime:
    return datetime(today.year, today.month, today.day, 10, 0, tzinfo=UTC)


@pytest.fixture
def sample_deck(tmp_path: Path) -> Path:
    path = tmp_path / "decks" / "sample.yaml"
    path.parent.mkdir()
    path.write_text(SAMPLE_DECK, encoding="utf-8")
    path.with_name("sample.keyslots.json").write_text(SAMPLE_SLOTS, encoding="utf-8")
    return path


@pytest.fixture
def engine(home: Path, sample_deck: Path) -> Iterator[Engine]:
    """A real, migrated database file holding the sample deck."""
    engine = open_store(home)
    add_deck(engine, sample_deck)
    yield engine
    engine.dispose()


# --- a sealed deck built by the real publisher commands (cheap KDF parameters) ---------------

SOURCE_DECK = """\
format: infracards-source/v1
id: demo
title: Demo deck
version: 1
language: zh-CN
free: [q01]
cards:
  - id: q01
    prompt: "免费题"
    tags: [career]
  - id: q02
    prompt: "什么是 1F1B？"
    tags: [pipeline]
  - id: q03
    prompt: "什么是 ZeRO-3？"
    tags: [memory]
"""


def answer(text: str) -> str:
    return f"---\nkey_points:\n  - 要点 {text}\n---\n## 核心回答\n{text}\n"


@pytest.fixture
def publisher(tmp_path: Path) -> Path:
    folder = tmp_path / "source"
    folder.mkdir()
    (folder / "deck.yaml").write_text(SOURCE_DECK, encoding="utf-8")
    for card_id, text in [
        ("q01", "公开答案"),
        ("q02", "SECRET-1F1B 先 warm-up"),
        ("q03", "SECRET-ZERO3 切分参数"),
    ]:
        (folder / f"{card_id}.md").write_text(answer(text), encoding="utf-8")
    create_secret(folder / "secret.json")
    return folder


@pytest.fixture
def keys(publisher: Path) -> list[str]:
    issued = issue_keys(
        publisher, secret=read_secret(publisher / "secret.json"), count=2, test_params=True
    )
    return [key.license_key for key in issued]


def seal(publisher: Path, out: Path) -> Path:
    return seal_source(
        publisher, secret=read_secret(publisher / "secret.json"), out_dir=out, test_params=True
    )


@pytest.fixture
def sealed_deck(
    publisher: Path, keys: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Path:
    path = seal(publisher, tmp_path / "out")
    assert main(["deck", "add", str(path)]) == 0
    capsys.readouterr()
    return path


def snapshot(home: Path) -> dict[str, object]:
    """The data folder's files and the database's rows, to prove a failed command changed nothing.

    SQLite's -shm/-wal files change on mere reads and checkpoints, so the database is compared
    by content rather than by bytes.
    """
    files: dict[str, object] = {
        path.name: path.read_bytes()
        for path in sorted(home.iterdir())
        if path.is_file() and not path.name.startswith("infracards.db")
    }
    with closing(sqlite3.connect(database_path(home))) as connection:
        files["rows"] = list(connection.iterdump())
    return files


def grade_by_id(
    engine: Engine,
    card_id: str,
    quality: int,
    *,
    now: datetime,
    today: date,
    drill: bool = False,
    deck_id: str = "sample",
    duration_ms: int = 1,
    session_id: int | None = None,
    recalled: RecalledPoints | None = None,
    practice: str | None = None,
    leech_threshold: int = 8,
) -> Graded:
    """Grade a card named by its card id, as the review screen does (real store, committed)."""
    with transaction(engine) as session:
        [card] = find_card(session, card_id=card_id, deck_id=deck_id)
    return grade_card(
        engine,
        card=card,
        quality=quality,
        drill=drill,
        now=now,
        today=today,
        duration_ms=duration_ms,
        session_id=session_id,
        recalled=recalled,
        practice=practice,
        leech_threshold=leech_threshold,
    )


def career_mock(engine: Engine, *, clock: Callable[[], datetime]) -> None:
    """A finished two-question mock interview of module03's free career cards (q01, q02), with
    the first key point of each said."""
    import random

    from infracards.services.mock import MockInterview

    ticks = iter(float(n) for n in range(0, 100, 10))
    mock = MockInterview(
        engine,
        deck_id="module03",
        clock=clock,
        timer=lambda: next(ticks),
        questions=2,
        topic="career",
        rng=random.Random(5),
    )
    mock.start()
    for _ in range(2):
        mock.reveal()
        mock.toggle_point(0)
        mock.next()
    mock.finish()
