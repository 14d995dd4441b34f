"""A polite kill: SIGTERM ends the real app cleanly, as `q` would."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from infracards.paths import database_path
from tests import terminal

pytestmark = pytest.mark.slow

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"


def test_sigterm_gives_the_terminal_back_and_closes_the_store(home: Path) -> None:
    pid, terminal_fd = terminal.spawn()
    shown = terminal.read(terminal_fd, until=b"Select a deck")
    assert b"Select a deck" in shown, shown[-500:]
    os.kill(pid, signal.SIGTERM)
    after = terminal.read(terminal_fd)
    assert terminal.exit_code(pid) == 128 + signal.SIGTERM
    assert LEAVE_ALTERNATE_SCREEN in after  # mouse reporting and the cursor are restored too
    assert b"Traceback" not in after
    assert not Path(f"{database_path(home)}-wal").exists()  # closed, not abandoned
