"""Layering: nothing outside ``tui`` imports Textual (harlequin's subprocess check)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEADLESS = [
    "scheduler",
    "calc",
    "deck",
    "store.queries",
    "store.db",
    "records",
    "services.study",
    "services.library",
    "services.answers",
    "services.unlock",
    "services.export",
    "services.report",
    "services.review",
    "services.keypoints",
    "services.mock",
    "services.plan",
    "services.practice",
    "services.statistics",
    "cli",
    "seal",
    "terminal_text",
    "card_text",
    "key_checksum",
    "files",
]


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_modules_do_not_import_textual(module: str) -> None:
    code = f"import sys, infracards.{module}; print('textual' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_the_scheduler_knows_no_database_or_clock() -> None:
    code = "import sys, infracards.scheduler; print(sorted(m for m in ('sqlalchemy', 'sqlmodel', 'yaml') if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
