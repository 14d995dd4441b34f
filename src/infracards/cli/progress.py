"""Progress: `stats`, `export` and `import`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import IO, TYPE_CHECKING

from infracards.cli.common import open_home, open_reader, print_json
from infracards.errors import InfracardsError

if TYPE_CHECKING:
    from infracards.cli.common import Commands


COMMANDS = ("stats", "export", "import")
"""What ``register`` adds (the parser is built only for the group a command line names)."""


def register(commands: Commands) -> None:
    stats = commands.add_parser(
        "stats", help="review calendar, streaks, 30-day forecast, retention and EF per topic"
    )
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.add_argument("--deck", help="only this deck (default: all decks)")
    stats.set_defaults(handler=run_stats)

    export = commands.add_parser(
        "export",
        help="write your progress: JSON (default), the review log as CSV, or a Markdown report",
        description="Exports never contain an answer's text or your card key.",
    )
    export.add_argument(
        "--format", choices=["json", "csv", "md"], default="json", help="default: json"
    )
    export.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write here (default: stdout)"
    )
    export.add_argument("--deck", help="only this deck")
    export.add_argument(
        "--since",
        type=date.fromisoformat,
        metavar="YYYY-MM-DD",
        help="reviews from this study day on",
    )
    export.add_argument(
        "--bom", action="store_true", help="start the CSV with a UTF-8 BOM, for Excel"
    )
    export.set_defaults(handler=run_export)

    importer = commands.add_parser(
        "import",
        help="merge a JSON progress export into this home (safe to repeat)",
        description="Reviews are matched by deck, card and time; each changed card's schedule is "
        "recomputed from its whole log. A damaged or foreign file changes nothing.",
    )
    importer.add_argument("path", type=Path, metavar="FILE")
    importer.add_argument("--deck", help="import only this deck's progress from the file")
    importer.add_argument("--json", action="store_true", help="print a JSON summary")
    importer.set_defaults(handler=run_import)


def run_stats(args: argparse.Namespace) -> int:
    from infracards.services.formatting import stats_document, stats_report
    from infracards.services.settings import local_now
    from infracards.services.statistics import load_stats

    stats = load_stats(open_reader(), now=local_now(), deck_id=args.deck)
    if args.json:
        print_json(stats_document(stats))
    else:
        print(stats_report(stats))
    return 0


def run_export(args: argparse.Namespace) -> int:
    from infracards.services.export import export_progress
    from infracards.services.settings import local_now

    engine = open_home()

    def write(out: IO[str]) -> None:
        export_progress(
            engine,
            out,
            fmt=args.format,
            now=local_now(),
            deck_id=args.deck,
            since=args.since,
            bom=args.bom,
        )

    if args.output is None:
        write(sys.stdout)
    else:
        write_file_atomically(args.output, write)
        print(f"Wrote {args.output}", file=sys.stderr)
    return 0


def write_file_atomically(path: Path, write: Callable[[IO[str]], None]) -> None:
    """Write through a temporary file and rename it, so a failure leaves no half-written file."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        with temporary.open("w", encoding="utf-8", newline="") as out:
            write(out)
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise InfracardsError(f"cannot write {path} ({error.strerror})") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def run_import(args: argparse.Namespace) -> int:
    from infracards.services.export import import_progress, read_progress
    from infracards.services.formatting import plural

    document = read_progress(args.path)
    report = import_progress(open_home(), document, source=str(args.path), only_deck=args.deck)
    if args.json:
        print_json(
            {
                "file": str(args.path),
                "decks": list(report.decks),
                "reviews_added": report.added,
                "reviews_already_here": report.already_present,
                "cards_rescheduled": report.cards_recomputed,
            }
        )
        return 0
    print(
        f"Imported {plural(report.added, 'review')} into {', '.join(report.decks) or 'no deck'} "
        f"({report.already_present} already here); "
        f"{plural(report.cards_recomputed, 'card')} rescheduled."
    )
    return 0
