"""The README's first command, `infracards`, as a new user runs it: the installed entry point
opens the app on a fresh home in a real pseudo-terminal, shows the built-in deck, and quits on q
with exit code 0. Standard library only: it runs before the test extras are installed."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import sys
import time


def main(command: str) -> int:
    pid, terminal = pty.fork()
    if pid == 0:
        os.environ.setdefault("TERM", "xterm-256color")
        os.execv(command, [command])
    screen, deadline = b"", time.monotonic() + 60
    while b"Module 03" not in screen and time.monotonic() < deadline:
        if select.select([terminal], [], [], 0.2)[0]:
            try:
                screen += os.read(terminal, 65536)
            except OSError:
                break
    if b"Module 03" not in screen:
        print(f"app smoke: the home screen never showed the built-in deck:\n{screen[-2000:]!r}")
        return 1
    os.write(terminal, b"q")
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            print(f"app smoke: infracards opened Module 03 and quit with exit code {code}")
            return code
        if select.select([terminal], [], [], 0.2)[0]:
            with contextlib.suppress(OSError):  # the app closed its terminal: it is ending
                os.read(terminal, 65536)
    print("app smoke: q did not end the app within 60 s")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
