"""Triton runs in its CPU interpreter here; it must be told so before it is first imported."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything here is ``-m kernels`` (and ``-m "not kernels"`` leaves it out)."""
    for item in items:
        if "tests/kernels/" in item.nodeid:
            item.add_marker(pytest.mark.kernels)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The measured max error of every kernel check, one line each."""
    from tests.kernels.numerics import MEASURED

    if not MEASURED:
        return
    terminalreporter.section("kernel errors (max |kernel - reference|)")
    for name, error, bound in MEASURED:
        terminalreporter.write_line(f"{name:<58} {error:10.3g}   bound {bound:.3g}")
