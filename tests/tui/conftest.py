"""App fixtures: the real app on a real migrated database, with a fixed clock."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine
from textual.widgets import Input

from infracards.services.answers import AnswerBook
from infracards.tui.app import InfracardsApp
from infracards.tui.context import AppContext


@pytest.fixture(autouse=True)
def steady_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    """A blinking cursor makes snapshots flaky (harlequin's fixture)."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda _self: None)


@pytest.fixture
def context(engine: Engine, home: Path, now: datetime) -> AppContext:
    return AppContext(engine=engine, answers=AnswerBook(), home=home, clock=lambda: now)


@pytest.fixture
def app(context: AppContext) -> InfracardsApp:
    return InfracardsApp(context)
