"""Interview practice: `mock`, `plan`, `suspend` and `unsuspend`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from infracards.cli.common import (
    DEFAULT_DECK,
    launch_app,
    open_home,
    open_reader,
    print_json,
    text_argument,
)
from infracards.paths import home

if TYPE_CHECKING:
    from infracards.cli.common import Commands


def register(commands: Commands) -> None:
    mock = commands.add_parser(
        "mock",
        help="a mock interview in the app: questions against a clock, then self-checked",
        description="Draws questions as an interviewer would (topics mixed; weak, overdue and "
        "never well-answered cards favoured), one at a time with a countdown. Changes no "
        "schedule unless you count a question as a review. --report prints past interviews.",
    )
    mock.add_argument("--questions", type=int, default=None, metavar="N", help="default 5")
    mock.add_argument(
        "--minutes", type=int, default=None, metavar="M", help="per question (config mock-minutes)"
    )
    mock.add_argument(
        "--topic",
        type=text_argument,
        metavar="T",
        help="only cards whose topic (first tag) is T",
    )
    mock.add_argument(
        "--deck",
        type=text_argument,
        help="deck id (default: module03; with --report: every deck unless given)",
    )
    mock.add_argument(
        "--report",
        action="store_const",
        dest="handler",
        const=run_mock_report,  # prints, so it is no command that opens the app
        help="print past mock interviews",
    )
    mock.add_argument("--json", action="store_true", help="with --report: one JSON list")
    mock.set_defaults(handler=run_mock)
    register_more(commands)


def run_mock(args: argparse.Namespace) -> int:
    from infracards.records import MockOptions
    from infracards.services.mock import check_options

    engine = open_home()
    options = MockOptions(args.deck or DEFAULT_DECK, args.questions, args.minutes, args.topic)
    check_options(engine, options)
    return launch_app(engine, start_review=None, start_mock=options)


def run_mock_report(args: argparse.Namespace) -> int:
    from infracards.services.formatting import mock_document, mock_history_text
    from infracards.services.library import require_deck
    from infracards.services.mock_history import mock_reports

    store = open_reader()
    if args.deck is not None:
        require_deck(store, args.deck)
    reports = mock_reports(store, deck_id=args.deck)
    if args.json:
        print_json(mock_document(reports))
    else:
        print(mock_history_text(reports))
    return 0


def run_plan(args: argparse.Namespace) -> int:
    from infracards.errors import InfracardsError
    from infracards.services.formatting import readiness_report
    from infracards.services.library import require_deck
    from infracards.services.plan import accept_plan, readiness
    from infracards.services.settings import local_now

    store = open_reader()
    deck = args.deck or DEFAULT_DECK
    require_deck(store, deck)
    now = local_now()
    if args.accept:
        print(f"new-per-day = {accept_plan(store, deck_id=deck, now=now, home=home())}")
    outlook = readiness(store, deck_id=deck, now=now, home=home())
    if outlook is None:
        raise InfracardsError(
            "no interview date: set one with `infracards config interview-date YYYY-MM-DD`"
        )
    if args.json:
        print_json(
            {
                "deck": deck,
                "interview_date": outlook.interview.isoformat(),
                "days_left": outlook.days_left,
                "readiness": round(outlook.overall, 4),
                "retention": round(outlook.retention, 4),
                "topics": [
                    {"topic": t, "readiness": round(v, 4), "cards": n} for t, v, n in outlook.topics
                ],
                "dragging": [
                    {"card_id": card_id, "readiness": round(o.ready, 4), "new": o.new}
                    for card_id, o in outlook.dragging
                ],
                "plan_new_per_day": outlook.plan.new_per_day,
                "plan_reviews": outlook.plan.reviews_each,
                "new_cards": outlook.plan.new_cards,
                "final_pass_open": outlook.final_pass_open,
            }
        )
    elif not args.accept:
        print(readiness_report(outlook))
    return 0


def run_suspend(args: argparse.Namespace) -> int:
    from infracards.services.cards import set_card_suspended

    card = set_card_suspended(
        open_home(), card_id=args.card_id, suspended=args.suspend, deck_id=args.deck
    )
    state = "suspended: out of every review" if args.suspend else "back in the reviews"
    print(f"{card.deck_id} {card.card_id} is {state}")
    return 0


OPENS_APP = (run_mock,)


def register_more(commands: Commands) -> None:
    plan = commands.add_parser(
        "plan",
        help="readiness for the interview date, per topic, and new cards a day to be ready",
        description="Needs `infracards config interview-date YYYY-MM-DD`. Readiness: each "
        "card's predicted recall on that day times the share of its key points you said last "
        "time (see the README). --accept sets new-per-day to the plan.",
    )
    plan.add_argument(
        "--deck", type=text_argument, default=None, help="deck id (default: module03)"
    )
    plan.add_argument("--accept", action="store_true", help="set new-per-day to the plan")
    plan.add_argument("--json", action="store_true", help="print one JSON object")
    plan.set_defaults(handler=run_plan)

    for name, verb in (("suspend", "leaves"), ("unsuspend", "rejoins")):
        command = commands.add_parser(
            name, help=f"the card {verb} every review and count (its schedule is kept)"
        )
        command.add_argument(
            "card_id", type=text_argument, metavar="CARD_ID", help="card id such as q05"
        )
        command.add_argument(
            "--deck", type=text_argument, help="deck id, when several decks have this card id"
        )
        command.set_defaults(handler=run_suspend, suspend=name == "suspend")
