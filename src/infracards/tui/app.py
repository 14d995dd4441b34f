"""The Textual app: wiring only. Screens own the use cases."""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import App, SystemCommand
from textual.screen import Screen

from infracards.tui.context import AppContext
from infracards.tui.screens.browse import BrowseScreen
from infracards.tui.screens.home import HomeScreen
from infracards.tui.screens.review import ReviewScreen


class InfracardsApp(App[None]):
    """Review, browse and unlock flashcards stored in the local database."""

    CSS_PATH = "infracards.tcss"
    TITLE = "infracards"
    SUB_TITLE = "SM-2 flashcards for LLM infra interviews"

    def __init__(
        self, context: AppContext, *, notice: str = "", start_review: str | None = None
    ) -> None:
        super().__init__()
        self.context = context
        self.notice = notice
        self.start_review = start_review

    def on_mount(self) -> None:
        self.push_screen(HomeScreen(self.context, notice=self.notice))
        if self.start_review is not None:
            self.push_screen(ReviewScreen(self.context, deck_id=self.start_review))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Review", "Review the selected deck's cards due today", self.action_review
        )
        yield SystemCommand("Browse", "Search and read every card", self.action_browse)
        yield SystemCommand(
            "Unlock answers", "Enter a card key (卡密) to open sealed answers", self.action_unlock
        )

    def _selected_deck(self) -> str | None:
        home = next((s for s in self.screen_stack if isinstance(s, HomeScreen)), None)
        return home.selected_deck if home is not None else None

    def action_review(self) -> None:
        deck_id = self._selected_deck()
        if deck_id is None:
            self.notify("No deck is loaded.", severity="warning")
            return
        self.push_screen(ReviewScreen(self.context, deck_id=deck_id))

    def action_browse(self) -> None:
        self.push_screen(BrowseScreen(self.context))

    def action_unlock(self) -> None:
        self.notify("Unlocking sealed answers is not available in this build.", severity="warning")
