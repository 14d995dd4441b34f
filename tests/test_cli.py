"""The command line: exit codes (0 ok, 1 user error, 2 usage), --json, help on every command."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from infracards.cli import build_parser, main
from infracards.paths import database_path
from tests.conftest import db_rows, snapshot, write_release


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def all_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:  # argparse offers no public walk over subcommands
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += all_parsers(sub)
    return found


def test_every_command_has_help_text() -> None:
    for parser in all_parsers(build_parser()):
        assert parser.description or parser.format_help().count("\n") > 2, parser.prog
    choices = [
        action
        for parser in all_parsers(build_parser())
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
    ]
    for action in choices:
        for choice in action._choices_actions:
            assert choice.help, choice.dest


def test_help_exits_zero_and_unknown_command_exits_two(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--help")[0] == 0
    code, _, err = run(capsys, "frobnicate")
    assert code == 2 and "invalid choice" in err


def test_status_json_on_a_fresh_home(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    code, out, err = run(capsys, "status", "--json")
    assert (code, err) == (0, "")
    [deck] = json.loads(out)["decks"]
    assert deck == {
        "id": "module03",
        "title": "Module 03: 大模型分布式训练 Infra",
        "version": deck["version"],
        "cards": 33,
        "new": 33,
        "new_today": 10,
        "due_today": 0,
        "locked": 31,
        "unlocked": False,
        "key_stored": False,
        "reviews_today": 0,
        "due_within_cap": 0,
        "suspended": 0,
        "leeches": 0,
        "interview_date": None,
        "days_left": None,
        "readiness": None,
        "plan_new_per_day": None,
    }
    assert database_path(home).exists()


def test_show_free_card_prints_markdown_and_key_points(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "q01")
    assert code == 0
    assert out.startswith("# q01 · career\n\n算法和 Infra 工作有什么不同？")
    assert "## 要点" in out


def test_show_of_a_sealed_card_without_its_key_says_how_to_unlock(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "show", "q05")
    assert (code, out) == (1, "")
    assert err == (
        "infracards: the answer to q05 is sealed; unlock deck module03 with"
        " `infracards unlock` and your card key (卡密)\n"
    )


@pytest.mark.parametrize("typed", ["q13", "Q13", "13", "013"])
def test_show_takes_a_card_id_as_the_readme_writes_it(
    capsys: pytest.CaptureFixture[str], typed: str
) -> None:
    """README speaks of "Q3–Q33": any case, or the bare number where one card has it."""
    code, _, err = run(capsys, "show", typed)
    assert (code, err.splitlines()[0]) == (
        1,
        "infracards: the answer to q13 is sealed; unlock"
        " deck module03 with `infracards unlock` and your card key (卡密)",
    )
    code, out, _ = run(capsys, "show", typed.replace("13", "1"))
    assert code == 0 and out.startswith("# q01 ")


def test_a_bare_number_two_decks_share_names_both(
    capsys: pytest.CaptureFixture[str], sample_deck: Path
) -> None:
    assert run(capsys, "deck", "add", str(sample_deck))[0] == 0
    code, out, err = run(capsys, "show", "2")
    assert (code, out) == (1, "")
    assert err == (
        "infracards: card '2' could be q02 in module03 or q02 in sample; pick one with --deck\n"
    )
    code, out, _ = run(capsys, "show", "2", "--deck", "sample")
    assert code == 0 and out.startswith("# q02 · memory zero\n\nZeRO-1 切分了什么？")


def test_show_unknown_card_is_a_user_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "show", "q99")
    assert (code, out) == (1, "")
    assert err == "infracards: no card 'q99'; module03 has q01 … q33\n"
    code, _, err = run(capsys, "show", "q01", "--deck", "nope")
    assert (code, err) == (
        1,
        "infracards: no card 'q01' in deck 'nope'; see `infracards deck list`\n",
    )


def test_deck_check_good_and_bad(
    capsys: pytest.CaptureFixture[str], sample_deck: Path, tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "deck", "check", str(sample_deck))
    assert code == 0 and "4 cards (1 sealed)" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: infracards-deck/v1\nid: x\n  title: [\n", encoding="utf-8")
    code, out, err = run(capsys, "deck", "check", str(bad))
    assert code == 1 and err.startswith(f"infracards: {bad}:") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_deck_add_twice_then_list(capsys: pytest.CaptureFixture[str], sample_deck: Path) -> None:
    assert "Loaded deck sample v1: 4 cards." in run(capsys, "deck", "add", str(sample_deck))[1]
    assert "already up to date" in run(capsys, "deck", "add", str(sample_deck))[1]
    code, out, _ = run(capsys, "deck", "list", "--json")
    assert code == 0 and [d["id"] for d in json.loads(out)] == ["module03", "sample"]


def test_bad_deck_add_changes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, home: Path
) -> None:
    run(capsys, "status")
    before = snapshot(home)
    bad = tmp_path / "bad.yaml"
    bad.write_text("cards: &a [*a]\n", encoding="utf-8")
    code, _, err = run(capsys, "deck", "add", str(bad))
    assert code == 1 and "anchors and aliases" in err
    assert snapshot(home) == before


def test_config_validates_and_persists(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "config", "new-per-day", "5")[1] == "new-per-day = 5\n"
    assert "new-per-day = 5" in run(capsys, "config")[1]
    code, _, err = run(capsys, "config", "rollover-hour", "25")
    assert code == 1 and "from 0 to 23" in err
    assert run(capsys, "config", "colour", "red")[0] == 2


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("new-per-day", "abc"),
        ("new-per-day", "-1"),
        ("rollover-hour", "99"),
        ("rollover-hour", "\u0663"),  # a digit, but not one `config` writes
        ("max-reviews-per-day", ""),
        ("leech-threshold", "0"),
        ("plan-reviews", "none"),
        ("mock-minutes", "9" * 400),
        ("study-locked", "maybe"),
        ("interview-date", "2026-13-45"),
    ],
)
def test_a_hand_edited_setting_is_named_with_its_fix_and_left_as_it_is(
    capsys: pytest.CaptureFixture[str], home: Path, key: str, value: str
) -> None:
    assert_named_and_fixed(capsys, home, key, value, ("status",))


@pytest.mark.parametrize("command", [("config",), ("status", "--json"), ("stats",)])
def test_every_reading_command_names_a_hand_edited_setting(
    capsys: pytest.CaptureFixture[str], home: Path, command: tuple[str, ...]
) -> None:
    assert_named_and_fixed(capsys, home, "rollover-hour", "99", command)


def assert_named_and_fixed(
    capsys: pytest.CaptureFixture[str], home: Path, key: str, value: str, command: tuple[str, ...]
) -> None:
    assert run(capsys, "status")[0] == 0
    with closing(sqlite3.connect(database_path(home))) as db, db:
        db.execute("INSERT INTO setting (key, value) VALUES (?, ?)", (key, value))
    code, out, err = run(capsys, *command)
    assert code == 1 and not out and "Traceback" not in err
    assert f"setting {key}" in err and f"`infracards config {key} " in err
    assert db_rows(home, f"SELECT value FROM setting WHERE key = '{key}'") == [(value,)]
    fix = err.split("`infracards config ")[1].split("`")[0].split()
    assert run(capsys, "config", *fix)[0] == 0  # the fix it names works
    assert run(capsys, *command)[0] == 0


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open files in /proc")
def test_a_command_closes_its_store_when_it_returns(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    """A process that runs many commands (a script calling ``main``, this suite) keeps no
    database files open: each used to stay open until exit, two descriptors a command."""
    assert run(capsys, "status")[0] == 0
    before = len(os.listdir("/proc/self/fd"))
    for command in (("status",), ("config",), ("stats",), ("config", "rollover-hour", "25")):
        run(capsys, *command)
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_garbled_extra_new_cards_setting_counts_as_none(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    """ "More new cards today" lasts a day and is asked for again in one key: unreadable, it
    is no bonus, not an error."""
    assert run(capsys, "status")[0] == 0
    with closing(sqlite3.connect(database_path(home))) as db, db:
        db.execute("INSERT INTO setting (key, value) VALUES ('extra-new', 'soon 5')")
    code, out, _ = run(capsys, "status", "--json")
    assert code == 0 and json.loads(out)


def test_unwritable_home_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("INFRACARDS_HOME", str(blocker / "home"))
    code, _, err = run(capsys, "status")
    assert code == 1 and "set INFRACARDS_HOME to a writable folder" in err


def test_python_dash_m_runs_the_cli(home: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "infracards", "status", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["decks"][0]["id"] == "module03"


@pytest.mark.parametrize("argv", [["status"], ["--help"], ["show", "q01"]])
def test_an_output_encoding_without_chinese_is_named_not_a_traceback(
    home: Path, argv: list[str]
) -> None:
    """A latin-1 or ASCII locale cannot show the deck: say how to fix it, exit 1."""
    result = subprocess.run(
        [sys.executable, "-m", "infracards", *argv],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "latin-1"},
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.decode("latin-1") == (
        "infracards: this terminal's encoding (iso8859-1) cannot show the deck's Chinese text;"
        " use a UTF-8 locale (e.g. LANG=C.UTF-8) or set PYTHONIOENCODING=utf-8\n"
    )


@pytest.mark.parametrize("argv", [[], ["review"]])
def test_the_app_without_a_terminal_says_so_instead_of_waiting(home: Path, argv: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "infracards", *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "infracards: the app needs a terminal (standard input and error are not one); in scripts"
        " use a command such as `infracards status --json` (see `infracards --help`)\n"
    )


def test_deck_add_refuses_an_older_release_and_reports_every_change(
    capsys: pytest.CaptureFixture[str], sample_deck: Path, tmp_path: Path, home: Path
) -> None:
    v1 = sample_deck.read_text(encoding="utf-8")
    v2 = v1.replace("version: 1", "version: 2").replace("ZeRO-1 切分了什么？", "ZeRO-1 切分什么？")
    assert run(capsys, "deck", "add", str(sample_deck))[0] == 0
    write_release(sample_deck, v2)  # key slots for each release, as it ships
    code, out, _ = run(capsys, "deck", "add", str(sample_deck))
    assert (code, out) == (0, "Updated deck sample v1 → v2: updated 1 (q02). Progress kept.\n")

    before = snapshot(home)
    for older in (v2.replace("version: 2", "version: 1"), v1):
        write_release(sample_deck, older)
        code, out, err = run(capsys, "deck", "add", str(sample_deck))
        assert (code, out) == (1, "")
        assert err == (
            f"infracards: {sample_deck}: deck sample v1 is older than the v2 loaded here;"
            " nothing changed (pass --allow-older to load it anyway)\n"
        )
        assert snapshot(home) == before
    code, out, _ = run(capsys, "deck", "add", "--allow-older", str(sample_deck))
    assert (code, out) == (0, "Updated deck sample v2 → v1: updated 1 (q02). Progress kept.\n")

    write_release(sample_deck, v1.replace("title: Sample deck", "title: Sample"))
    code, out, _ = run(capsys, "deck", "add", str(sample_deck))
    assert (code, out) == (0, "Updated deck sample v1: title 'Sample'. Progress kept.\n")
    assert "Sample\n" in run(capsys, "deck", "list")[1]


ONE_CARD_EN = """\
format: infracards-deck/v1
id: one
title: One card
version: 1
language: en
cards:
  - id: c2
    prompt: "What is a ring all-reduce?"
    key_points: ["reduce-scatter, then all-gather"]
    answer: "Each rank sends 2(N-1)/N of the data."
"""


def test_counts_of_one_read_as_one_and_a_card_without_tags_has_no_dangling_dot(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    deck = tmp_path / "one.yaml"
    deck.write_text(ONE_CARD_EN, encoding="utf-8")
    assert run(capsys, "deck", "check", str(deck))[1] == (
        f"{deck}: ok — deck one v1, 1 card (0 sealed)\n"
    )
    assert run(capsys, "deck", "add", str(deck))[1] == "Loaded deck one v1: 1 card.\n"
    assert "one\tv1\t1 card\tOne card\n" in run(capsys, "deck", "list")[1]
    code, out, _ = run(capsys, "show", "c2")
    assert code == 0 and out.startswith("# c2\n\nWhat is a ring all-reduce?\n")
    # The deck is in English: so is the heading of its key points.
    assert out.endswith("\n\n## Key points\n\n- reduce-scatter, then all-gather\n")


def test_show_config_and_unlock_status_print_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "Q2", "--json")
    card = json.loads(out)
    assert code == 0 and (card["deck"], card["card_id"], card["sealed"], card["due"]) == (
        "module03",
        "q02",
        False,
        None,
    )
    assert card["tags"] == ["career", "frontier"] and card["prompt"].endswith("？")
    assert card["answer"].startswith("## 核心回答") and card["key_points"]
    assert run(capsys, "show", "q05", "--json")[:2] == (1, "")  # sealed: the same error

    assert json.loads(run(capsys, "config", "--json")[1]) == {
        "new-per-day": 10,
        "rollover-hour": 4,
        "study-locked": True,
        "max-reviews-per-day": None,
        "leech-threshold": 8,
        "interview-date": None,
        "plan-reviews": 3,
        "mock-minutes": 3,
    }
    code, out, _ = run(capsys, "config", "study-locked", "no", "--json")
    assert (code, json.loads(out)) == (0, {"study-locked": False})

    code, out, _ = run(capsys, "unlock", "--status", "--json")
    assert (code, json.loads(out)) == (
        0,
        {"decks": [{"id": "module03", "status": "locked", "key_stored": False}]},
    )
    code, out, err = run(capsys, "unlock", "--json", "GTA13")
    assert (code, out) == (1, "") and "--json goes with --status" in err


def test_import_prints_a_json_summary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run(capsys, "status")
    exported = tmp_path / "progress.json"
    assert run(capsys, "export", "-o", str(exported))[0] == 0
    document = json.loads(exported.read_text(encoding="utf-8"))
    review = {"card_id": "q01", "study_day": "2026-11-30", "grade": 4, "drill": False}
    document["decks"][0]["reviews"] = [
        {**review, "reviewed_at": "2026-11-30T02:00:00Z", "duration_ms": 900},
        {**review, "reviewed_at": "2026-11-30T02:05:00Z", "duration_ms": 800, "drill": True},
    ]
    exported.write_text(json.dumps(document), encoding="utf-8")
    summaries = [json.loads(run(capsys, "import", str(exported), "--json")[1]) for _ in "12"]
    assert summaries == [
        {
            "file": str(exported),
            "decks": ["module03"],
            "reviews_added": added,
            "reviews_already_here": 2 - added,
            "mock_sessions_added": 0,
            "cards_rescheduled": 1 if added else 0,
            "cards_suspended": 0,
            "leeches_flagged": 0,
        }
        for added in (2, 0)
    ]


def test_each_group_lists_the_commands_it_registers() -> None:
    """build_parser builds only the group a command line names, found by these names."""
    from infracards.cli import GROUPS

    parser = build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(commands.choices) == [name for names in GROUPS.values() for name in names]
    for names in GROUPS.values():
        for name in names:
            [only] = [
                a
                for a in build_parser([name])._actions
                if isinstance(a, argparse._SubParsersAction)
            ]
            assert list(only.choices) == list(names)
