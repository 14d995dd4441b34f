"""Publisher tools: `publish secret`, `issue`, `revoke` and `seal`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from infracards.cli.common import path_argument, text_argument
from infracards.errors import InfracardsError
from infracards.terminal_text import echo

if TYPE_CHECKING:
    from infracards.cli.common import Commands


def register(commands: Commands) -> None:
    publish = commands.add_parser("publish", help="publisher tools: secret, card keys, sealing")
    publish_commands = publish.add_subparsers(
        title="publish commands", metavar="COMMAND", required=True
    )
    secret = publish_commands.add_parser("secret", help="create a publisher secret file (0600)")
    secret.add_argument("path", type=path_argument, metavar="PATH")
    secret.set_defaults(handler=run_publish_secret)
    issue = publish_commands.add_parser("issue", help="issue card keys for buyers")
    issue.add_argument(
        "source", type=path_argument, metavar="SOURCE", help="publisher source folder"
    )
    issue.add_argument("-n", "--count", type=int, default=1, help="how many keys (default 1)")
    issue.add_argument("--secret", type=path_argument, help="publisher secret file")
    issue.add_argument(
        "--csv",
        type=path_argument,
        help="also write kid,card_key rows to this new file (mode 0600)",
    )
    issue.add_argument("--force", action="store_true", help="replace an existing --csv file")
    issue.add_argument("--test-params", action="store_true", help="cheap KDF, for tests only")
    issue.set_defaults(handler=run_publish_issue)
    revoke = publish_commands.add_parser("revoke", help="revoke a key id from the next release on")
    revoke.add_argument(
        "source", type=path_argument, metavar="SOURCE", help="publisher source folder"
    )
    revoke.add_argument(
        "kid", type=text_argument, metavar="KID", help="key id: the first 4 symbols of the card key"
    )
    revoke.set_defaults(handler=run_publish_revoke)
    seal = publish_commands.add_parser("seal", help="seal the source into the shipped deck")
    seal.add_argument(
        "source", type=path_argument, metavar="SOURCE", help="publisher source folder"
    )
    seal.add_argument("--secret", type=path_argument, help="publisher secret file")
    seal.add_argument(
        "--out", type=path_argument, default=Path("deck"), help="output folder (default deck/)"
    )
    seal.set_defaults(handler=run_publish_seal)


def run_publish_secret(args: argparse.Namespace) -> int:
    from infracards.services.publish import create_secret

    create_secret(args.path)
    print(f"Created {echo(args.path)} (mode 0600). Keep it outside the repository and back it up.")
    return 0


def run_publish_issue(args: argparse.Namespace) -> int:
    from infracards.files import write_atomically
    from infracards.services.formatting import plural
    from infracards.services.publish import issue_keys, read_secret

    if args.count < 1:
        raise InfracardsError("--count must be at least 1")
    if args.csv is not None and os.path.lexists(args.csv) and not args.force:
        # Checked before any key is issued: the file may hold keys already sold.
        raise InfracardsError(
            f"{echo(args.csv)} exists; pass --force to replace it (no key issued)"
        )
    issued = issue_keys(
        args.source, secret=read_secret(args.secret), count=args.count, test_params=args.test_params
    )
    failure = None
    if args.csv is not None:
        rows = "".join(f"{key.license_key[:4]},{key.license_key}\n" for key in issued)
        try:  # card keys: private, and never over a file that appeared meanwhile
            write_atomically(args.csv, f"kid,card_key\n{rows}", private=True, replace=args.force)
        except InfracardsError as error:
            failure = InfracardsError(f"{error}; the issued keys are printed above")
    for key in issued:  # printed in any case: they are already in the key registry
        print(key.license_key)
    if failure is not None:
        raise failure
    print(
        f"Issued {plural(len(issued), 'card key')}; seal a release for them to work.",
        file=sys.stderr,
    )
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
    slots = path.with_name(path.stem + ".keyslots.json").name
    print(f"Sealed {echo(path)} and {echo(slots)}.")
    return 0
