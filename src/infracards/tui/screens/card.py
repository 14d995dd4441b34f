"""One card, read-only: prompt, answer, key points and its review history."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header

from infracards.store.db import transaction
from infracards.store.queries import card_history, load_card
from infracards.tui.context import AppContext, prepare
from infracards.tui.messages import AnswersOpened, UnlockRequested
from infracards.tui.text import notice
from infracards.tui.widgets.card_view import CardView


class CardScreen(Screen[None]):
    """Reading a card from Browse; nothing here changes its schedule."""

    BINDINGS = [
        Binding("k", "unlock", "Unlock", id="unlock"),
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
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(
            "Reviewed (UTC)", "Study day", "Grade", "Drill", "Interval after"
        )
        self.call_after_refresh(self.show)  # the answer is laid out for the view's final width

    def show(self) -> None:
        with transaction(self.context.engine) as session:
            card = load_card(session, pk=self.card_pk)
            history = card_history(session, pk=self.card_pk)
        self.deck_id = card.deck_id
        self.locked = card.locked and not self.context.answers.is_unlocked(card.deck_id)
        self.refresh_bindings()
        view = self.query_one(CardView)
        due = card.due.isoformat() if card.due else "new"
        view.show_card(
            card_id=card.card_id, topic=card.topic, prompt=card.prompt, caption=f"due {due}"
        )
        prepared = prepare(self.context, card, width=view.answer_width)
        view.reveal(prepared.rendered, notice=prepared.notice)
        table = self.query_one(DataTable)
        table.clear()
        for entry in history:
            table.add_row(
                entry.reviewed_at.strftime("%Y-%m-%d %H:%M"),
                entry.study_day.isoformat(),
                str(entry.grade),
                "yes" if entry.drill else "",
                f"{entry.interval_after}d",
            )
        self.sub_title = f"{notice(card.deck_id)} · {len(history)} reviews"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.locked if action == "unlock" else True

    def on_answers_opened(self, _message: AnswersOpened) -> None:
        self.show()

    def action_unlock(self) -> None:
        self.post_message(UnlockRequested(self.deck_id))

    def action_back(self) -> None:
        self.dismiss()
