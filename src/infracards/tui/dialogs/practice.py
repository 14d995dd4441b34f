"""Extra study once today's queue is done: study ahead, more new cards today, cram, and the
final pass before an interview. Everything but "more new cards" is practice outside the
schedule: the menu says so on every line."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from infracards.services.formatting import OUTSIDE_SCHEDULE, plural
from infracards.services.practice import AHEAD_DAYS, PracticeOptions
from infracards.services.settings import MORE_NEW_CARDS
from infracards.tui.text import literal

AHEAD = "ahead"
MORE_NEW = "more-new"
TOPIC = "topic"
WEAKEST = "weakest"
MISSED = "missed"
FINAL = "final"


@dataclass(frozen=True, slots=True)
class PracticeChoice:
    """What the learner picked: one of the kinds above (a topic for ``topic``)."""

    kind: str
    topic: str | None = None


class PracticeMenu(ModalScreen[PracticeChoice | None]):
    """Lists what is available with its card count; a topic is picked from a second list."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel")]

    def __init__(self, options: PracticeOptions) -> None:
        super().__init__()
        self.options = options

    def compose(self) -> ComposeResult:
        options = self.options
        choices = [
            Option(
                f"Study ahead: {plural(options.ahead, 'card')} due in the next {AHEAD_DAYS} days",
                id=AHEAD,
                disabled=not options.ahead,
            ),
            Option(
                f"{MORE_NEW_CARDS} more new cards today (normal reviews: today's new limit"
                f" goes up by {MORE_NEW_CARDS})",
                id=MORE_NEW,
            ),
            Option("Cram a topic…", id=TOPIC, disabled=not options.topics),
            Option(
                f"Cram the weakest cards ({options.weakest}, lowest EF)",
                id=WEAKEST,
                disabled=not options.weakest,
            ),
            Option(
                f"Cram the key points you miss most ({plural(options.most_missed, 'card')})",
                id=MISSED,
                disabled=not options.most_missed,
            ),
        ]
        if options.final_pass is not None:
            choices.insert(
                0,
                Option(
                    f"Final pass before the interview: {plural(options.final_pass, 'card')}"
                    " not reviewed in the last days",
                    id=FINAL,
                    disabled=not options.final_pass,
                ),
            )
        with Vertical(id="practice-dialog", classes="dialog"):
            yield Label("Extra study", classes="dialog-title")
            yield Static(
                f"Study ahead, cram and the final pass are {OUTSIDE_SCHEDULE}.",
                classes="dialog-status",
            )
            yield OptionList(*choices, id="practice-options")
            yield OptionList(
                *(
                    Option(literal(f"{topic} ({plural(n, 'card')})", one_line=True), id=topic)
                    for topic, n in options.topics
                ),
                id="practice-topics",
            )
            yield Label("enter choose · esc cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#practice-topics").display = False
        self.query_one("#practice-options").focus()

    @on(OptionList.OptionSelected, "#practice-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == TOPIC:
            self.query_one("#practice-options").display = False
            topics = self.query_one("#practice-topics", OptionList)
            topics.display = True
            topics.focus()
            return
        self.dismiss(PracticeChoice(str(event.option.id)))

    @on(OptionList.OptionSelected, "#practice-topics")
    def _topic(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(PracticeChoice(TOPIC, topic=str(event.option.id)))

    def action_cancel(self) -> None:
        self.dismiss(None)
