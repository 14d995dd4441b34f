"""One card, read-only: prompt, answer, key points and its review history."""

from __future__ import annotations

from datetime import date

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Header

from infracards.errors import InfracardsError
from infracards.records import CardRecord
from infracards.services.cards import card_detail, card_flags, set_card_buried, set_card_suspended
from infracards.services.formatting import cells, key_points_heading, plural
from infracards.services.library import notation_page
from infracards.services.settings import study_day_at
from infracards.tui.context import AppContext, prepare
from infracards.tui.messages import AnswersOpened
from infracards.tui.text import CELL_PADDING, notice
from infracards.tui.widgets.card_view import CardView
from infracards.tui.widgets.footer import KeysFooter

HISTORY_LABELS = ("Reviewed", "Study day", "Grade", "Drill", "Interval after")
COMPACT_HISTORY_LABELS = (*HISTORY_LABELS[:-1], "Interval")
"""For a table too narrow for the first labels: at 60 columns "Interval after" was cut."""
HISTORY_GUTTER = 6
"""The table's margins (2 + 2) and a vertical scrollbar's cells (a long history has one)."""


def history_labels(rows: list[tuple[str, ...]], width: int) -> tuple[str, ...]:
    """The history's column labels: the full ones where every column fits in ``width``."""
    needed = sum(
        max([cells(label), *(cells(row[i]) for row in rows)]) + CELL_PADDING
        for i, label in enumerate(HISTORY_LABELS)
    )
    return HISTORY_LABELS if needed + HISTORY_GUTTER <= width else COMPACT_HISTORY_LABELS


class CardScreen(Screen[None]):
    """Reading a card from Browse; nothing here changes its schedule."""

    BINDINGS = [
        Binding("at", "suspend", "Suspend", key_display="@", id="suspend"),
        Binding("minus", "bury", "Bury", key_display="-", id="bury"),
        Binding("k", "app.unlock", "Unlock", id="unlock"),
        Binding("equals_sign", "calculator", "Calculator", key_display="=", id="calculator"),
        Binding("n", "notation", "Notation", id="notation"),
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
        self.card: CardRecord | None = None
        self.notation: str | None = None
        """The deck's notation page, when it has one (`n`)."""
        self.card_id = ""
        self.flags: tuple[bool, bool, date | None] = (False, False, None)
        """(suspended, leech, buried on)."""
        self.today = study_day_at(context.engine, now=context.clock())
        self.history_rows: list[tuple[str, ...]] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield CardView(id="card-view")
        yield DataTable(id="history-table", cursor_type="none", zebra_stripes=True)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.call_after_refresh(self.show)  # the answer is laid out for the view's final width

    def on_resize(self) -> None:
        table = self.query_one(DataTable)
        labels = history_labels(self.history_rows, self.size.width)
        if [str(column.label) for column in table.columns.values()] != list(labels):
            self.show_history()

    def show_history(self) -> None:
        """The review history, its labels as long as the screen's width allows."""
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_columns(*history_labels(self.history_rows, self.size.width))
        table.add_rows(self.history_rows)

    def show(self) -> None:
        card, history = card_detail(self.context.engine, pk=self.card_pk)
        self.card = card
        self.card_id = card.card_id
        self.flags = card_flags(self.context.engine, pk=self.card_pk)
        self.deck_id = card.deck_id
        self.notation = notation_page(self.context.engine, deck_id=card.deck_id)
        self.locked = card.locked and not self.context.answers.is_unlocked(card.deck_id)
        self.refresh_bindings()
        view = self.query_one(CardView)
        due = card.due.isoformat() if card.due else "new"
        suspended, leech, buried_on = self.flags
        flags = [
            name
            for name, on in (
                ("suspended", suspended),
                ("leech", leech),
                ("buried today", buried_on == self.today),
            )
            if on
        ]
        caption = " · ".join([f"due {due}", *flags])
        view.show_card(card_id=card.card_id, tags=card.tags, prompt=card.prompt, caption=caption)
        prepared = prepare(self.context, card, width=view.answer_width)
        view.reveal(prepared.rendered, notice=prepared.notice)
        answer = prepared.rendered.answer if prepared.rendered is not None else None
        if answer is not None and answer.key_points:
            view.key_points.show_points(
                answer.key_points, keys="", checkable=0, title=key_points_heading(card.language)
            )
        self.call_after_refresh(self.refresh_bindings)  # `p` once the prompt's width is known
        self.history_rows = [
            (
                entry.reviewed_at.astimezone().strftime("%Y-%m-%d %H:%M"),  # the learner's
                entry.study_day.isoformat(),
                str(entry.grade),
                "yes" if entry.drill else "",
                f"{entry.interval_after}d",
            )
            for entry in history
        ]
        self.show_history()
        self.sub_title = f"{notice(card.deck_id)} · {plural(len(history), 'review')}"

    @property
    def unlock_target(self) -> str | None:
        """The deck `k` unlocks: this card's, while its answer is sealed."""
        return self.deck_id if self.locked else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "calculator":
            return self.card is not None and bool(self.card.calculators)
        if action == "notation":
            return self.notation is not None
        if action == "toggle_prompt":
            return self.query_one(CardView).prompt_is_long
        return True

    def on_answers_opened(self, _message: AnswersOpened) -> None:
        self.show()

    def action_calculator(self) -> None:
        """The card's calculators, filled with the answer's worked examples when it is open."""
        from infracards.tui.screens.calculator import open_calculator

        if self.card is not None and self.card.calculators:
            open_calculator(self, self.context, self.card, answer_shown=True)

    def action_notation(self) -> None:
        from infracards.tui.screens.notation import NotationScreen

        if self.notation is not None:
            self.app.push_screen(NotationScreen(deck_id=self.deck_id, markdown=self.notation))

    def action_suspend(self) -> None:
        """Suspend this card, or unsuspend it; its schedule and history stay."""
        suspended = self.flags[0]
        try:
            set_card_suspended(
                self.context.engine,
                card_id=self.card_id,
                deck_id=self.deck_id,
                suspended=not suspended,
            )
        except InfracardsError as error:
            self.notify(notice(f"Nothing changed: {error}"), severity="error", markup=False)
            return
        changed = f"{self.card_id} {'unsuspended' if suspended else 'suspended'}"
        self.notify(notice(changed), timeout=2, markup=False)
        self.show()

    def action_bury(self) -> None:
        """Bury this card until tomorrow, or unbury it."""
        buried = self.flags[2] == self.today
        try:
            set_card_buried(
                self.context.engine, pk=self.card_pk, day=None if buried else self.today
            )
        except InfracardsError as error:
            self.notify(notice(f"Nothing changed: {error}"), severity="error", markup=False)
            return
        changed = f"{self.card_id} {'unburied' if buried else 'buried until tomorrow'}"
        self.notify(notice(changed), timeout=2, markup=False)
        self.show()

    def action_toggle_prompt(self) -> None:
        """The whole question, or one line again."""
        view = self.query_one(CardView)
        view.expand_prompt(view.prompt_collapsed)

    def action_back(self) -> None:
        self.dismiss()
