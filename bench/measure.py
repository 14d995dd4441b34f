"""Helpers every side of the benchmark shares: a timed step in a fresh process (with its own peak
memory), and percentiles."""

from __future__ import annotations

import os
import subprocess
import sys

REPORT = (
    "\nimport re as _re\n"
    "_peak = _re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
    "print(ELAPSED, _peak)\n"
)
"""Appended to a child's code, which sets ``ELAPSED``: prints it and the child's peak RSS.

``VmHWM`` is this process's own high-water mark; ``ru_maxrss`` would report the parent's peak
when the parent was bigger (Linux carries it across fork and exec)."""


def in_child(code: str, *args: str, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(seconds the child timed, its peak RSS in MiB)."""
    out = subprocess.run(
        [sys.executable, "-c", code + REPORT, *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, peak_kib = out.stdout.split()[-2:]
    return float(seconds), int(peak_kib) / 1024


def p99(samples: list[float]) -> float:
    """The 99th percentile (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
