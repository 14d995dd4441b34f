"""Publisher tools: `publish secret`, `issue`, `revoke` and `seal`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from infracards.errors import InfracardsError

if TYPE_CHECKING:
    from infracards.cli.common import Commands


COMMANDS = ("publish",)
"""What ``register`` adds (the parser is built only for the group a command line names)."""


def register(commands: Commands) -> None:
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


def run_publish_secret(args: argparse.Namespace) -> int:
    from infracards.services.publish import create_secret

    create_secret(args.path)
    print(f"Created {args.path} (mode 0600). Keep it outside the repository and back it up.")
    return 0


def run_publish_issue(args: argparse.Namespace) -> int:
    from infracards.services.formatting import plural
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
    print(f"Sealed {path} and {path.with_name(path.stem + '.keyslots.json').name}.")
    return 0
