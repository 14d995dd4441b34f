"""Card keys: `unlock` and `lock`."""

from __future__ import annotations

import argparse
import codecs
import sys
from typing import TYPE_CHECKING

from infracards.cli.common import DEFAULT_DECK, open_home, open_reader, print_json, text_argument
from infracards.errors import InfracardsError
from infracards.paths import home
from infracards.terminal_text import echo

if TYPE_CHECKING:
    from infracards.cli.common import Commands


def register(commands: Commands) -> None:
    unlock = commands.add_parser(
        "unlock",
        help="open the sealed answers with your card key (卡密)",
        description="Checks the card key completely (offline), then stores it in $INFRACARDS_HOME "
        "(mode 0600). Without KEY, asks for it without echo.",
    )
    unlock.add_argument(
        "key",
        nargs="*",
        type=text_argument,
        metavar="KEY",
        help="the card key, e.g. 7K3QZ-… (spaces ok)",
    )
    unlock.add_argument(
        "--deck",
        type=text_argument,
        default=DEFAULT_DECK,
        help=f"deck id (default: {DEFAULT_DECK})",
    )
    unlock.add_argument("--stdin", action="store_true", help="read the key from standard input")
    unlock.add_argument("--status", action="store_true", help="show which decks are unlocked")
    unlock.add_argument("--json", action="store_true", help="with --status: print one JSON object")
    unlock.set_defaults(handler=run_unlock)

    lock = commands.add_parser("lock", help="forget the stored card key of a deck")
    lock.add_argument(
        "--deck",
        type=text_argument,
        default=DEFAULT_DECK,
        help=f"deck id (default: {DEFAULT_DECK})",
    )
    lock.set_defaults(handler=run_lock)


def read_key(args: argparse.Namespace) -> str:
    """The card key from the argument, standard input, or a no-echo prompt (not argv history)."""
    if args.key:
        return " ".join(args.key)
    if not args.stdin and not sys.stdin.isatty():
        raise InfracardsError("no card key given: pass KEY, use --stdin, or run in a terminal")
    try:
        if args.stdin:
            typed = sys.stdin.readline(257).strip()
        else:
            import getpass

            typed = getpass.getpass("Card key (卡密): ")
    except UnicodeDecodeError as error:
        raise _undecodable(error.object[error.start : error.end], error.encoding) from None
    undecodable = bytes(ord(char) - 0xDC00 for char in typed if 0xDC80 <= ord(char) <= 0xDCFF)
    if undecodable:  # standard input decoded with surrogateescape (a C locale)
        raise _undecodable(undecodable, "utf-8")
    return typed


def _undecodable(data: bytes, encoding: str) -> InfracardsError:
    return InfracardsError(
        f"the card key typed is not valid {codecs.lookup(encoding).name} text (the bytes "
        f"{data.hex(' ').upper()} cannot be decoded): type it again; card keys use only "
        "0-9 and A-Z"
    )


def run_unlock(args: argparse.Namespace) -> int:
    from infracards.services.unlock import key_status, unlock_deck

    if args.status:
        from infracards.cli.study import describe_key

        decks = key_status(open_reader(), home())
        if args.json:
            print_json(
                {
                    "decks": [
                        {"id": deck, "status": status.state, "key_stored": status.key_stored}
                        for deck, status in decks.items()
                    ]
                }
            )
            return 0
        for deck_id, status in decks.items():
            print(f"{echo(deck_id)}\t{describe_key(status)}")
        return 0
    if args.json:
        raise InfracardsError("--json goes with --status; an unlock prints one line")
    from infracards.seal import parse_license_key
    from infracards.services.formatting import plural

    typed = read_key(args)
    masked = parse_license_key(typed).masked  # typos are caught before any file is opened
    opened = unlock_deck(open_home(), home(), deck_id=args.deck, typed_key=typed)
    print(
        f"Unlocked {echo(opened.deck_id)} v{opened.release} with card key {masked}: "
        f"{plural(opened.answers, 'answer')} open."
    )
    if opened.dropped:
        print(
            "infracards: the license's key for "
            f"{', '.join(map(echo, opened.dropped))} was unreadable (damaged) and is no longer "
            "stored; unlock that deck again with its card key",
            file=sys.stderr,
        )
    return 0


def run_lock(args: argparse.Namespace) -> int:
    from infracards.seal import forget_license

    forget_license(home(), args.deck)
    print(f"Forgot the card key for {echo(args.deck)}; its sealed answers are locked again.")
    return 0
