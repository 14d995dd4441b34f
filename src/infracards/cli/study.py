"""Studying: the app, `review`, `status`, `show` and `config`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from infracards.cli.common import (
    DEFAULT_DECK,
    launch_app,
    open_home,
    open_reader,
    print_json,
    text_argument,
)
from infracards.errors import InfracardsError
from infracards.paths import home
from infracards.setting_names import SETTING_NAMES
from infracards.terminal_text import echo

if TYPE_CHECKING:
    from infracards.cli.common import Commands
    from infracards.services.plan import Readiness
    from infracards.services.unlock import KeyStatus


def register(commands: Commands) -> None:
    review = commands.add_parser("review", help="start reviewing today's cards in the app")
    review.add_argument(
        "--deck",
        type=text_argument,
        default=DEFAULT_DECK,
        help=f"deck id (default: {DEFAULT_DECK})",
    )
    review.set_defaults(handler=run_review)

    status = commands.add_parser(
        "status", help="cards, new, due today, locked and reviews today per deck"
    )
    status.add_argument("--json", action="store_true", help="print one JSON object")
    status.set_defaults(handler=run_status)

    show = commands.add_parser("show", help="print a card's prompt and answer as Markdown")
    show.add_argument("card_id", type=text_argument, metavar="CARD_ID", help="card id such as q05")
    show.add_argument(
        "--deck", type=text_argument, help="deck id, when several decks have this card id"
    )
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(handler=run_show)

    config = commands.add_parser(
        "config",
        help="show or change study settings",
        description="Settings: new-per-day (default 10), rollover-hour (0-23, default 4), "
        "study-locked (yes/no, default yes: study sealed cards question-only), "
        "max-reviews-per-day (a number or none, default none), leech-threshold (lapses that "
        "make a card a leech, default 8), interview-date (YYYY-MM-DD or none), plan-reviews "
        "(reviews of each card the plan aims for before the interview, default 3), "
        "mock-minutes (per mock-interview question, default 3).",
    )
    config.add_argument("key", nargs="?", type=text_argument, choices=SETTING_NAMES, metavar="KEY")
    config.add_argument("value", nargs="?", type=text_argument, metavar="VALUE")
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
    from infracards.services.settings import local_now, study_prefs
    from infracards.services.unlock import key_status

    store = open_reader()
    now = local_now()
    overview = deck_overview(store, now=now, home=home())
    keys = key_status(store, home())
    ready: dict[str, Readiness] = {}
    readiness_lines: dict[str, str] = {}
    if study_prefs(store).interview_date is not None:  # the plan's code is loaded only then
        from infracards.services.formatting import readiness_line
        from infracards.services.plan import all_readiness

        ready = all_readiness(store, now=now, home=home())
        readiness_lines = {deck: readiness_line(outlook) for deck, outlook in ready.items()}
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
                "unlocked": s.deck_id in keys and keys[s.deck_id].unlocked,
                "key_stored": s.deck_id in keys and keys[s.deck_id].key_stored,
                "reviews_today": s.reviews_today,
                "due_within_cap": s.due_today,
                "suspended": s.suspended,
                "leeches": s.leeches,
                **readiness_fields(ready.get(s.deck_id)),
            }
            for s in overview.decks
        ]
        print_json({"today": overview.today.isoformat(), "decks": decks})
        return 0
    print(f"Study day {overview.today.isoformat()}")
    for s in overview.decks:
        print(
            f"{echo(s.deck_id)}  {echo(s.title)}  v{s.version}\n"
            f"  cards {s.total} · new {s.new} ({s.new_today} today) · due today {s.due}"
            f" · sealed {s.locked}"
            f" ({describe_key(keys[s.deck_id]) if s.deck_id in keys else 'free'})"
            f" · reviewed today {s.reviews_today}"
            + (f"\n  suspended {s.suspended} · leeches {s.leeches}" if s.suspended else "")
        )
        if s.deck_id in readiness_lines:
            print(f"  {readiness_lines[s.deck_id]}")
    return 0


def readiness_fields(outlook: Readiness | None) -> dict[str, object]:
    """`status --json`'s interview fields of one deck (null while no date is set)."""
    if outlook is None:
        return {
            "interview_date": None,
            "days_left": None,
            "readiness": None,
            "plan_new_per_day": None,
        }
    return {
        "interview_date": outlook.interview.isoformat(),
        "days_left": outlook.days_left,
        "readiness": round(outlook.overall, 4),
        "plan_new_per_day": outlook.plan.new_per_day,
    }


def describe_key(status: KeyStatus) -> str:
    """A deck's key as `status` and `unlock --status` print it: what is stored, what it does."""
    if not status.key_stored or status.unlocked:
        return status.state
    return f"{status.state}: a card key is stored but does not open v{status.release}"


def run_show(args: argparse.Namespace) -> int:
    from infracards.services.cards import lookup_card, open_answer
    from infracards.services.formatting import key_points_heading

    store = open_reader()
    card = lookup_card(store, card_id=args.card_id, deck_id=args.deck)
    answer, notices = open_answer(store, home(), card)
    for notice in notices:
        print(f"infracards: {notice}", file=sys.stderr)
    if answer is None:
        deck = echo(card.deck_id)
        unlock = "infracards unlock" + ("" if card.deck_id == DEFAULT_DECK else f" --deck {deck}")
        raise InfracardsError(
            f"the answer to {echo(card.card_id)} is sealed; unlock deck {deck} with"
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
    tags = [echo(" ".join(card.tags))] if card.tags else []
    print(" · ".join([f"# {echo(card.card_id)}", *tags]))
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
