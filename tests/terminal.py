"""The real ``infracards`` command in a pseudo-terminal of its own, as a learner runs it."""

from __future__ import annotations

import os
import pty
import select
import sys
import time


def spawn(*argv: str) -> tuple[int, int]:
    """Start ``python -m infracards ARGV`` in a new terminal: its pid and the terminal's fd."""
    pid, terminal = pty.fork()
    if pid == 0:  # the child: the real entry point
        os.execv(sys.executable, [sys.executable, "-m", "infracards", *argv])
    return pid, terminal


def read(terminal: int, *, until: bytes | None = None, timeout: float = 30) -> bytes:
    """What the app draws, until ``until`` appears or (None) the app closes its terminal."""
    output = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (until is None or until not in output):
        ready, _, _ = select.select([terminal], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(terminal, 65536)
            except OSError:  # the child closed the terminal: it has ended
                break
            if not chunk:
                break
            output += chunk
    return output


def exit_code(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
