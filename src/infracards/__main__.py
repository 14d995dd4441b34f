"""The ``infracards`` command (and ``python -m infracards``).

Collection is paused before anything heavy is imported: start-up allocates a few hundred
thousand objects that live as long as the process (modules, classes, styles), and collecting
them over and over cost ~40 ms before the first card. ``cli.main`` resumes it at once for
one-shot commands; the app resumes it after its first frame (``tui.app.settle_startup_memory``).
"""

import gc
import sys
from collections.abc import Sequence


def entry(argv: Sequence[str] | None = None) -> int:
    gc.disable()
    from infracards.cli import main

    return main(argv)


if __name__ == "__main__":
    sys.exit(entry())
