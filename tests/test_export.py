"""Export and import: complete, lossless, idempotent, never leaking a sealed answer."""

from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime, timedelta
from pathlib import Path

import jsonschema
import pytest
from sqlalchemy import Engine

from infracards.cli import main
from infracards.errors import ProgressError
from infracards.services.cards import card_flags, lookup_card, set_card_suspended
from infracards.services.export import import_document, parse_document, write_csv, write_json
from infracards.services.library import add_deck
from infracards.store.db import open_store, transaction
from infracards.store.reads import card_history, find_card
from tests.conftest import grade_by_id

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[1] / "schemas" / "progress-v1.schema.json").read_text()
)


def grade(
    engine: Engine, card_id: str, quality: int, *, day: date, minute: int = 0, drill: bool = False
) -> None:
    moment = datetime(day.year, day.month, day.day, 9, minute).astimezone()
    grade_by_id(
        engine, card_id, quality, now=moment, today=day, drill=drill, duration_ms=1500 + minute
    )


def history(engine: Engine, today: date) -> None:
    """Three days of study: successes, a lapse, and same-day drills."""
    grade(engine, "q01", 4, day=today)
    grade(engine, "q02", 2, day=today, minute=1)
    grade(engine, "q02", 3, day=today, minute=2, drill=True)
    grade(engine, "q02", 4, day=today, minute=3, drill=True)
    grade(engine, "q01", 5, day=today + timedelta(days=1))
    grade(engine, "q02", 4, day=today + timedelta(days=1), minute=5)
    grade(engine, "q03", 3, day=today + timedelta(days=2))


def export_text(engine: Engine, **filters: object) -> str:
    out = io.StringIO()
    with transaction(engine) as session:
        write_json(session, out, now=datetime(2025, 2, 1, 12, 0).astimezone(), **filters)  # type: ignore[arg-type]
    return out.getvalue()


def without_time(text: str) -> dict:  # type: ignore[type-arg]
    document = json.loads(text)
    document.pop("exported_at")
    return document


def test_json_export_is_complete_and_valid(engine: Engine, today: date) -> None:
    history(engine, today)
    document = json.loads(export_text(engine, deck_id="sample"))
    jsonschema.validate(document, SCHEMA)
    [deck] = document["decks"]
    assert [c["card_id"] for c in deck["cards"]] == ["q01", "q02", "q03", "q04"]
    q01 = deck["cards"][0]
    assert q01["state"] == {
        "easiness": "2.60",
        "repetitions": 2,
        "interval": 6,
        "due": (today + timedelta(days=7)).isoformat(),
        "last_review_at": q01["state"]["last_review_at"],
    }
    assert [(r["card_id"], r["grade"], r["drill"]) for r in deck["reviews"]] == [
        ("q01", 4, False),
        ("q02", 2, False),
        ("q02", 3, True),
        ("q02", 4, True),
        ("q01", 5, False),
        ("q02", 4, False),
        ("q03", 3, False),
    ]
    lapse = deck["reviews"][1]
    assert lapse["before"] == {"easiness": "2.50", "repetitions": 0, "interval": 0, "due": None}
    assert lapse["after"]["easiness"] == "2.18" and lapse["duration_ms"] == 1501


def test_since_filter_keeps_only_later_reviews(engine: Engine, today: date) -> None:
    history(engine, today)
    [deck] = json.loads(export_text(engine, deck_id="sample", since=today + timedelta(days=1)))[
        "decks"
    ]
    assert len(deck["reviews"]) == 3


def test_exports_never_contain_a_sealed_answer_or_the_key(
    capsys: pytest.CaptureFixture[str],
    sealed_deck: Path,
    keys: list[str],
    home: Path,
    tmp_path: Path,
) -> None:
    assert main(["unlock", "--deck", "demo", keys[0]]) == 0
    assert main(["show", "q02", "--deck", "demo"]) == 0
    capsys.readouterr()
    for fmt in ("json", "csv", "md"):
        target = tmp_path / f"out.{fmt}"
        assert main(["export", "--format", fmt, "-o", str(target)]) == 0
        data = target.read_text(encoding="utf-8")
        assert "SECRET-" not in data, fmt
        assert keys[0] not in data and keys[0].replace("-", "") not in data, fmt
    assert "什么是 1F1B？" in (tmp_path / "out.json").read_text(
        encoding="utf-8"
    )  # prompts are public


def test_csv_has_one_row_per_review_and_an_optional_bom(
    engine: Engine, today: date, capsys: pytest.CaptureFixture[str]
) -> None:
    history(engine, today)
    out = io.StringIO()
    with transaction(engine) as session:
        write_csv(session, out, deck_id="sample")
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert len(rows) == 7 and rows[1]["grade"] == "2" and rows[2]["drill"] == "yes"
    assert rows[0]["study_day"] == today.isoformat() and rows[0]["reviewed_at"].endswith("Z")
    assert main(["export", "--format", "csv", "--bom", "--deck", "sample"]) == 0
    assert capsys.readouterr().out.startswith("\ufeffdeck_id,card_id,")


def test_round_trip_into_an_empty_home_gives_the_same_document(
    engine: Engine, today: date, sample_deck: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history(engine, today)
    first = export_text(engine, deck_id="sample")
    fresh = open_store(tmp_path / "other-home")
    from infracards.services.library import add_deck

    add_deck(fresh, sample_deck)
    with transaction(fresh) as session:
        report = import_document(session, parse_document(first.encode(), source="x"), source="x")
    assert (report.added, report.already_present, report.cards_recomputed) == (7, 0, 3)
    assert without_time(export_text(fresh, deck_id="sample")) == without_time(first)
    with transaction(fresh) as session:
        again = import_document(session, parse_document(first.encode(), source="x"), source="x")
    assert (again.added, again.already_present) == (0, 7)
    assert without_time(export_text(fresh, deck_id="sample")) == without_time(first)


def test_a_card_whose_last_review_was_a_drill_round_trips_exactly(
    engine: Engine, today: date, sample_deck: Path, tmp_path: Path
) -> None:
    """A drill changes nothing in the schedule, last_review_at included, live or replayed."""
    from infracards.services.library import add_deck

    grade(engine, "q02", 2, day=today)
    grade(engine, "q02", 4, day=today, minute=7, drill=True)
    first = export_text(engine, deck_id="sample")
    [q02] = [c for c in json.loads(first)["decks"][0]["cards"] if c["card_id"] == "q02"]
    assert q02["state"]["last_review_at"].startswith(f"{today.isoformat()}T")
    fresh = open_store(tmp_path / "other-home")
    add_deck(fresh, sample_deck)
    with transaction(fresh, write=True) as session:
        import_document(session, parse_document(first.encode(), source="x"), source="x")
    assert without_time(export_text(fresh, deck_id="sample")) == without_time(first)


def test_undo_puts_back_the_last_graded_time_not_a_drills(engine: Engine, today: date) -> None:
    from infracards.services.study import undo_grade

    before = json.loads(export_text(engine, deck_id="sample"))["decks"][0]["cards"][1]
    grade(engine, "q02", 2, day=today)
    grade(engine, "q02", 4, day=today, minute=7, drill=True)
    graded_at = json.loads(export_text(engine, deck_id="sample"))["decks"][0]["cards"][1]
    tomorrow = today + timedelta(days=1)
    moment = datetime(tomorrow.year, tomorrow.month, tomorrow.day, 9, 0).astimezone()
    later = grade_by_id(engine, "q02", 5, now=moment, today=tomorrow)
    undo_grade(engine, graded=later)
    assert json.loads(export_text(engine, deck_id="sample"))["decks"][0]["cards"][1] == graded_at
    assert graded_at["state"]["last_review_at"] != before["state"]["last_review_at"]


def test_merging_two_machines_replays_the_combined_log(
    engine: Engine, today: date, sample_deck: Path, tmp_path: Path
) -> None:
    from infracards.services.library import add_deck

    laptop = open_store(tmp_path / "laptop")
    add_deck(laptop, sample_deck)
    grade(engine, "q01", 4, day=today)  # desktop: day 1
    grade(laptop, "q01", 5, day=today + timedelta(days=1))  # laptop: day 2, never saw day 1
    with transaction(engine) as session:
        import_document(
            session,
            parse_document(export_text(laptop, deck_id="sample").encode(), source="x"),
            source="x",
        )
        [q01] = find_card(session, card_id="q01", deck_id="sample")
        log = card_history(session, pk=q01.pk)
    # Replayed in order: 4 (n=1, I=1), then 5 (n=2, I=6, EF 2.6).
    assert [e.grade for e in log] == [4, 5]
    assert (q01.state.repetitions, q01.state.interval, str(q01.state.easiness)) == (2, 6, "2.60")
    assert q01.due == today + timedelta(days=7)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (b"not json", "not a JSON progress document"),
        (b'{"format": "infracards-progress/v2", "decks": []}', "needs a newer infracards"),
        (b'{"format": "something-else", "decks": []}', "not an infracards progress export"),
        (
            b'{"format": "infracards-progress/v1", "decks": [{"id": "nope", "cards": [], "reviews": []}]}',
            "deck 'nope' is not loaded",
        ),
        (
            b'{"format": "infracards-progress/v1", "decks": [{"id": "sample", "cards": [{"card_id": "q99"}], "reviews": []}]}',
            "no card 'q99' in deck sample",
        ),
        (
            b'{"format": "infracards-progress/v1", "decks": [{"id": "sample", "cards": [], "reviews": [{"card_id": "q01", "reviewed_at": "yesterday"}]}]}',
            "is not an ISO time",
        ),
        (
            b'{"format": "infracards-progress/v1", "decks": [{"id": "sample", "cards": [], "reviews": [{"card_id": "q01", "reviewed_at": "2025-01-06T09:00:00Z", "grade": 9}]}]}',
            "not a grade from 0 to 5",
        ),
        (b'{"format": "infracards-progress/v1", "decks": NaN}', "NaN is not allowed"),
    ],
)
def test_bad_documents_change_nothing(
    engine: Engine, today: date, document: bytes, message: str
) -> None:
    history(engine, today)
    before = export_text(engine)
    with pytest.raises(ProgressError, match=message), transaction(engine) as session:
        import_document(session, parse_document(document, source="f.json"), source="f.json")
    assert without_time(export_text(engine)) == without_time(before)


def test_a_document_failing_halfway_is_rolled_back(
    engine: Engine, today: date, sample_deck: Path, tmp_path: Path
) -> None:
    history(engine, today)
    document = json.loads(export_text(engine, deck_id="sample"))
    fresh = open_store(tmp_path / "fresh")
    from infracards.services.library import add_deck

    add_deck(fresh, sample_deck)
    document["decks"][0]["reviews"][-1]["grade"] = (
        7  # the last review is bad: the first six must not land
    )
    before = without_time(export_text(fresh, deck_id="sample"))
    with pytest.raises(ProgressError), transaction(fresh) as session:
        import_document(session, document, source="f.json")
    assert without_time(export_text(fresh, deck_id="sample")) == before


def test_cli_export_to_file_and_import(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "progress.json"
    assert main(["export", "-o", str(target)]) == 0
    assert json.loads(target.read_text())["decks"][0]["id"] == "module03"
    code = main(["import", str(target)])
    assert code == 0 and "Imported 0 reviews into module03" in capsys.readouterr().out
    assert main(["import", str(target), "--deck", "module03"]) == 0
    assert "Imported 0 reviews into module03" in capsys.readouterr().out
    assert main(["import", str(target), "--deck", "nope"]) == 1
    assert "no progress for deck 'nope' (it has module03)" in capsys.readouterr().err
    assert main(["import", str(tmp_path / "missing.json")]) == 1
    capsys.readouterr()
    assert main(["export", "--since", "yesterday"]) == 2
    assert "--since: 'yesterday' is not a date as YYYY-MM-DD" in capsys.readouterr().err


def test_one_deck_of_a_file_can_be_imported_alone(
    engine: Engine, today: date, sample_deck: Path, tmp_path: Path
) -> None:
    """A file from a home with a deck not loaded here: refused as a whole, or one deck of it."""
    history(engine, today)
    document = json.loads(export_text(engine, deck_id="sample"))
    document["decks"].insert(0, {"id": "elsewhere", "cards": [], "reviews": []})
    fresh = open_store(tmp_path / "fresh")
    from infracards.services.library import add_deck

    add_deck(fresh, sample_deck)
    refused = pytest.raises(ProgressError, match="or import the other decks alone with --deck")
    with refused, transaction(fresh) as session:
        import_document(session, document, source="f.json")
    with transaction(fresh) as session:
        report = import_document(session, document, source="f.json", only_deck="sample")
    assert report.decks == ("sample",) and report.added == len(document["decks"][1]["reviews"])
    assert without_time(export_text(fresh, deck_id="sample")) == without_time(
        export_text(engine, deck_id="sample")
    )
    absent = pytest.raises(
        ProgressError, match=r"no progress for deck 'nope' \(it has elsewhere, sample\)"
    )
    with absent, transaction(fresh) as session:
        import_document(session, document, source="f.json", only_deck="nope")


def practice_history(engine: Engine, today: date, now: datetime) -> None:
    """A review with a key-point check, a cram review, and a mock interview (one question
    counted as a review, one with notes)."""
    import random

    from infracards.records import RecalledPoints
    from infracards.services.mock import MockInterview

    checked = RecalledPoints(2, frozenset({1}), "00112233445566ff")
    grade_by_id(engine, "q01", 4, now=now, today=today, recalled=checked)
    grade_by_id(engine, "q02", 2, now=now + timedelta(minutes=1), today=today, practice="cram")
    ticks = iter([100.0, 130.0, 130.0, 190.0, 190.0])
    mock = MockInterview(
        engine,
        deck_id="sample",
        clock=lambda: now + timedelta(hours=1),
        timer=lambda: next(ticks),
        questions=2,
        rng=random.Random(1),
    )
    mock.start()
    mock.reveal()
    mock.toggle_point(0)
    mock.notes = "我的笔记: ring"
    if mock.check is not None:
        mock.count_as_review(3)
    mock.next()
    mock.reveal()
    mock.next()
    mock.finish()


def test_key_point_checks_practice_and_mock_interviews_round_trip_against_the_schema(
    engine: Engine, today: date, now: datetime, sample_deck: Path, tmp_path: Path
) -> None:
    practice_history(engine, today, now)
    first = export_text(engine, deck_id="sample")
    document = json.loads(first)
    jsonschema.validate(document, SCHEMA)
    [deck] = document["decks"]
    [checked] = [r for r in deck["reviews"] if r["card_id"] == "q01" and not r.get("practice")][:1]
    assert checked["key_points"]["count"] == 2 and checked["key_points"]["recalled"] in ([1], [0])
    [cram] = [r for r in deck["reviews"] if r.get("practice")]
    assert (cram["practice"], cram["drill"], cram["before"] == cram["after"]) == (
        "cram",
        True,
        True,
    )
    [mock] = deck["mock_sessions"]
    assert len(mock["asked"]) == 2 and mock["asked"][0]["notes"] == "我的笔记: ring"
    fresh = open_store(tmp_path / "other-home")
    from infracards.services.library import add_deck

    add_deck(fresh, sample_deck)
    for added in (1, 0):  # importing twice adds the mock interview once
        with transaction(fresh) as session:
            report = import_document(
                session, parse_document(first.encode(), source="x"), source="x"
            )
        assert report.mock_sessions == added
    assert without_time(export_text(fresh, deck_id="sample")) == without_time(first)


def test_a_document_without_the_new_fields_still_imports_and_validates(
    engine: Engine, today: date
) -> None:
    """Version 1 documents written before key points and mock interviews stay valid."""
    history(engine, today)
    document = json.loads(export_text(engine, deck_id="sample"))
    assert all(
        "key_points" not in r and "practice" not in r for r in document["decks"][0]["reviews"]
    )
    assert "mock_sessions" not in document["decks"][0]
    jsonschema.validate(document, SCHEMA)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "key_points",
            {"count": 2, "recalled": [2], "fingerprint": "00112233445566ff"},
            "recalled",
        ),
        ("key_points", {"count": 0, "recalled": [], "fingerprint": "00112233445566ff"}, "count"),
        ("key_points", {"count": 2, "recalled": [0], "fingerprint": "secret text"}, "fingerprint"),
        ("practice", "sleep", "practice"),
    ],
)
def test_a_bad_key_point_check_or_practice_kind_is_refused_with_its_path(
    engine: Engine, field: str, value: object, message: str
) -> None:
    review = {
        "card_id": "q01",
        "reviewed_at": "2025-01-04T09:00:00Z",
        "study_day": "2025-01-04",
        "grade": 4,
        "drill": True,
        "duration_ms": 5,
        field: value,
    }
    document = {
        "format": "infracards-progress/v1",
        "decks": [{"id": "sample", "cards": [], "reviews": [review]}],
    }
    with (
        pytest.raises(ProgressError, match=rf"reviews\[0\].*{message}"),
        transaction(engine) as session,
    ):
        import_document(session, document, source="x")


def test_suspended_and_leech_flags_travel_and_an_import_never_clears_one(
    engine: Engine,
    today: date,
    sample_deck: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    history(engine, today)  # q02 lapsed once
    moment = datetime(2025, 1, 9, 9, 0).astimezone()
    lapse = grade_by_id(engine, "q02", 1, now=moment, today=moment.date(), leech_threshold=2)
    assert lapse.leech  # its second lapse: flagged as a leech, and suspended
    set_card_suspended(engine, card_id="q03", suspended=True, deck_id="sample")
    document = json.loads(export_text(engine, deck_id="sample"))
    jsonschema.validate(document, SCHEMA)
    flags = {
        card["card_id"]: {key for key in ("suspended", "leech") if card.get(key)}
        for card in document["decks"][0]["cards"]
    }
    assert flags == {
        "q01": set(),
        "q02": {"suspended", "leech"},
        "q03": {"suspended"},
        "q04": set(),
    }
    target = tmp_path / "progress.json"
    target.write_text(json.dumps(document), encoding="utf-8")

    other = tmp_path / "other-home"
    monkeypatch.setenv("INFRACARDS_HOME", str(other))
    fresh = open_store(other)
    add_deck(fresh, sample_deck)
    # Suspended here only: the import keeps it so.
    set_card_suspended(fresh, card_id="q04", suspended=True, deck_id="sample")
    capsys.readouterr()
    assert main(["import", str(target)]) == 0
    said = capsys.readouterr().out
    assert "2 cards suspended; 1 card flagged as a leech." in said
    assert main(["import", str(target), "--json"]) == 0  # again: nothing left to flag
    again = json.loads(capsys.readouterr().out)
    assert (again["cards_suspended"], again["leeches_flagged"]) == (0, 0)

    def flags_here(card_id: str) -> tuple[bool, bool]:
        suspended, leech, _buried = card_flags(
            fresh, pk=lookup_card(fresh, card_id=card_id, deck_id="sample").pk
        )
        return suspended, leech

    assert [flags_here(card) for card in ("q01", "q02", "q03", "q04")] == [
        (False, False),
        (True, True),
        (True, False),
        (True, False),
    ]
    fresh.dispose()


@pytest.mark.parametrize("field", ["suspended", "leech"])
def test_a_flag_that_is_not_true_or_false_is_refused_with_its_path(
    engine: Engine, field: str
) -> None:
    document = {
        "format": "infracards-progress/v1",
        "decks": [{"id": "sample", "cards": [{"card_id": "q01", field: 1}], "reviews": []}],
    }
    with (
        pytest.raises(ProgressError, match=rf"cards\[0\]\.{field}: expected true or false"),
        transaction(engine) as session,
    ):
        import_document(session, document, source="x")
    q01 = lookup_card(engine, card_id="q01", deck_id="sample")
    assert card_flags(engine, pk=q01.pk) == (False, False, None)


@pytest.mark.parametrize("fmt", ["json", "csv", "md"])
@pytest.mark.parametrize("to_file", [False, True], ids=["stdout", "file"])
def test_export_of_an_unknown_deck_writes_nothing_and_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str, to_file: bool
) -> None:
    target = tmp_path / f"out.{fmt}"
    argv = ["export", "--format", fmt, "--deck", "nope", *(["-o", str(target)] if to_file else [])]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert out == "" and not target.exists()
    assert err == "infracards: no deck 'nope' is loaded; see `infracards deck list`\n"
    assert list(tmp_path.iterdir()) == [tmp_path / "home"]  # no temporary file left either
