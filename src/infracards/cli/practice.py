"""Interview practice: `mock`, `plan`, `suspend` and `unsuspend`."""

from __future__ import annotations

import argparse
import gc
from typing import TYPE_CHECKING

from infracards.cli.common import launch_app, open_home, print_json

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
    mock.add_argument("--topic", metavar="T", help="only cards whose topic (first tag) is T")
    mock.add_argument(
        "--deck", help="deck id (default: module03; with --report: every deck unless given)"
    )
    mock.add_argument("--report", action="store_true", help="print past mock interviews")
    mock.add_argument("--json", action="store_true", help="with --report: one JSON list")
    mock.set_defaults(handler=run_mock)


def run_mock(args: argparse.Namespace) -> int:
    from infracards.services.formatting import mock_history_text

    engine = open_home()
    if args.report:
        gc.enable()  # no app: nothing resumes it after a first frame
        from infracards.services.formatting import mock_document
        from infracards.services.library import require_deck
        from infracards.services.mock import mock_reports

        if args.deck is not None:
            require_deck(engine, args.deck)
        reports = mock_reports(engine, deck_id=args.deck)
        if args.json:
            print_json(mock_document(reports))
        else:
            print(mock_history_text(reports))
        return 0
    from infracards.services.mock import check_options
    from infracards.tui.app import DEFAULT_DECK, MockOptions

    deck = args.deck or DEFAULT_DECK
    check_options(
        engine, deck_id=deck, questions=args.questions, minutes=args.minutes, topic=args.topic
    )
    options = MockOptions(deck, args.questions, args.minutes, args.topic)
    return launch_app(engine, start_review=None, start_mock=options)


OPENS_APP = (run_mock,)
