"""Progress: `stats`, `export` and `import`."""

from __future__ import annotations

import argparse
import sys
from typing import IO, TYPE_CHECKING

from infracards.cli.common import (
    day_argument,
    open_home,
    open_reader,
    path_argument,
    print_json,
    text_argument,
)
from infracards.terminal_text import echo

if TYPE_CHECKING:
    from infracards.cli.common import Commands


def register(commands: Commands) -> None:
    stats = commands.add_parser(
        "stats", help="review calendar, streaks, 30-day forecast, retention and EF per topic"
    )
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.add_argument("--deck", type=text_argument, help="only this deck (default: all decks)")
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
        "-o",
        "--output",
        type=path_argument,
        metavar="FILE",
        help="write here, replacing a regular file (default, or -: standard output)",
    )
    export.add_argument("--deck", type=text_argument, help="only this deck")
    export.add_argument(
        "--since",
        type=day_argument,
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
    importer.add_argument("path", type=path_argument, metavar="FILE")
    importer.add_argument(
        "--deck", type=text_argument, help="import only this deck's progress from the file"
    )
    importer.add_argument("--json", action="store_true", help="print a JSON summary")
    importer.set_defaults(handler=run_import)


def run_stats(args: argparse.Namespace) -> int:
    from infracards.services.answers import AnswerBook
    from infracards.services.formatting import (
        practice_document,
        practice_report,
        stats_document,
        stats_report,
    )
    from infracards.services.settings import local_now
    from infracards.services.statistics import load_practice_stats, load_stats

    store = open_reader()
    stats = load_stats(store, now=local_now(), deck_id=args.deck)
    # Key points of sealed cards are named by index here: opening them would cost a KDF.
    practice = load_practice_stats(store, AnswerBook(), deck_id=args.deck)
    if args.json:
        print_json({**stats_document(stats), "practice": practice_document(practice)})
    else:
        print(f"{stats_report(stats)}\n\n{practice_report(practice)}")
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

    if args.output is None or str(args.output) == "-":
        write(sys.stdout)
    else:
        from infracards.files import write_atomically

        write_atomically(args.output, write, stream_hint=STREAM_HINT)
        print(f"Wrote {echo(args.output)}", file=sys.stderr)
    return 0


STREAM_HINT = "to write to a pipe or a device, use `-o -` (standard output) and redirect it"


def run_import(args: argparse.Namespace) -> int:
    from infracards.services.export import import_progress, read_progress
    from infracards.services.formatting import plural

    document = read_progress(args.path)
    report = import_progress(open_home(), document, source=echo(args.path), only_deck=args.deck)
    if args.json:
        print_json(
            {
                "file": str(args.path),
                "decks": list(report.decks),
                "reviews_added": report.added,
                "reviews_already_here": report.already_present,
                "mock_sessions_added": report.mock_sessions,
                "cards_rescheduled": report.cards_recomputed,
                "cards_suspended": report.suspended,
                "leeches_flagged": report.leeches,
            }
        )
        return 0
    mocks = f" and {plural(report.mock_sessions, 'mock interview')}" if report.mock_sessions else ""
    leech = "flagged as a leech" if report.leeches == 1 else "flagged as leeches"
    flags = [
        f"{plural(count, 'card')} {what}"
        for count, what in ((report.suspended, "suspended"), (report.leeches, leech))
        if count
    ]
    print(
        f"Imported {plural(report.added, 'review')}{mocks} into "
        f"{', '.join(map(echo, report.decks)) or 'no deck'} "
        f"({report.already_present} already here); "
        f"{plural(report.cards_recomputed, 'card')} rescheduled"
        + "".join(f"; {flag}" for flag in flags)
        + "."
    )
    return 0
