"""Imports at the edges (issue 19, items 3 and 4): every field range-checked with its JSON path,
due dates that stop at the calendar's end, and a replay that is linear in a card's history."""

from __future__ import annotations

import cProfile
import io
import json
import pstats
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from infracards.cli import main
from infracards.errors import ProgressError
from infracards.records import MAX_DURATION_MS
from infracards.scheduler import MAX_INTERVAL_DAYS
from infracards.services.export import export_progress, import_progress, parse_document
from infracards.store.db import transaction
from infracards.store.reads import card_history, find_card
from tests.conftest import snapshot


def review(**fields: Any) -> dict[str, Any]:
    entry = {
        "card_id": "q01",
        "reviewed_at": "2025-01-06T09:00:00Z",
        "study_day": "2025-01-06",
        "grade": 4,
        "drill": False,
        "duration_ms": 1500,
    }
    return {**entry, **fields}


def document(*reviews: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": "infracards-progress/v1",
        "decks": [{"id": "sample", "cards": [], "reviews": list(reviews)}],
    }


def export_text(engine: Engine) -> str:
    out = io.StringIO()
    export_progress(engine, out, fmt="json", now=datetime(2025, 2, 1, tzinfo=UTC))
    return out.getvalue()


def import_doc(engine: Engine, doc: dict[str, Any]) -> None:
    parsed = parse_document(json.dumps(doc).encode(), source="in.json")
    import_progress(engine, parsed, source="in.json")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("duration_ms", 10**20, "is not a duration from 0 to"),
        ("duration_ms", 2**63, "is not a duration from 0 to"),
        ("duration_ms", -1, "is not a duration from 0 to"),
        ("duration_ms", 1e20, "expected int"),
        ("reviewed_at", "0001-01-01T00:00:00+01:00", "outside the years 1 to 9999 in UTC"),
        ("reviewed_at", "9999-12-31T23:59:59-01:00", "outside the years 1 to 9999 in UTC"),
        ("grade", 2**70, "is not a grade from 0 to 5"),
    ],
)
def test_an_out_of_range_field_is_named_by_its_path(
    engine: Engine, home: Path, field: str, value: object, message: str
) -> None:
    before = snapshot(home)
    with pytest.raises(ProgressError) as refused:
        import_doc(engine, document(review(), review(**{"grade": 5, field: value})))
    text = str(refused.value)
    assert text.startswith(f"in.json: decks[0].reviews[1].{field}: "), text
    assert message in text and text.endswith("nothing was imported")
    assert snapshot(home) == before


def test_the_last_study_day_of_the_calendar_imports(engine: Engine) -> None:
    """study_day 9999-12-31: the next due date would pass 9999-12-31; it stops there."""
    import_doc(engine, document(review(study_day="9999-12-31")))
    with transaction(engine) as session:
        [card] = find_card(session, card_id="q01", deck_id="sample")
    assert card.due == date.max


def test_fourteen_perfect_grades_cap_the_interval_instead_of_overflowing(engine: Engine) -> None:
    """SM-2's interval passes the last representable date after 14 perfect grades in a row."""
    start = datetime(2025, 1, 6, 9, tzinfo=UTC)
    reviews = [
        review(
            reviewed_at=(start + timedelta(days=n)).isoformat(),
            study_day=(start + timedelta(days=n)).date().isoformat(),
            grade=5,
        )
        for n in range(30)
    ]
    import_doc(engine, document(*reviews))
    with transaction(engine) as session:
        [card] = find_card(session, card_id="q01", deck_id="sample")
        history = card_history(session, pk=card.pk)
    intervals = [entry.interval_after for entry in history]
    assert intervals[:6] == [1, 6, 17, 48, 140, 420]  # SM-2 exactly, below the horizon
    assert max(intervals) == MAX_INTERVAL_DAYS == intervals[-1]
    assert card.state.interval == MAX_INTERVAL_DAYS and card.due is not None


def test_the_cli_refuses_an_overflow_in_one_line(
    capsys: pytest.CaptureFixture[str], engine: Engine, tmp_path: Path
) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(document(review(duration_ms=2**63))), encoding="utf-8")
    assert main(["import", str(path)]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "reviews[0].duration_ms" in err


# Values at and past the edges of every field an import reads.
edge_times = st.one_of(
    st.datetimes(timezones=st.timezones()).map(lambda moment: moment.isoformat()),
    st.sampled_from(
        [
            "0001-01-01T00:00:00+01:00",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59-01:00",
            "9999-12-31T23:59:59.999999+00:00",
            "2025-01-06T09:00:00",
            "not a time",
        ]
    ),
)
edge_days = st.one_of(
    st.dates().map(date.isoformat), st.sampled_from(["9999-12-31", "0001-01-01", "2025-02-30"])
)
edge_ints = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 5, 6, -1, 2**63 - 1, 2**63, MAX_DURATION_MS, MAX_DURATION_MS + 1]),
)
fields = st.fixed_dictionaries(
    {
        "card_id": st.sampled_from(["q01", "q02", "q04", "q99"]),
        "reviewed_at": edge_times,
        "study_day": edge_days,
        "grade": st.one_of(
            st.integers(0, 5),
            edge_ints,
            st.floats(allow_nan=False, allow_infinity=False),
            st.booleans(),
        ),
        "drill": st.one_of(st.booleans(), st.integers(0, 1)),
        "duration_ms": st.one_of(edge_ints, st.floats(allow_nan=False, allow_infinity=False)),
    }
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(fields, min_size=1, max_size=20))
def test_any_review_values_import_or_are_refused_with_their_path(
    engine: Engine, reviews: list[dict[str, Any]]
) -> None:
    try:
        import_doc(engine, document(*reviews))
    except ProgressError as error:
        assert str(error).startswith("in.json: decks[0].reviews["), str(error)
        return
    with transaction(engine) as session:
        for card_id in ("q01", "q02", "q04"):
            [card] = find_card(session, card_id=card_id, deck_id="sample")
            assert card.state.interval <= MAX_INTERVAL_DAYS


# --- the optional fields: key-point checks, practice reviews, mock interviews -------------------

CHECK = {"count": 2, "recalled": [1], "fingerprint": "00112233445566ff"}


def mock_session(**fields: Any) -> dict[str, Any]:
    question = {
        "card_id": "q01",
        "position": 1,
        "seconds_used": 100,
        "timed_out": False,
        "key_points": CHECK,
        "notes": "ring",
        "counted_review_at": None,
    }
    asked = fields.pop("asked", [question])
    session = {
        "started_at": "2025-01-06T10:00:00Z",
        "ended_at": "2025-01-06T10:05:00Z",
        "study_day": "2025-01-06",
        "questions": 2,
        "seconds_per_question": 180,
        "topic": None,
        "asked": asked,
    }
    return {**session, **fields}


def with_mocks(*sessions: dict[str, Any]) -> dict[str, Any]:
    doc = document(review())
    doc["decks"][0]["mock_sessions"] = list(sessions)
    return doc


@pytest.mark.parametrize(
    ("fields", "path", "message"),
    [
        ({"key_points": {**CHECK, "count": 65}}, "key_points.count", "a number of points"),
        ({"key_points": {**CHECK, "count": 2**63}}, "key_points.count", "a number of points"),
        ({"key_points": {**CHECK, "recalled": [0, 2]}}, "key_points.recalled[1]", "index"),
        ({"key_points": {**CHECK, "recalled": [True]}}, "key_points.recalled[0]", "index"),
        (
            {"key_points": {**CHECK, "fingerprint": "00112233445566ff\n"}},
            "key_points.fingerprint",
            "hex",
        ),
        ({"key_points": "all of them"}, "key_points", "expected dict"),
        ({"practice": "later", "drill": True}, "practice", "is not one of ahead, cram, final"),
        ({"practice": 3, "drill": True}, "practice", "expected str"),
        ({"practice": "cram"}, "drill", "a practice review is logged as a drill"),
    ],
)
def test_an_out_of_range_check_or_practice_kind_is_named_by_its_path(
    engine: Engine, home: Path, fields: dict[str, Any], path: str, message: str
) -> None:
    before = snapshot(home)
    with pytest.raises(ProgressError) as refused:
        import_doc(engine, document(review(), review(grade=5, **fields)))
    text = str(refused.value)
    assert text.startswith(f"in.json: decks[0].reviews[1].{path}: "), text
    assert message in text
    assert snapshot(home) == before


def asked(**fields: Any) -> dict[str, Any]:
    return {**mock_session()["asked"][0], **fields}


@pytest.mark.parametrize(
    ("fields", "path", "message"),
    [
        ({"questions": 0}, "questions", "a number of questions from 1 to 50"),
        ({"questions": 2**63}, "questions", "a number of questions from 1 to 50"),
        ({"seconds_per_question": 0}, "seconds_per_question", "from 1 to 3600"),
        ({"seconds_per_question": 10**20}, "seconds_per_question", "from 1 to 3600"),
        ({"topic": ""}, "topic", "a topic of 1 to 64 characters"),
        ({"topic": 7}, "topic", "expected str"),
        ({"ended_at": 5}, "ended_at", "expected str"),
        ({"ended_at": "9999-12-31T23:59:59-01:00"}, "ended_at", "outside the years 1 to 9999"),
        ({"started_at": "yesterday"}, "started_at", "is not an ISO time"),
        ({"asked": [asked(position=0)]}, "asked[0].position", "from 1 to 2"),
        ({"asked": [asked(position=3)]}, "asked[0].position", "from 1 to 2"),
        ({"asked": [asked(), asked()]}, "asked[1].position", "another question has this position"),
        ({"asked": [asked(seconds_used=-1)]}, "asked[0].seconds_used", "a time in seconds"),
        ({"asked": [asked(seconds_used=2**70)]}, "asked[0].seconds_used", "a time in seconds"),
        ({"asked": [asked(notes="x" * 70_000)]}, "asked[0].notes", "longer than"),
        ({"asked": [asked(card_id="q99")]}, "asked[0]", "no card 'q99' in deck sample"),
        (
            {"asked": [asked(counted_review_at="soon")]},
            "asked[0].counted_review_at",
            "is not an ISO time",
        ),
        (
            {"asked": [asked(key_points={**CHECK, "count": 0})]},
            "asked[0].key_points.count",
            "a number of points",
        ),
    ],
)
def test_an_out_of_range_mock_interview_is_named_by_its_path(
    engine: Engine, home: Path, fields: dict[str, Any], path: str, message: str
) -> None:
    before = snapshot(home)
    with pytest.raises(ProgressError) as refused:
        import_doc(engine, with_mocks(mock_session(), mock_session(**fields)))
    text = str(refused.value)
    assert text.startswith(f"in.json: decks[0].mock_sessions[1].{path}"), text
    assert message in text
    assert snapshot(home) == before


def test_a_mock_interview_already_here_is_still_checked(engine: Engine) -> None:
    """Matched by its start time it is not added again, but a damaged copy is refused."""
    import_doc(engine, with_mocks(mock_session()))
    with pytest.raises(ProgressError, match=r"mock_sessions\[0\]\.asked\[0\]\.position"):
        import_doc(engine, with_mocks(mock_session(asked=[asked(position=9)])))


def test_replay_keeps_checks_and_practice_and_the_last_time_skips_drills(engine: Engine) -> None:
    """The linear replay writes what the log says: key-point checks stay on their reviews, a
    practice review replays as a drill, and the card's last review time is its last graded one."""
    import_doc(
        engine,
        document(
            review(key_points=CHECK),
            review(
                reviewed_at="2025-01-07T09:00:00Z",
                study_day="2025-01-07",
                grade=1,
                drill=True,
                practice="cram",
            ),
        ),
    )
    deck = json.loads(export_text(engine))["decks"][0]
    first, cram = deck["reviews"]
    assert first["key_points"] == CHECK and cram["practice"] == "cram"
    assert cram["before"] == cram["after"] == first["after"]  # the cram moved nothing
    [q01] = [card for card in deck["cards"] if card["card_id"] == "q01"]
    assert q01["state"]["repetitions"] == 1 and q01["state"]["interval"] == 1
    assert q01["state"]["last_review_at"] == first["reviewed_at"]


check_values = st.fixed_dictionaries(
    {
        "count": st.one_of(st.integers(0, 66), edge_ints),
        "recalled": st.lists(st.one_of(st.integers(-1, 66), st.booleans()), max_size=4),
        "fingerprint": st.sampled_from(["00112233445566ff", "0011", "00112233445566FF", ""]),
    }
)
optional_fields = st.fixed_dictionaries(
    {},
    optional={
        "key_points": st.one_of(st.none(), check_values),
        "practice": st.one_of(st.none(), st.sampled_from(["ahead", "cram", "final", "x"])),
    },
)
mock_values = st.fixed_dictionaries(
    {
        "started_at": edge_times,
        "ended_at": st.one_of(st.none(), edge_times, st.integers()),
        "study_day": edge_days,
        "questions": edge_ints,
        "seconds_per_question": edge_ints,
        "topic": st.one_of(st.none(), st.text(max_size=70), st.integers()),
        "asked": st.lists(
            st.fixed_dictionaries(
                {
                    "card_id": st.sampled_from(["q01", "q02", "q99"]),
                    "position": st.one_of(st.integers(0, 4), edge_ints),
                    "seconds_used": edge_ints,
                    "timed_out": st.booleans(),
                    "key_points": st.one_of(st.none(), check_values),
                    "notes": st.text(max_size=20),
                    "counted_review_at": st.one_of(st.none(), edge_times),
                }
            ),
            max_size=3,
        ),
    }
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(
        st.tuples(fields, optional_fields).map(lambda pair: {**pair[0], **pair[1]}), max_size=8
    ),
    st.lists(mock_values, max_size=3),
)
def test_any_check_practice_or_mock_values_import_or_are_refused_with_their_path(
    engine: Engine, reviews: list[dict[str, Any]], mocks: list[dict[str, Any]]
) -> None:
    doc = document(*reviews)
    doc["decks"][0]["mock_sessions"] = mocks
    try:
        import_doc(engine, doc)
    except ProgressError as error:
        assert str(error).startswith(
            ("in.json: decks[0].reviews[", "in.json: decks[0].mock_sessions[")
        ), str(error)


# --- item 4: replay is linear in one card's history ------------------------------------------


def one_card_document(reviews: int) -> dict[str, Any]:
    start = datetime(2000, 1, 1, 9, tzinfo=UTC)
    grades = (5, 4, 3, 2, 5, 4, 1, 5)
    return document(
        *(
            review(
                reviewed_at=(start + timedelta(hours=6 * n)).isoformat(),
                study_day=(start + timedelta(hours=6 * n)).date().isoformat(),
                grade=grades[n % len(grades)],
            )
            for n in range(reviews)
        )
    )


def calls_to_import(engine: Engine, doc: dict[str, Any]) -> int:
    """Python function calls an import makes: a count, unlike a time, is the same on any machine."""
    parsed = parse_document(json.dumps(doc).encode(), source="in.json")
    profile = cProfile.Profile()
    profile.enable()
    import_progress(engine, parsed, source="in.json")
    profile.disable()
    return pstats.Stats(profile).total_calls  # type: ignore[attr-defined,no-any-return]


def test_replaying_one_card_grows_linearly_with_its_history(
    engine: Engine, sample_deck: Path, tmp_path: Path
) -> None:
    """Before: 2,000 reviews of one card took 14 s, 4,000 took 59 s and 8,000 232 s (each
    review's update walked every review loaded before it)."""
    from infracards.services.library import add_deck
    from infracards.store.db import open_store

    small = calls_to_import(engine, one_card_document(500))
    other = open_store(tmp_path / "other-home")
    add_deck(other, sample_deck)
    large = calls_to_import(other, one_card_document(2000))
    assert large < 4.5 * small, (small, large)
    with transaction(other) as session:
        [card] = find_card(session, card_id="q01", deck_id="sample")
        assert len(card_history(session, pk=card.pk)) == 2000
