"""No text of any origin reaches the terminal raw (issue 19, items 13–15).

Arguments echoed in errors, values read from files, deck text stored in the database by any
means: whatever holds control characters, escape sequences or undecodable bytes is shown
escaped and cut short, a card key is never shown in full, and invalid UTF-8 is named as such.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import unicodedata
from contextlib import closing, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infracards.cli import main
from infracards.paths import database_path
from infracards.tui.context import AppContext
from tests import terminal

UNSAFE = {"Cc", "Cf", "Cs", "Zl", "Zp"}
DEMO_KEY = "GTA13-PAJRP-RFMBW-3P4BP-X5NF6-K0PVN"
SECRET_PART = "PAJRPRFMBW3P4BPX5NF6"
"""The demo key's middle four groups: what a masked key never shows."""
LONGEST_LINE = 2_000
ESCAPES = ["\x1b[31m", "\x1b]8;;http://x.invalid\x1b\\", "\x9b2J", "\x07", "\r", "\u202e", "\udcff"]
LONE_SURROGATE = "\ud800"  # not from undecodable bytes: only JSON escapes or Python make one

hostile = st.one_of(
    st.text(st.characters(exclude_categories=()), min_size=1, max_size=40),
    st.lists(
        st.sampled_from([*ESCAPES, LONE_SURROGATE, "q01", "中文", "/", ".", " "]), min_size=1
    ).map("".join),
    st.sampled_from(["x" * 5_000_000, "\x1b" * 100_000]),
)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def assert_safe(*outputs: str) -> None:
    for text in outputs:
        bad = [c for c in text if unicodedata.category(c) in UNSAFE and c not in "\n\t"]
        assert not bad, (bad[:5], text[:300])
        assert max((len(line) for line in text.splitlines()), default=0) < LONGEST_LINE


ECHOING = [
    ["show", "{}"],
    ["show", "q01", "--deck", "{}"],
    ["lock", "--deck", "{}"],
    ["unlock", "--deck", "{}", DEMO_KEY],
    ["deck", "add", "{}"],
    ["deck", "check", "{}"],
    ["import", "{}"],
    ["import", "{}", "--deck", "{}"],
    ["export", "--deck", "{}"],
    ["export", "-o", "{}"],
    ["stats", "--deck", "{}"],
    ["config", "new-per-day", "{}"],
    ["config", "{}"],
    ["review", "--deck", "{}"],
    ["{}"],
    ["status", "{}"],
    ["publish", "secret", "{}"],
    ["publish", "seal", "{}"],
    ["publish", "revoke", "{}", "{}"],
    ["calc", "{}"],
    ["calc", "memory", "--params", "{}"],
    ["calc", "memory", "{}"],
    ["mock", "--report", "--deck", "{}"],
    ["mock", "--topic", "{}"],
    ["mock", "--deck", "{}"],
    ["plan", "--deck", "{}"],
    ["suspend", "{}"],
    ["unsuspend", "q01", "--deck", "{}"],
]


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.sampled_from(ECHOING), hostile)
def test_arguments_are_echoed_escaped_and_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], value: str
) -> None:
    monkeypatch.chdir(tmp_path)  # `export -o VALUE` writes here
    code, out, err = run(*(value if part == "{}" else part for part in command))
    assert code in (0, 1, 2)
    assert_safe(out, err)


def progress_document(**fields: object) -> dict[str, object]:
    return {"format": "infracards-progress/v1", "decks": [], **fields}


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(hostile, st.integers(min_value=0, max_value=3), st.booleans())
def test_values_from_an_imported_file_are_shown_escaped_and_cut(
    tmp_path: Path, value: str, where: int, escaped: bool
) -> None:
    document: object = [
        {"format": value},
        {"format": f"infracards-progress/{value}"},
        progress_document(decks=[{"id": value}] * 50),
        progress_document(decks=[{"id": "module03", "cards": [], "reviews": [{"card_id": value}]}]),
    ][where]
    path = tmp_path / "progress.json"
    # Raw (a lone surrogate then is invalid UTF-8) or as JSON escapes (`\\ud800` decodes).
    path.write_text(json.dumps(document, ensure_ascii=escaped), "utf-8", "surrogatepass")
    code, out, err = run("import", str(path), *(["--deck", "nope"] if where == 2 else []))
    assert code == 1
    assert_safe(out, err)


def store_hostile_text(home: Path, text: str) -> None:
    """Deck text written straight into the store, past every check the loader makes."""
    with closing(sqlite3.connect(database_path(home))) as db, db:
        db.execute("UPDATE deck SET title = ? WHERE id = 'module03'", (f"T{text}",))
        db.execute(
            "UPDATE card SET prompt = ?, answer = ?, tags = ?, key_points = ?"
            " WHERE deck_id = 'module03' AND card_id = 'q01'",
            (f"P{text}", f"A{text}\n```\n{text}\n```", f"career t{text}", json.dumps([text])),
        )


STORABLE = [escape for escape in ESCAPES if escape != "\udcff"]  # SQLite text is UTF-8


@pytest.mark.parametrize("text", [*STORABLE, "".join(STORABLE), "\x1b[2J\x1b[H\x9b31m\u2066"])
def test_deck_text_however_stored_is_printed_escaped(home: Path, text: str) -> None:
    assert run("status")[0] == 0
    store_hostile_text(home, text)
    for argv in [
        ["status"],
        ["deck", "list"],
        ["show", "q01"],
        ["stats"],
        ["unlock", "--status"],
        ["export", "--format", "md"],
        ["export", "--format", "csv"],
    ]:
        code, out, err = run(*argv)
        assert code == 0, (argv, err)
        assert_safe(out, err)
    for argv in [["status", "--json"], ["deck", "list", "--json"], ["export"]]:
        code, out, err = run(*argv)
        assert code == 0, (argv, err)
        assert_safe(out, err)
        json.loads(out)


def store_hostile_practice(home: Path, text: str) -> None:
    """The same text as q01's topic and a calculator's name, and as the notation page; an
    interview date and a mock interview, so readiness, the plan and the reports show it."""
    with closing(sqlite3.connect(database_path(home))) as db, db:
        db.execute(
            "UPDATE card SET tags = ?, calculators = ? WHERE deck_id = 'module03'"
            " AND card_id = 'q01'",
            (f"t{text} career", json.dumps([f"m{text}"])),
        )
        db.execute("UPDATE deck SET notation = ? WHERE id = 'module03'", (f"N{text}",))
        db.execute(
            "INSERT INTO mocksession (deck_id, started_at, ended_at, study_day, questions,"
            " seconds_per_question, topic) VALUES ('module03', '2026-11-30 10:00:00.000000',"
            " '2026-11-30 10:05:00.000000', '2026-11-30', 1, 180, ?)",
            (f"t{text}",),
        )
        db.execute(
            "INSERT INTO mockquestion (mock, card, position, seconds_used, timed_out, points,"
            " recalled, points_fp, notes) SELECT max(m.id), c.id, 1, 100, 0, 1, 0,"
            " '0123456789abcdef', ? FROM mocksession m, card c WHERE c.card_id = 'q01'"
            " AND c.deck_id = 'module03'",
            (f"n{text}",),
        )
    assert run("config", "interview-date", "2027-01-15")[0] == 0


@pytest.mark.parametrize("text", ["".join(STORABLE), "\x1b[2J\x1b[H\x9b31m\u2066"])
def test_stored_text_reaches_the_practice_commands_escaped(home: Path, text: str) -> None:
    assert run("status")[0] == 0
    store_hostile_text(home, text)
    store_hostile_practice(home, text)
    for argv in [
        ["status"],
        ["status", "--json"],
        ["plan"],
        ["plan", "--json"],
        ["mock", "--report"],
        ["mock", "--report", "--json"],
        ["stats"],
        ["stats", "--json"],
        ["suspend", "q01"],
        ["unsuspend", "q01"],
        ["export"],
        ["export", "--format", "csv"],
    ]:
        code, out, err = run(*argv)
        assert code == 0, (argv, err)
        assert_safe(out, err)


def test_json_output_is_the_same_value_escaped(home: Path) -> None:
    run("status")
    store_hostile_text(home, "\x1b[31m\x9b\u202e")
    [deck] = [d for d in json.loads(run("deck", "list", "--json")[1]) if d["id"] == "module03"]
    assert deck["title"] == "T\x1b[31m\x9b\u202e"
    exported = json.loads(run("export", "--deck", "module03")[1])
    assert exported["decks"][0]["cards"][0]["prompt"] == "P\x1b[31m\x9b\u202e"


async def test_the_app_draws_deck_text_however_stored_escaped(home: Path) -> None:
    from infracards.cli.common import open_home
    from infracards.services.answers import AnswerBook
    from infracards.services.settings import local_now
    from infracards.store.db import transaction
    from infracards.store.reads import find_card
    from infracards.tui.app import InfracardsApp
    from infracards.tui.context import AppContext
    from infracards.tui.screens.browse import BrowseScreen
    from infracards.tui.screens.card import CardScreen

    engine = open_home()
    store_hostile_text(home, "".join(STORABLE))
    context = AppContext(engine=engine, answers=AnswerBook(), home=home, clock=local_now)
    app = InfracardsApp(context)
    notices: list[str] = []
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        screens = [app.export_screenshot()]
        await app.push_screen(BrowseScreen(context))
        await pilot.pause()
        screens.append(app.export_screenshot())
        with transaction(engine) as session:
            [card] = find_card(session, card_id="q01", deck_id="module03")
        await app.push_screen(CardScreen(context, card_pk=card.pk))
        await pilot.pause(0.3)
        screens.append(app.export_screenshot())
        app.notify = lambda message, **_: notices.append(message)  # type: ignore[method-assign]
        app._answers_opened([], ["".join(ESCAPES)])  # a stored key's notice quotes a path
    for svg in [*screens, *notices]:
        bad = [c for c in svg if unicodedata.category(c) in UNSAFE and c not in "\n\t"]
        assert not bad, bad[:5]
    assert "\\x1b[31m" in screens[2]  # shown, visibly escaped


async def test_the_practice_screens_draw_stored_text_escaped(home: Path) -> None:
    """Home's plan, the mock interview and its report, statistics, the extra-study menu, the
    notation page and the calculator's notice, with deck text stored past every check."""
    from dataclasses import replace

    from infracards.cli.common import open_home
    from infracards.services.answers import AnswerBook
    from infracards.services.cards import lookup_card
    from infracards.services.library import notation_page
    from infracards.services.practice import practice_options
    from infracards.services.settings import local_now
    from infracards.tui.app import InfracardsApp, MockOptions
    from infracards.tui.dialogs.practice import PracticeMenu
    from infracards.tui.screens.calculator import open_calculator
    from infracards.tui.screens.mock import open_mock_screen
    from infracards.tui.screens.notation import NotationScreen
    from infracards.tui.screens.stats import StatsScreen

    engine = open_home()
    text = "".join(STORABLE)
    store_hostile_text(home, text)
    store_hostile_practice(home, text)
    context = AppContext(engine=engine, answers=AnswerBook(), home=home, clock=local_now)
    app = InfracardsApp(replace(context))
    notices: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify = lambda message, **_: notices.append(message)  # type: ignore[method-assign]
        await pilot.pause(0.5)  # Home's readiness worker
        screens = [app.export_screenshot()]
        await app.push_screen(StatsScreen(context, deck_id="module03"))
        await pilot.pause(0.5)
        screens.append(app.export_screenshot())
        app.pop_screen()
        options = practice_options(engine, deck_id="module03", now=local_now())
        await app.push_screen(PracticeMenu(options))
        await pilot.pause()
        screens.append(app.export_screenshot())
        app.pop_screen()
        page = notation_page(engine, deck_id="module03")
        assert page is not None
        await app.push_screen(NotationScreen(deck_id="module03", markdown=page))
        await pilot.pause(0.3)
        screens.append(app.export_screenshot())
        app.pop_screen()
        card = lookup_card(engine, card_id="q01", deck_id="module03")
        open_calculator(app.screen, context, card, answer_shown=False)
        mock = open_mock_screen(context, MockOptions("module03", questions=1, topic=card.topic))
        await app.push_screen(mock)
        await pilot.pause(0.3)
        mock.notify = app.notify  # type: ignore[method-assign]
        screens.append(app.export_screenshot())
        await mock.action_reveal()
        await pilot.pause(0.3)
        screens.append(app.export_screenshot())
        mock.action_leave()
        await pilot.pause(0.3)
        screens.append(app.export_screenshot())
    for svg in [*screens, *notices]:
        bad = [c for c in svg if unicodedata.category(c) in UNSAFE and c not in "\n\t"]
        assert not bad, bad[:5]
    assert any("no calculator" in notice for notice in notices)
    assert all("\\x1b[31m" in svg for svg in screens[3:])  # shown, visibly escaped


# --- item 14: a card key in the wrong place is never echoed in full --------------------------

KEY_SPELLINGS = [
    DEMO_KEY,
    DEMO_KEY.lower(),
    DEMO_KEY.replace("-", ""),
    DEMO_KEY.replace("-", " "),
    "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else "－" for c in DEMO_KEY),
]
MISPLACED = [
    ["{}"],
    ["lock", "{}"],
    ["lock", "--deck", "{}"],
    ["show", "{}"],
    ["show", "q01", "--deck", "{}"],
    ["deck", "add", "{}"],
    ["deck", "check", "{}"],
    ["deck", "list", "{}"],
    ["import", "{}"],
    ["export", "-o", "{}"],
    ["export", "--deck", "{}"],
    ["stats", "--deck", "{}"],
    ["status", "{}"],
    ["config", "{}"],
    ["config", "new-per-day", "{}"],
    ["unlock", "--deck", "{}", "{}"],
    ["unlock", "--status", "{}"],
    ["publish", "revoke", "{}", "{}"],
    ["review", "--deck", "{}"],
    ["calc", "{}"],
    ["calc", "memory", "--params", "{}"],
    ["mock", "--report", "--deck", "{}"],
    ["mock", "--topic", "{}"],
    ["plan", "--deck", "{}"],
    ["suspend", "{}"],
]


def shows_the_key(text: str) -> bool:
    normal = unicodedata.normalize("NFKC", text).upper()
    return SECRET_PART in "".join(char for char in normal if char.isalnum())


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.sampled_from(MISPLACED), st.sampled_from(KEY_SPELLINGS), st.booleans())
def test_a_misplaced_card_key_is_never_printed_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], key: str, split: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    argv: list[str] = []
    for part in command:
        argv += (key.split() if split and " " in key else [key]) if part == "{}" else [part]
    code, out, err = run(*argv)
    assert code in (0, 1, 2)
    assert not shows_the_key(out) and not shows_the_key(err), (argv, out, err)


def test_unlock_with_the_key_shows_it_masked(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run("unlock", DEMO_KEY)
    assert code == 0 and "GTA13-…-K0PVN" in out and not shows_the_key(out + err)


# --- item 15: invalid UTF-8 in arguments and at the key prompt -------------------------------


def cli_bytes(*argv: bytes, home: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "INFRACARDS_HOME": str(home), "LANG": "C.UTF-8"}
    return subprocess.run(
        [os.fsencode(sys.executable), b"-m", b"infracards", *argv],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "argv",
    [[b"show", b"q\xff\xfe"], [b"show", b"q01", b"--deck", b"\xff\xfe"], [b"unlock", b"\xff"]],
)
def test_invalid_utf8_in_an_argument_is_named_not_blamed_on_the_terminal(
    home: Path, argv: list[bytes]
) -> None:
    result = cli_bytes(*argv, home=home)
    err = result.stderr.decode("utf-8")
    assert result.returncode != 0 and result.stdout == b""
    assert "not valid UTF-8" in err and "FF" in err
    assert "terminal's encoding" not in err and "Traceback" not in err


def test_a_path_with_undecodable_bytes_still_works(home: Path, sample_deck: Path) -> None:
    odd = os.fsencode(sample_deck.parent) + b"/d\xff.yaml"
    os.rename(sample_deck, odd)
    os.rename(sample_deck.with_name("sample.keyslots.json"), odd[:-5] + b".keyslots.json")
    result = cli_bytes(b"deck", b"check", odd, home=home)
    assert result.returncode == 0, result.stderr
    assert b"d\\xff.yaml: ok" in result.stdout
    missing = cli_bytes(b"deck", b"check", odd + b"\x1b[2J", home=home)
    assert missing.returncode == 1 and b"\\xff.yaml\\x1b[2J: no such file" in missing.stderr


def test_invalid_utf8_typed_at_the_key_prompt_is_named(home: Path) -> None:
    assert cli_bytes(b"status", home=home).returncode == 0
    pid, fd = terminal.spawn("unlock")
    assert b"Card key" in terminal.read(fd, until=b"Card key", timeout=60)
    os.write(fd, b"\xff\xfeGTA13\n")
    after = terminal.read(fd, timeout=60)
    assert terminal.exit_code(pid) == 1
    assert b"not valid utf-8 text" in after and b"the bytes FF" in after
    assert b"Traceback" not in after
