"""The calculator panel: one form per calculator of a card, outputs updated at every keystroke.

It draws ``Sheet``s and ``Evaluation``s (services.calculator) and forwards what is typed; what
a card offers, what a form starts with and what the inputs compute to are decided there.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import DescendantFocus
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import Header, Input, Label, Static, TabbedContent, TabPane

from infracards.records import CardRecord
from infracards.services.calculator import Evaluation, Field, Sheet, card_sheets, evaluate
from infracards.tui.context import AppContext
from infracards.tui.text import literal, notice
from infracards.tui.widgets.footer import KeysFooter


def input_id(model: str, flag: str) -> str:
    """The id of a field's Input (flags have single dashes, so "--" keeps ids unambiguous)."""
    return f"calc-{model}--{flag}"


class ParamRow(Vertical):
    """One parameter: name, input and unit on a line, its error message below when wrong."""

    def __init__(self, model: str, spec: Field) -> None:
        super().__init__(classes="calc-row")
        self.model = model
        self.spec = spec

    def compose(self) -> ComposeResult:
        with Horizontal(classes="calc-line"):
            yield Label(self.spec.flag, classes="calc-flag")
            yield Input(
                value=self.spec.text,
                placeholder=self.spec.placeholder,
                compact=True,
                suggester=SuggestFromList(self.spec.choices) if self.spec.choices else None,
                id=input_id(self.model, self.spec.flag),
                classes="calc-input",
            )
            yield Label(self.spec.unit, classes="calc-unit")
        yield Static(classes="calc-error")

    def show_error(self, message: str | None) -> None:
        error = self.query_one(".calc-error", Static)
        error.update(literal(message or ""))
        error.display = message is not None
        self.query_one(Input).set_class(message is not None, "calc-bad")


class ModelForm(TabPane):
    """One calculator: its inputs on the left, its outputs on the right."""

    def __init__(self, sheet: Sheet) -> None:
        super().__init__(sheet.model, id=f"calc-{sheet.model}")
        self.sheet = sheet

    def compose(self) -> ComposeResult:
        yield Static(literal(f"{self.sheet.title} · {self.sheet.origin}"), classes="calc-title")
        with Horizontal(classes="calc-body"):
            with VerticalScroll(classes="calc-inputs"):
                for spec in self.sheet.fields:
                    yield ParamRow(self.sheet.model, spec)
            yield Static(classes="calc-outputs")

    def on_mount(self) -> None:
        self.recompute()

    def texts(self) -> dict[str, str]:
        return {row.spec.flag: row.query_one(Input).value for row in self.query(ParamRow)}

    def recompute(self) -> None:
        shown = evaluate(self.sheet.model, self.texts())
        for row in self.query(ParamRow):
            row.show_error(shown.errors.get(row.spec.flag))
        self.query_one(".calc-outputs", Static).update(outputs_view(shown))

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.recompute()


def outputs_view(shown: Evaluation) -> Group:
    """Every output with its unit; below, what to fix when they cannot be computed."""
    table = Table.grid(padding=(0, 1))
    table.add_column(style="dim")
    table.add_column(style="bold" if shown.computed else "dim", justify="right")
    for row in shown.outputs:
        table.add_row(literal(row.key, one_line=True), literal(row.text, one_line=True))
    if shown.missing:
        needed = ", ".join(f"--{flag}" for flag in shown.missing)
        note = f"Fill in {needed} to compute."
    elif shown.errors:
        note = "Fix the marked inputs."
    else:
        note = shown.problem or ""
    return Group(table, literal(f"\n{note}" if note else "", style="italic"))


class CalculatorScreen(Screen[None]):
    """The calculators of one card; esc goes back to the card."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="back"),
        Binding("ctrl+n", "next_model", "Next calculator", id="next-model"),
        # Priority: an Input would otherwise take ↑↓ to scroll its one line.
        Binding("down", "app.focus_next", "Next field", key_display="↓", priority=True),
        Binding("up", "app.focus_previous", show=False, priority=True),
    ]

    def __init__(self, card: CardRecord, sheets: tuple[Sheet, ...]) -> None:
        super().__init__()
        self.card = card
        self.sheets = sheets

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(id="calc-tabs"):
            for sheet in self.sheets:
                yield ModelForm(sheet)
        yield Static(id="calc-hint")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.sub_title = f"Calculator · {notice(self.card.card_id)}"
        self.call_after_refresh(self._focus_first_field)

    def _focus_first_field(self) -> None:
        pane = self.query_one(TabbedContent).active_pane
        if pane is not None:
            pane.query(Input).first().focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_model":
            return len(self.sheets) > 1
        return True

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        """Say what the focused field is: its symbol in the deck's notation, its rule."""
        row = next((n for n in event.widget.ancestors if isinstance(n, ParamRow)), None)
        self.query_one("#calc-hint", Static).update(literal(row.spec.hint if row else ""))

    @on(Input.Submitted)
    def _submitted(self, _event: Input.Submitted) -> None:
        self.focus_next()

    def action_next_model(self) -> None:
        tabs = self.query_one(TabbedContent)
        names = [sheet.model for sheet in self.sheets]
        current = names.index(tabs.active.removeprefix("calc-"))
        tabs.active = f"calc-{names[(current + 1) % len(names)]}"
        self.call_after_refresh(self._focus_first_field)

    def action_back(self) -> None:
        self.dismiss()


def open_calculator(
    screen: Screen[None], context: AppContext, card: CardRecord, *, answer_shown: bool
) -> None:
    """Push the card's calculators (the review and card screens' `=`)."""
    sheets = card_sheets(card, context.answers, answer_shown=answer_shown)
    if not sheets:
        names = ", ".join(card.calculators)
        missing = notice(f"This version of infracards has no calculator {names}.")
        screen.notify(missing, severity="warning", markup=False)
        return
    screen.app.push_screen(CalculatorScreen(card, sheets))
