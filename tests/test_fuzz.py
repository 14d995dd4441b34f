"""Hostile input: whatever bytes come in, the only outcome is a clear error of our own type."""

from __future__ import annotations

import contextlib
import json
import os
import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infracards.deck import parse_deck
from infracards.errors import DeckError, InfracardsError, ProgressError
from infracards.paths import builtin_deck_path
from infracards.records import StudyPrefs
from infracards.seal import parse_license_key
from infracards.services.export import parse_document
from infracards.services.settings import settings_text, validate_setting
from infracards.setting_names import SETTING_NAMES

REAL_DECK = builtin_deck_path().read_bytes()[:40_000]
YAML_PIECES = [
    "- ",
    ": ",
    "[",
    "]",
    "{",
    "}",
    "&a ",
    "*a",
    "!!str ",
    "!x ",
    "'",
    '"',
    "\n",
    "  ",
    "#",
    "|",
    ">",
    "---",
    "...",
    "id",
    "q01",
    "cards",
    "prompt",
    "012",
    "no",
    "~",
    "\t",
    "\\e",
    "\x00",
    "中文",
    "%YAML 1.1\n",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(YAML_PIECES), max_size=60).map("".join))
def test_generated_yaml_only_ever_raises_deck_error(text: str) -> None:
    try:
        parse_deck(text.encode("utf-8", "surrogatepass"), path=Path("fuzz.yaml"))
    except DeckError as error:
        assert str(error).startswith("fuzz.yaml")


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=20))
def test_mutations_of_the_real_deck_only_ever_raise_deck_error(seed: int, edits: int) -> None:
    rng = random.Random(seed)
    data = bytearray(REAL_DECK)
    for _ in range(edits):
        position = rng.randrange(len(data))
        choice = rng.random()
        if choice < 0.4:
            data[position] = rng.randrange(256)
        elif choice < 0.7:
            del data[position : position + rng.randrange(1, 40)]
        else:
            data[position:position] = rng.choice(
                [b"&x ", b"*x", b"!!python/object ", b"\n  - ", b": [", b"\xff"]
            )
    with contextlib.suppress(DeckError):
        parse_deck(bytes(data), path=Path("mutant.yaml"))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_arbitrary_json_is_refused_as_a_progress_error(value: object) -> None:
    try:
        parse_document(json.dumps(value).encode(), source="in.json")
    except ProgressError as error:
        assert str(error).startswith("in.json")


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=300))
def test_any_typed_card_key_is_accepted_or_explained(typed: str) -> None:
    try:
        parse_license_key(typed)
    except InfracardsError as error:
        assert "card key" in str(error)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SETTING_NAMES), st.text(max_size=12))
def test_any_typed_setting_value_is_stored_or_explained(key: str, typed: str) -> None:
    """`config KEY VALUE` with any text: stored as what the store reads back, or refused
    with an error (a digit that int() does not take, such as "²", was a traceback)."""
    try:
        stored = validate_setting(key, typed)
    except InfracardsError:
        return
    prefs = StudyPrefs.from_settings({key: stored})  # reads back without a SettingError
    assert settings_text(prefs)[key] == stored


CLI_WORDS = [
    "status",
    "show",
    "deck",
    "add",
    "check",
    "list",
    "config",
    "export",
    "import",
    "stats",
    "unlock",
    "lock",
    "publish",
    "seal",
    "issue",
    "revoke",
    "secret",
    "--json",
    "--deck",
    "--format",
    "csv",
    "md",
    "json",
    "-o",
    "--since",
    "2025-13-40",
    "q01",
    "q99",
    "module03",
    "new-per-day",
    "-1",
    "9999",
    "rollover-hour",
    "--status",
    "--bom",
    "/nonexistent",
    "--help",
    "中文",
    "",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(CLI_WORDS), min_size=1, max_size=5).filter(
        lambda argv: argv[0] != "review"
    )
)
def test_any_command_line_ends_with_an_exit_code(argv: list[str]) -> None:
    from infracards.cli import main

    if argv[0] == "unlock" and len(argv) == 1:
        argv = [*argv, "--status"]  # a bare unlock would prompt for the key
    here = os.getcwd()
    os.chdir(tempfile.mkdtemp())  # `export -o q01` and the like write into a scratch folder
    try:
        assert main(argv) in (0, 1, 2)
    finally:
        os.chdir(here)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_license_file_is_read_or_refused_with_a_message(tmp_path_factory, data: bytes) -> None:  # type: ignore[no-untyped-def]
    from infracards.errors import LicenseError
    from infracards.seal import license_path, load_license

    home = tmp_path_factory.mktemp("home")
    path = license_path(home)
    path.write_bytes(data)
    os.chmod(path, 0o600)
    try:
        load_license(home)
    except LicenseError as error:
        assert "license" in str(error).lower() or str(path) in str(error)
    assert path.read_bytes() == data
