"""One card, read-only: prompt, answer, key points and its review history."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Header

from infracards.services.cards import card_detail
from infracards.services.formatting import plural
from infracards.tui.context import AppContext, prepare
from infracards.tui.messages import AnswersOpened
from infracards.tui.widgets.card_view import CardView
from infracards.tui.widgets.footer import KeysFooter


class CardScreen(Screen[None]):
    """Reading a card from Browse; nothing here changes its schedule."""

    BINDINGS = [
        Binding("k", "app.unlock", "Unlock", id="unlock"),
        Binding("p", "toggle_prompt", "Question", id="prompt"),
        Binding("escape,q", "back", "Back", id="back"),
    ]

    def __init__(self, context: AppContext, *, card_pk: int) -> None:
        super().__init__()
        self.context = context
        self.card_pk = card_pk
        self.deck_id = ""
        self.locked = False
        """The card's answer is sealed and its deck not unlocked: only then is k offered."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield CardView(id="card-view")
        yield DataTable(id="history-table", cursor_type="none", zebra_stripes=True)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(
            "Reviewed", "Study day", "Grade", "Drill", "Interval after"
        )
        self.call_after_refresh(self.show)  # the answer is laid out for the view's final width

    def show(self) -> None:
        card, history = card_detail(self.context.engine, pk=self.card_pk)
        self.deck_id = card.deck_id
        self.locked = card.locked and not self.context.answers.is_unlocked(card.deck_id)
        self.refresh_bindings()
        view = self.query_one(CardView)
        due = card.due.isoformat() if card.due else "new"
        view.show_card(
            card_id=card.card_id, tags=card.tags, prompt=card.prompt, caption=f"due {due}"
        )
        prepared = prepare(self.context, card, width=view.answer_width)
        view.reveal(prepared.rendered, notice=prepared.notice)
        self.call_after_refresh(self.refresh_bindings)  # `p` once the prompt's width is known
        table = self.query_one(DataTable)
        table.clear()
        for entry in history:
            table.add_row(
                entry.reviewed_at.astimezone().strftime("%Y-%m-%d %H:%M"),  # the learner's
                entry.study_day.isoformat(),
                str(entry.grade),
                "yes" if entry.drill else "",
                f"{entry.interval_after}d",
            )
        self.sub_title = f"{card.deck_id} · {plural(len(history), 'review')}"

    @property
    def unlock_target(self) -> str | None:
        """The deck `k` unlocks: this card's, while its answer is sealed."""
        return self.deck_id if self.locked else None

    def on_answers_opened(self, _message: AnswersOpened) -> None:
        self.show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_prompt":
            return self.query_one(CardView).prompt_is_long
        return True

    def action_toggle_prompt(self) -> None:
        """The whole question, or one line again."""
        view = self.query_one(CardView)
        view.expand_prompt(view.prompt_collapsed)

    def action_back(self) -> None:
        self.dismiss()
