"""The ``infracards`` command (and ``python -m infracards``).

Collection is paused before anything heavy is imported: start-up allocates a few hundred
thousand objects that live as long as the process (modules, classes, styles), and collecting
them over and over cost ~40 ms before the first card. ``cli.main`` resumes it at once for
one-shot commands; the app resumes it after its first frame (``tui.app.settle_startup_memory``).

When the command is done the heap is frozen: the interpreter's shutdown otherwise walks every
one of those objects once more (``infracards status`` took 465 ms with that walk, 330 without).
The store is closed by an exit handler (``cli.open_home``), not by that collection.
"""

import gc
import sys
from collections.abc import Sequence


def entry(argv: Sequence[str] | None = None) -> int:
    gc.disable()
    from infracards.cli import main

    code = main(argv)
    gc.freeze()
    return code


if __name__ == "__main__":
    sys.exit(entry())
