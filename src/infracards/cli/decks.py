"""Decks: `deck add`, `deck check` and `deck list`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from infracards.cli.common import open_home, open_reader, path_argument, print_json
from infracards.terminal_text import echo

if TYPE_CHECKING:
    from infracards.cli.common import Commands


def register(commands: Commands) -> None:
    deck = commands.add_parser("deck", help="load, check and list decks")
    deck_commands = deck.add_subparsers(title="deck commands", metavar="COMMAND", required=True)
    add = deck_commands.add_parser("add", help="load or update a deck file (progress is kept)")
    add.add_argument("path", type=path_argument, metavar="PATH")
    add.add_argument(
        "--allow-older",
        action="store_true",
        help="load a release older than the one loaded (rolls prompts and answers back)",
    )
    add.set_defaults(handler=run_deck_add)
    check = deck_commands.add_parser("check", help="validate a deck file without loading it")
    check.add_argument("path", type=path_argument, metavar="PATH")
    check.set_defaults(handler=run_deck_check)
    listing = deck_commands.add_parser("list", help="list loaded decks")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=run_deck_list)


def run_deck_add(args: argparse.Namespace) -> int:
    from infracards.services.formatting import sync_text
    from infracards.services.library import add_deck

    report = add_deck(open_home(), args.path, allow_older=args.allow_older)
    print(sync_text(report))
    return 0


def run_deck_check(args: argparse.Namespace) -> int:
    from infracards.deck import load_deck
    from infracards.services.formatting import plural

    deck = load_deck(args.path)
    locked = sum(card.locked for card in deck.cards)
    print(
        f"{echo(args.path)}: ok — deck {echo(deck.deck_id)} v{deck.version}, "
        f"{plural(len(deck.cards), 'card')} ({locked} sealed)"
    )
    return 0


def run_deck_list(args: argparse.Namespace) -> int:
    from infracards.services.formatting import plural
    from infracards.services.library import deck_overview
    from infracards.services.settings import local_now

    summaries = deck_overview(open_reader(), now=local_now()).decks
    if args.json:
        print_json(
            [
                {"id": s.deck_id, "title": s.title, "version": s.version, "cards": s.total}
                for s in summaries
            ]
        )
    else:
        for s in summaries:
            print(f"{echo(s.deck_id)}\tv{s.version}\t{plural(s.total, 'card')}\t{echo(s.title)}")
    return 0
