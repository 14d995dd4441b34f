"""The script contracts of interview practice: `config interview-date`, `status --json`'s
interview and study-control fields, `plan`, `suspend` / `unsuspend`, `mock --report --json`."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from infracards.cli import main
from infracards.paths import home as data_home
from infracards.scheduler import study_day
from infracards.store.db import open_store
from tests.conftest import career_mock


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def status(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, _ = run(capsys, "status", "--json")
    assert code == 0
    [deck] = json.loads(out)["decks"]
    return deck  # type: ignore[no-any-return]


def today() -> datetime:
    return datetime.now().astimezone()


def test_the_interview_date_gives_days_left_readiness_and_the_plan(
    capsys: pytest.CaptureFixture[str],
) -> None:
    day = study_day(today(), rollover_hour=4) + timedelta(days=20)
    assert run(capsys, "config", "interview-date", day.isoformat()) == (
        0,
        f"interview-date = {day.isoformat()}\n",
        "",
    )
    deck = status(capsys)
    assert deck["interview_date"] == day.isoformat() and deck["days_left"] == 20
    assert deck["readiness"] == 0.0  # nothing studied yet
    # 33 new cards, 3 reviews each before day 20: start by day 12, 13 days: ⌈33/13⌉ = 3.
    assert deck["plan_new_per_day"] == 3
    code, out, _ = run(capsys, "plan", "--json")
    plan = json.loads(out)
    assert code == 0 and plan["plan_new_per_day"] == 3 and plan["days_left"] == 20
    assert len(plan["dragging"]) == 5 and all(card["new"] for card in plan["dragging"])
    assert run(capsys, "plan", "--accept")[1] == "new-per-day = 3\n"
    assert status(capsys)["new_today"] == 3
    assert run(capsys, "config", "interview-date", "none")[0] == 0
    assert status(capsys)["interview_date"] is None


def test_the_plan_counts_sealed_cards_as_the_review_shows_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With `study-locked no`, a sealed card is a new card to plan for once its deck is
    unlocked (issue 18's rule for the counts), and not before."""
    day = study_day(today(), rollover_hour=4) + timedelta(days=20)
    assert run(capsys, "config", "interview-date", day.isoformat())[0] == 0
    assert run(capsys, "config", "study-locked", "no")[0] == 0
    assert status(capsys)["plan_new_per_day"] == 1  # q01 and q02 over 13 days
    assert run(capsys, "unlock", "GTA13-PAJRP-RFMBW-3P4BP-X5NF6-K0PVN")[0] == 0
    assert status(capsys)["plan_new_per_day"] == 3  # all 33: ⌈33/13⌉
    code, out, _ = run(capsys, "plan", "--json")
    assert (code, json.loads(out)["new_cards"]) == (0, 33)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("config", "interview-date", "2026-13-01"), "interview-date must be a date as YYYY-MM-DD"),
        (("config", "leech-threshold", "0"), "leech-threshold must be a whole number from 1"),
        (("config", "new-per-day", "²"), "new-per-day must be a whole number from 0 to 9999"),
        (("config", "rollover-hour", "٣"), "rollover-hour must be a whole number from 0 to 23"),
        (("config", "max-reviews-per-day", "many"), "from 0 to 99999, or none"),
        (("plan",), "no interview date: set one with `infracards config interview-date"),
        (("suspend", "q99"), "no card 'q99'; module03 has q01 … q33"),
        (("mock", "--questions", "0"), "--questions must be from 1 to 50"),
        (("mock", "--topic", "cooking"), "deck module03 has no topic 'cooking'; topics: career"),
        (("mock", "--deck", "nope"), "no deck 'nope' is loaded"),
    ],
)
def test_bad_input_gets_one_line_and_exit_code_1(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (1, "") and message in err and len(err.splitlines()) == 1


def test_suspend_and_unsuspend_a_card_by_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "config", "max-reviews-per-day", "none")[0] == 0
    assert run(capsys, "suspend", "q01") == (
        0,
        "module03 q01 is suspended: out of every review\n",
        "",
    )
    deck = status(capsys)
    assert (deck["suspended"], deck["new"], deck["cards"]) == (1, 32, 33)
    assert run(capsys, "unsuspend", "q01")[1] == "module03 q01 is back in the reviews\n"
    assert status(capsys)["suspended"] == 0


def test_mock_report_lists_past_sessions_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "mock", "--report", "--json") == (0, "[]\n", "")
    assert "No mock interview yet" in run(capsys, "mock", "--report")[1]
    engine = open_store(data_home())
    career_mock(engine, clock=today)
    engine.dispose()
    code, out, _ = run(capsys, "mock", "--report", "--json")
    [session] = json.loads(out)
    assert code == 0 and session["deck"] == "module03" and session["questions"] == 2
    assert session["started_at"].endswith("Z") and session["points_covered"] == 2
    assert [q["card_id"] for q in session["asked"]] in (["q01", "q02"], ["q02", "q01"])
    assert all(q["recalled"] == [0] and q["seconds_used"] == 10 for q in session["asked"])
    assert session["score"] == round(2 / session["points"], 4)
    assert "module03" in run(capsys, "mock", "--report")[1]
