"""A few screenshots with a fixed date, deck and terminal size; review the report before updating."""

from __future__ import annotations

from typing import Any

from infracards.tui.app import InfracardsApp

SIZE = (100, 32)


def test_home(app: InfracardsApp, snap_compare: Any) -> None:
    assert snap_compare(app, terminal_size=SIZE)


def test_review_answer_revealed(app: InfracardsApp, snap_compare: Any) -> None:
    assert snap_compare(app, press=["r", "space"], terminal_size=SIZE)


def test_review_locked_card(app: InfracardsApp, snap_compare: Any) -> None:
    assert snap_compare(app, press=["r", "space", "5", "space", "5", "space"], terminal_size=SIZE)


def test_browse(app: InfracardsApp, snap_compare: Any) -> None:
    assert snap_compare(app, press=["b"], terminal_size=SIZE)


def test_review_in_an_80_column_terminal(app: InfracardsApp, snap_compare: Any) -> None:
    """Each grade button still shows what it does, its meaning wrapped onto two lines."""
    assert snap_compare(app, press=["r", "space"], terminal_size=(80, 24))
