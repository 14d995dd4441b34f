"""The ``infracards`` command: parse, call one layer, print, return an exit code.

Exit codes: 0 success, 1 user error (one line on stderr), 2 usage error.
Textual is imported only by the commands that open the app.
"""

from __future__ import annotations

import argparse
import atexit
import codecs
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import IO
from weakref import ref

from sqlalchemy import Engine

from infracards import __version__
from infracards.errors import InfracardsError
from infracards.paths import home
from infracards.records import PREF_KEYS, SyncReport
from infracards.services.answers import AnswerBook
from infracards.services.study import local_now, study_day_now
from infracards.store.db import open_store, transaction
from infracards.store.queries import (
    card_id_spans,
    deck_ids,
    deck_summaries,
    find_card,
    load_prefs,
    save_setting,
    sealed_cards,
)

Handler = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except UnicodeEncodeError as error:
        if codecs.lookup(error.encoding).name != codecs.lookup(sys.stdout.encoding).name:
            raise
        print(
            f"infracards: this terminal's encoding ({sys.stdout.encoding}) cannot show the deck's"
            " Chinese text; use a UTF-8 locale (e.g. LANG=C.UTF-8) or set PYTHONIOENCODING=utf-8",
            file=sys.stderr,
        )
        return 1


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    handler: Handler = args.handler
    if handler not in (run_app, run_review):
        gc.enable()  # paused by the entry point for start-up; only the app resumes it later
    try:
        return handler(args)
    except InfracardsError as error:
        print(f"infracards: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("infracards: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (`| head`) went away: that is not an error. Silence the final flush too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="infracards",
        description="Flashcards with exact SM-2 scheduling for LLM training-infrastructure "
        "interviews. Without a command, opens the app.",
        epilog="Data lives in $INFRACARDS_HOME (default: your user data folder).",
    )
    parser.add_argument("--version", action="version", version=f"infracards {__version__}")
    parser.set_defaults(handler=run_app, deck=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    review = commands.add_parser("review", help="start reviewing today's cards in the app")
    review.add_argument("--deck", default="module03", help="deck id (default: module03)")
    review.set_defaults(handler=run_review)

    status = commands.add_parser(
        "status", help="cards, new, due today, locked and reviews today per deck"
    )
    status.add_argument("--json", action="store_true", help="print one JSON object")
    status.set_defaults(handler=run_status)

    show = commands.add_parser("show", help="print a card's prompt and answer as Markdown")
    show.add_argument("card_id", metavar="CARD_ID", help="card id such as q05")
    show.add_argument("--deck", help="deck id, when several decks have this card id")
    show.set_defaults(handler=run_show)

    deck = commands.add_parser("deck", help="load, check and list decks")
    deck_commands = deck.add_subparsers(title="deck commands", metavar="COMMAND", required=True)
    add = deck_commands.add_parser("add", help="load or update a deck file (progress is kept)")
    add.add_argument("path", type=Path, metavar="PATH")
    add.set_defaults(handler=run_deck_add)
    check = deck_commands.add_parser("check", help="validate a deck file without loading it")
    check.add_argument("path", type=Path, metavar="PATH")
    check.set_defaults(handler=run_deck_check)
    listing = deck_commands.add_parser("list", help="list loaded decks")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=run_deck_list)

    config = commands.add_parser(
        "config",
        help="show or change study settings",
        description="Settings: new-per-day (default 10), rollover-hour (0-23, default 4), "
        "study-locked (yes/no, default yes: study sealed cards question-only).",
    )
    config.add_argument("key", nargs="?", choices=sorted(PREF_KEYS.values()), metavar="KEY")
    config.add_argument("value", nargs="?", metavar="VALUE")
    config.set_defaults(handler=run_config)

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
    importer.set_defaults(handler=run_import)

    unlock = commands.add_parser(
        "unlock",
        help="open the sealed answers with your card key (卡密)",
        description="Checks the card key completely (offline), then stores it in $INFRACARDS_HOME "
        "(mode 0600). Without KEY, asks for it without echo.",
    )
    unlock.add_argument(
        "key", nargs="*", metavar="KEY", help="the card key, e.g. 7K3QZ-… (spaces ok)"
    )
    unlock.add_argument("--deck", default="module03", help="deck id (default: module03)")
    unlock.add_argument("--stdin", action="store_true", help="read the key from standard input")
    unlock.add_argument("--status", action="store_true", help="show which decks are unlocked")
    unlock.set_defaults(handler=run_unlock)

    lock = commands.add_parser("lock", help="forget the stored card key of a deck")
    lock.add_argument("--deck", default="module03", help="deck id (default: module03)")
    lock.set_defaults(handler=run_lock)

    publish = commands.add_parser("publish", help="publisher tools: secret, card keys, sealing")
    publish_commands = publish.add_subparsers(
        title="publish commands", metavar="COMMAND", required=True
    )
    secret = publish_commands.add_parser("secret", help="create a publisher secret file (0600)")
    secret.add_argument("path", type=Path, metavar="PATH")
    secret.set_defaults(handler=run_publish_secret)
    issue = publish_commands.add_parser("issue", help="issue card keys for buyers")
    issue.add_argument("source", type=Path, metavar="SOURCE", help="publisher source folder")
    issue.add_argument("-n", "--count", type=int, default=1, help="how many keys (default 1)")
    issue.add_argument("--secret", type=Path, help="publisher secret file")
    issue.add_argument("--csv", type=Path, help="also write kid,card_key rows to this file")
    issue.add_argument("--test-params", action="store_true", help="cheap KDF, for tests only")
    issue.set_defaults(handler=run_publish_issue)
    revoke = publish_commands.add_parser("revoke", help="revoke a key id from the next release on")
    revoke.add_argument("source", type=Path, metavar="SOURCE", help="publisher source folder")
    revoke.add_argument("kid", metavar="KID", help="key id: the first 4 symbols of the card key")
    revoke.set_defaults(handler=run_publish_revoke)
    seal = publish_commands.add_parser("seal", help="seal the source into the shipped deck")
    seal.add_argument("source", type=Path, metavar="SOURCE", help="publisher source folder")
    seal.add_argument("--secret", type=Path, help="publisher secret file")
    seal.add_argument(
        "--out", type=Path, default=Path("deck"), help="output folder (default deck/)"
    )
    seal.set_defaults(handler=run_publish_seal)
    return parser


def open_home() -> Engine:
    """Open the store (first run: create, migrate, load the built-in deck)."""
    from infracards.services.library import ensure_builtin_deck

    engine = open_store(home())
    ensure_builtin_deck(engine)
    atexit.register(_close_store, ref(engine))
    return engine


def _close_store(engine: ref[Engine]) -> None:
    """At exit, close the store's connections (SQLite folds its log back into the database
    file then). The entry point freezes the heap before exiting, so the final garbage
    collection that used to close them never reaches them."""
    alive = engine()
    if alive is not None:
        alive.dispose()


def require_terminal() -> None:
    """Textual draws on standard error and reads keys from standard input; without a terminal
    on both, the app would wait forever for keys that cannot come."""
    screen = sys.__stderr__
    if not (sys.stdin.isatty() and screen is not None and screen.isatty()):
        raise InfracardsError(
            "the app needs a terminal (standard input and error are not one); in scripts use "
            "a command such as `infracards status --json` (see `infracards --help`)"
        )


def launch_app(engine: Engine, *, start_review: str | None) -> int:
    require_terminal()
    from infracards.tui.app import InfracardsApp  # deferred: Textual is needed only here
    from infracards.tui.context import AppContext

    context = AppContext(engine=engine, answers=AnswerBook(), home=home(), clock=local_now)
    app = InfracardsApp(context, start_review=start_review)
    app.run()
    return app.return_code or 0


def read_key(args: argparse.Namespace) -> str:
    """The card key from the argument, standard input, or a no-echo prompt (not argv history)."""
    if args.key:
        return " ".join(args.key)
    if args.stdin:
        return sys.stdin.readline(257).strip()
    if not sys.stdin.isatty():
        raise InfracardsError("no card key given: pass KEY, use --stdin, or run in a terminal")
    import getpass

    return getpass.getpass("Card key (卡密): ")


def run_stats(args: argparse.Namespace) -> int:
    from infracards.services.formatting import stats_document, stats_report
    from infracards.store.stats import compute_stats

    engine = open_home()
    with transaction(engine) as session:
        if args.deck is not None and args.deck not in deck_ids(session):
            raise InfracardsError(f"no deck {args.deck!r} is loaded; see `infracards deck list`")
        stats = compute_stats(
            session, today=study_day_now(session, now=local_now()), deck_id=args.deck
        )
    if args.json:
        print(json.dumps(stats_document(stats), ensure_ascii=False, indent=2))
    else:
        print(stats_report(stats))
    return 0


def run_export(args: argparse.Namespace) -> int:
    from infracards.services.export import write_csv, write_json

    engine = open_home()

    def write(out: IO[str]) -> None:
        with transaction(engine) as session:
            if args.format == "json":
                write_json(session, out, now=local_now(), deck_id=args.deck, since=args.since)
            elif args.format == "csv":
                if args.bom:
                    out.write("\ufeff")
                write_csv(session, out, deck_id=args.deck, since=args.since)
            else:
                from infracards.services.report import write_report

                write_report(
                    session, out, today=study_day_now(session, now=local_now()), deck_id=args.deck
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
    from infracards.services.export import import_document, parse_document

    try:
        data = args.path.read_bytes()
    except OSError as error:
        raise InfracardsError(f"cannot read {args.path} ({error.strerror})") from None
    document = parse_document(data, source=str(args.path))
    engine = open_home()
    with transaction(engine, write=True) as session:
        report = import_document(session, document, source=str(args.path), only_deck=args.deck)
    print(
        f"Imported {report.added} reviews into {', '.join(report.decks) or 'no deck'} "
        f"({report.already_present} already here); {report.cards_recomputed} cards rescheduled."
    )
    return 0


def run_unlock(args: argparse.Namespace) -> int:
    from infracards.seal import parse_license_key
    from infracards.services.unlock import key_status, unlock_deck

    if args.status:
        engine = open_home()
        for deck_id, status in key_status(engine, home()).items():
            print(f"{deck_id}\t{status}")
        return 0
    typed = read_key(args)
    masked = parse_license_key(typed).masked  # typos are caught before any file is opened
    engine = open_home()
    opened = unlock_deck(engine, home(), deck_id=args.deck, typed_key=typed)
    with transaction(engine) as session:
        count = len(sealed_cards(session, deck_id=args.deck))
    print(
        f"Unlocked {opened.deck_id} v{opened.release} with card key {masked}: {count} answers open."
    )
    return 0


def run_lock(args: argparse.Namespace) -> int:
    from infracards.seal import forget_license

    forget_license(home(), args.deck)
    print(f"Forgot the card key for {args.deck}; its sealed answers are locked again.")
    return 0


def run_publish_secret(args: argparse.Namespace) -> int:
    from infracards.services.publish import create_secret

    create_secret(args.path)
    print(f"Created {args.path} (mode 0600). Keep it outside the repository and back it up.")
    return 0


def run_publish_issue(args: argparse.Namespace) -> int:
    from infracards.services.publish import issue_keys, read_secret

    if args.count < 1:
        raise InfracardsError("--count must be at least 1")
    issued = issue_keys(
        args.source, secret=read_secret(args.secret), count=args.count, test_params=args.test_params
    )
    rows = [f"{key.license_key[:4]},{key.license_key}" for key in issued]
    if args.csv is not None:
        args.csv.write_text("kid,card_key\n" + "\n".join(rows) + "\n", encoding="utf-8")
    for key in issued:
        print(key.license_key)
    print(f"Issued {len(issued)} card keys; seal a release for them to work.", file=sys.stderr)
    return 0


def run_publish_revoke(args: argparse.Namespace) -> int:
    from infracards.services.publish import revoke_key

    kid = revoke_key(args.source, kid=args.kid)
    print(
        f"Revoked key id {kid}: bump the version in deck.yaml and seal; "
        "the new release has no slot for it."
    )
    return 0


def run_publish_seal(args: argparse.Namespace) -> int:
    from infracards.services.publish import read_secret, seal_source

    path = seal_source(args.source, secret=read_secret(args.secret), out_dir=args.out)
    print(f"Sealed {path} and {path.with_name(path.stem + '.keyslots.json').name}.")
    return 0


def run_app(args: argparse.Namespace) -> int:
    """Open the app on the home screen."""
    return launch_app(open_home(), start_review=None)


def run_review(args: argparse.Namespace) -> int:
    """Open the app straight into a review of one deck."""
    engine = open_home()
    with transaction(engine) as session:
        if args.deck not in deck_ids(session):
            raise InfracardsError(f"no deck {args.deck!r} is loaded; see `infracards deck list`")
    return launch_app(engine, start_review=args.deck)


def run_status(args: argparse.Namespace) -> int:
    from infracards.services.unlock import key_status

    engine = open_home()
    with transaction(engine) as session:
        today = study_day_now(session, now=local_now())
        summaries = deck_summaries(session, today=today, prefs=load_prefs(session))
    keys = key_status(engine, home())
    if args.json:
        decks = [
            {
                "id": s.deck_id,
                "title": s.title,
                "version": s.version,
                "cards": s.total,
                "new": s.new,
                "new_today": s.new_today,
                "due_today": s.due,
                "locked": s.locked,
                "unlocked": keys.get(s.deck_id) == "unlocked",
                "reviews_today": s.reviews_today,
            }
            for s in summaries
        ]
        print(
            json.dumps({"today": today.isoformat(), "decks": decks}, ensure_ascii=False, indent=2)
        )
        return 0
    print(f"Study day {today.isoformat()}")
    for s in summaries:
        print(
            f"{s.deck_id}  {s.title}  v{s.version}\n"
            f"  cards {s.total} · new {s.new} ({s.new_today} today) · due today {s.due}"
            f" · sealed {s.locked}"
            f" ({keys.get(s.deck_id, 'free')})"
            f" · reviewed today {s.reviews_today}"
        )
    return 0


def run_show(args: argparse.Namespace) -> int:
    engine = open_home()
    with transaction(engine) as session:
        cards = find_card(session, card_id=args.card_id, deck_id=args.deck)
        spans = card_id_spans(session, deck_id=args.deck) if not cards else []
    if not cards:
        where = f" in deck {args.deck!r}" if args.deck else ""
        hint = "; ".join(f"{deck} has {first} … {last}" for deck, first, last in spans)
        hint = hint or "see `infracards deck list`"
        raise InfracardsError(f"no card {args.card_id!r}{where}; {hint}")
    if len(cards) > 1:
        decks = ", ".join(card.deck_id for card in cards)
        raise InfracardsError(
            f"card {args.card_id!r} is in several decks ({decks}); pick one with --deck"
        )
    card = cards[0]
    book = AnswerBook()
    if card.locked:
        from infracards.services.unlock import open_saved_keys

        opened, notices = open_saved_keys(engine, home(), only=card.deck_id)
        book = AnswerBook(opened)
        for notice in notices:
            print(f"infracards: {notice}", file=sys.stderr)
    answer = book.answer_for(card)
    print(f"# {card.card_id} · {' '.join(card.tags)}\n\n{card.prompt}\n")
    if answer is None:
        print(
            "🔒 The answer is sealed: unlock it with `infracards unlock` and your card key (卡密)."
        )
        return 0
    print(answer.markdown.rstrip())
    if answer.key_points:
        print("\n## 要点\n")
        print("\n".join(f"- {point}" for point in answer.key_points))
    return 0


def run_deck_add(args: argparse.Namespace) -> int:
    from infracards.services.library import add_deck

    report = add_deck(open_home(), args.path)
    print(describe_sync(report))
    return 0


def describe_sync(report: SyncReport) -> str:
    """Tell the user what a deck load changed."""
    if report.created:
        return f"Loaded deck {report.deck_id} v{report.version}: {len(report.added)} cards."
    if not report.changed:
        return f"Deck {report.deck_id} v{report.version} is already up to date; nothing changed."
    parts = [
        f"{label} {len(ids)} ({', '.join(ids[:8])}{', …' if len(ids) > 8 else ''})"
        for label, ids in (
            ("added", report.added),
            ("updated", report.updated),
            ("retired", report.retired),
            ("restored", report.restored),
        )
        if ids
    ]
    return (
        f"Updated deck {report.deck_id} to v{report.version}: "
        + "; ".join(parts)
        + ". Progress kept."
    )


def run_deck_check(args: argparse.Namespace) -> int:
    from infracards.deck import load_deck

    deck = load_deck(args.path)
    locked = sum(card.locked for card in deck.cards)
    print(
        f"{args.path}: ok — deck {deck.deck_id} v{deck.version}, "
        f"{len(deck.cards)} cards ({locked} sealed)"
    )
    return 0


def run_deck_list(args: argparse.Namespace) -> int:
    engine = open_home()
    with transaction(engine) as session:
        today = study_day_now(session, now=local_now())
        summaries = deck_summaries(session, today=today, prefs=load_prefs(session))
    if args.json:
        rows = [
            {"id": s.deck_id, "title": s.title, "version": s.version, "cards": s.total}
            for s in summaries
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        for s in summaries:
            print(f"{s.deck_id}\tv{s.version}\t{s.total} cards\t{s.title}")
    return 0


def run_config(args: argparse.Namespace) -> int:
    engine = open_home()
    if args.value is not None:
        value = validate_setting(args.key, args.value)
        with transaction(engine, write=True) as session:
            save_setting(session, key=args.key, value=value)
    with transaction(engine) as session:
        prefs = load_prefs(session)
    current = {
        "new-per-day": str(prefs.new_per_day),
        "rollover-hour": str(prefs.rollover_hour),
        "study-locked": "yes" if prefs.study_locked else "no",
    }
    for key, value in current.items():
        if args.key in (None, key):
            print(f"{key} = {value}")
    return 0


def validate_setting(key: str, value: str) -> str:
    if key == "study-locked":
        if value.lower() not in {"yes", "no"}:
            raise InfracardsError("study-locked must be yes or no")
        return value.lower()
    limits = {"new-per-day": (0, 9999), "rollover-hour": (0, 23)}
    low, high = limits[key]
    if not value.isdigit() or not low <= int(value) <= high:
        raise InfracardsError(f"{key} must be a whole number from {low} to {high}")
    return str(int(value))
