"""The Textual app: wiring only. Screens own the use cases."""

from __future__ import annotations

from collections.abc import Iterable

from textual import on, work
from textual.app import App, SystemCommand
from textual.screen import Screen

from infracards.seal import license_path
from infracards.tui.context import AppContext
from infracards.tui.dialogs.unlock import UnlockDialog
from infracards.tui.line_breaks import enable_cjk_line_breaks
from infracards.tui.messages import AnswersOpened, UnlockRequested
from infracards.tui.screens.browse import BrowseScreen
from infracards.tui.screens.home import HomeScreen
from infracards.tui.screens.review import ReviewScreen
from infracards.unlock import OpenedRelease, open_saved_keys

DEFAULT_DECK = "module03"


class InfracardsApp(App[None]):
    """Review, browse and unlock flashcards stored in the local database."""

    CSS_PATH = "infracards.tcss"
    TITLE = "infracards"
    SUB_TITLE = "SM-2 flashcards for LLM infra interviews"

    def __init__(self, context: AppContext, *, start_review: str | None = None) -> None:
        super().__init__()
        enable_cjk_line_breaks()
        self.context = context
        self.start_review = start_review

    def on_mount(self) -> None:
        self.push_screen(HomeScreen(self.context))
        if self.start_review is not None:
            self.push_screen(ReviewScreen(self.context, deck_id=self.start_review))
        if license_path(self.context.home).exists():
            self.open_saved_keys()
        self.call_after_refresh(self._freeze_startup_objects)

    def _freeze_startup_objects(self) -> None:
        """Keep what start-up built (modules, widgets, styles) out of every later full collection.

        Python's oldest-generation collections walk every tracked object: with Textual's ~130k
        that took 100-170 ms, a stall every few grades. Frozen objects are never collected, so
        start-up garbage stays until exit (``on_unmount`` thaws it for the next app in a process).
        """
        import gc

        gc.freeze()

    def on_unmount(self) -> None:
        import gc

        gc.unfreeze()

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Review", "Review the selected deck's cards due today", self.action_review
        )
        yield SystemCommand("Browse", "Search and read every card", self.action_browse)
        yield SystemCommand(
            "Statistics", "Review calendar, streaks, forecast, retention", self.action_stats
        )
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

    def action_stats(self) -> None:
        from infracards.tui.screens.stats import StatsScreen  # charts are needed only here

        self.push_screen(StatsScreen(self.context))

    def action_unlock(self) -> None:
        self.post_message(UnlockRequested(self._selected_deck() or DEFAULT_DECK))

    @on(UnlockRequested)
    def _unlock_requested(self, message: UnlockRequested) -> None:
        if self.context.answers.is_unlocked(message.deck_id):
            self.notify(f"{message.deck_id} is already unlocked.")
            return
        self.push_screen(UnlockDialog(self.context, deck_id=message.deck_id), self._unlocked)

    def _unlocked(self, opened: OpenedRelease | None) -> None:
        if opened is None:
            return
        self.notify(f"Unlocked {opened.deck_id} v{opened.release}: every sealed answer opens now.")
        self._answers_opened([opened], [])

    @work(thread=True, exclusive=True, group="saved-keys")
    def open_saved_keys(self) -> None:
        """One KDF per unlocked deck (~0.3 s), off the UI thread, at start."""
        opened, notices = open_saved_keys(self.context.engine, self.context.home)
        self.call_from_thread(self._answers_opened, opened, notices)

    def _answers_opened(self, opened: list[OpenedRelease], notices: list[str]) -> None:
        for release in opened:
            self.context.answers.add(release)
        for notice in notices:
            self.notify(notice, severity="warning", timeout=10)
        if opened:
            for screen in self.screen_stack:
                screen.post_message(AnswersOpened())
