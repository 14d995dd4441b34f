"""Studying: the app, `review`, `status`, `show` and `config`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from infracards.cli.common import DEFAULT_DECK, launch_app, open_home, open_reader, print_json
from infracards.errors import InfracardsError
from infracards.paths import home
from infracards.setting_names import SETTING_NAMES

if TYPE_CHECKING:
    from infracards.cli.common import Commands


COMMANDS = ("review", "status", "show", "config")
"""What ``register`` adds (the parser is built only for the group a command line names)."""


def register(commands: Commands) -> None:
    review = commands.add_parser("review", help="start reviewing today's cards in the app")
    review.add_argument("--deck", default=DEFAULT_DECK, help=f"deck id (default: {DEFAULT_DECK})")
    review.set_defaults(handler=run_review)

    status = commands.add_parser(
        "status", help="cards, new, due today, locked and reviews today per deck"
    )
    status.add_argument("--json", action="store_true", help="print one JSON object")
    status.set_defaults(handler=run_status)

    show = commands.add_parser("show", help="print a card's prompt and answer as Markdown")
    show.add_argument("card_id", metavar="CARD_ID", help="card id such as q05")
    show.add_argument("--deck", help="deck id, when several decks have this card id")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(handler=run_show)

    config = commands.add_parser(
        "config",
        help="show or change study settings",
        description="Settings: new-per-day (default 10), rollover-hour (0-23, default 4), "
        "study-locked (yes/no, default yes: study sealed cards question-only).",
    )
    config.add_argument("key", nargs="?", choices=SETTING_NAMES, metavar="KEY")
    config.add_argument("value", nargs="?", metavar="VALUE")
    config.add_argument("--json", action="store_true", help="print one JSON object")
    config.set_defaults(handler=run_config)


def run_app(args: argparse.Namespace) -> int:
    """Open the app on the home screen."""
    return launch_app(open_home(), start_review=None)


def run_review(args: argparse.Namespace) -> int:
    """Open the app straight into a review of one deck."""
    from infracards.services.library import require_deck

    engine = open_home()
    require_deck(engine, args.deck)
    return launch_app(engine, start_review=args.deck)


def run_status(args: argparse.Namespace) -> int:
    from infracards.services.library import deck_overview
    from infracards.services.settings import local_now
    from infracards.services.unlock import key_status

    store = open_reader()
    overview = deck_overview(store, now=local_now(), home=home())
    keys = key_status(store, home())
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
            for s in overview.decks
        ]
        print_json({"today": overview.today.isoformat(), "decks": decks})
        return 0
    print(f"Study day {overview.today.isoformat()}")
    for s in overview.decks:
        print(
            f"{s.deck_id}  {s.title}  v{s.version}\n"
            f"  cards {s.total} · new {s.new} ({s.new_today} today) · due today {s.due}"
            f" · sealed {s.locked}"
            f" ({keys.get(s.deck_id, 'free')})"
            f" · reviewed today {s.reviews_today}"
        )
    return 0


def run_show(args: argparse.Namespace) -> int:
    from infracards.services.cards import lookup_card, open_answer
    from infracards.services.formatting import key_points_heading

    store = open_reader()
    card = lookup_card(store, card_id=args.card_id, deck_id=args.deck)
    answer, notices = open_answer(store, home(), card)
    for notice in notices:
        print(f"infracards: {notice}", file=sys.stderr)
    if answer is None:
        unlock = "infracards unlock" + (
            "" if card.deck_id == DEFAULT_DECK else f" --deck {card.deck_id}"
        )
        raise InfracardsError(
            f"the answer to {card.card_id} is sealed; unlock deck {card.deck_id} with"
            f" `{unlock}` and your card key (卡密)"
        )
    if args.json:
        print_json(
            {
                "deck": card.deck_id,
                "card_id": card.card_id,
                "tags": list(card.tags),
                "prompt": card.prompt,
                "answer": answer.markdown,
                "key_points": list(answer.key_points),
                "sealed": card.sealed is not None,
                "due": card.due.isoformat() if card.due else None,
            }
        )
        return 0
    print(" · ".join(["# " + card.card_id, *([" ".join(card.tags)] if card.tags else [])]))
    print(f"\n{card.prompt}\n")
    print(answer.markdown.rstrip())
    if answer.key_points:
        print(f"\n## {key_points_heading(card.language)}\n")
        print("\n".join(f"- {point}" for point in answer.key_points))
    return 0


OPENS_APP = (run_app, run_review)
"""The handlers that start the app, which resumes garbage collection after its first frame."""


def run_config(args: argparse.Namespace) -> int:
    from infracards.services.settings import change_setting, current_settings, setting_value

    store = open_reader()
    if args.value is not None:
        change_setting(store, key=args.key, value=args.value)
    shown = {
        key: value for key, value in current_settings(store).items() if args.key in (None, key)
    }
    if args.json:
        print_json({key: setting_value(value) for key, value in shown.items()})
        return 0
    for key, value in shown.items():
        print(f"{key} = {value}")
    return 0
