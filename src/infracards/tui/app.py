"""The Textual app: wiring only. Screens own the use cases."""

from __future__ import annotations

import asyncio
import gc
import signal
from collections.abc import Iterable
from contextlib import suppress
from functools import partial
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from infracards.errors import InfracardsError
from infracards.seal import license_path
from infracards.services.settings import save_theme, saved_theme
from infracards.tui.context import AppContext
from infracards.tui.line_breaks import enable_cjk_line_breaks
from infracards.tui.messages import AnswersOpened
from infracards.tui.screens.home import HomeScreen
from infracards.tui.screens.review import ReviewScreen

if TYPE_CHECKING:
    from infracards.services.unlock import OpenedRelease

# Browse, statistics and the unlock dialog (with `cryptography`) are imported when first opened:
# the first card is drawn sooner without them.

DEFAULT_DECK = "module03"


def settle_startup_memory() -> None:
    """After the first frame: what start-up built (modules, widgets, styles; ~130k objects)
    lives as long as the app. Frozen, it is left out of every later full collection, which
    otherwise walked it every few grades (100-170 ms stalls). Collection resumes here if the
    entry point paused it for start-up."""
    gc.freeze()
    gc.enable()


class InfracardsApp(App[None]):
    """Review, browse and unlock flashcards stored in the local database."""

    CSS_PATH = "infracards.tcss"
    TITLE = "infracards"
    SUB_TITLE = "LLM infra interview prep"
    """Short: the header cut "SM-2 flashcards for LLM infra interviews" at 60 columns."""
    BINDINGS = [
        Binding("question_mark,f1", "toggle_keys", "Keys", key_display="?", id="keys"),
        # Before any screen's own Esc (leave, back), and only while the panel is open.
        Binding("escape", "hide_keys", "Close keys", show=False, priority=True),
    ]

    def __init__(self, context: AppContext, *, start_review: str | None = None) -> None:
        super().__init__()
        enable_cjk_line_breaks()
        self.context = context
        self.start_review = start_review
        self.saved_theme: str | None = None
        """The theme chosen in an earlier run (command palette → Theme), kept in settings."""

    def on_mount(self) -> None:
        # A polite kill (SIGTERM) ends the app as q does: the terminal is given back and the
        # store closed. Without this the process died with the screen still in app mode.
        with suppress(NotImplementedError):  # event loops without POSIX signals
            asyncio.get_running_loop().add_signal_handler(
                signal.SIGTERM, partial(self.exit, return_code=128 + signal.SIGTERM)
            )
        self.saved_theme = saved_theme(self.context.engine)
        if self.saved_theme in self.available_themes:  # one a newer Textual had may be gone
            self.theme = self.saved_theme
        self.call_after_refresh(settle_startup_memory)
        self.push_screen(HomeScreen(self.context))
        if self.start_review is not None:
            self.push_screen(ReviewScreen(self.context, deck_id=self.start_review))
        if license_path(self.context.home).exists():
            # After the first frame: the KDF holds the GIL (~0.15 s), and a worker started now
            # would hold back the first card by as much.
            self.call_after_refresh(self.open_saved_keys)

    def on_unmount(self) -> None:
        gc.unfreeze()  # one process may run many apps (the test suite does)
        if self.theme != self.saved_theme:
            # Saved once at the end, not on each theme the picker previews. Like the session's
            # end time, a store that cannot take it must not make quitting fail.
            with suppress(InfracardsError):
                save_theme(self.context.engine, self.theme)
        with suppress(NotImplementedError):
            asyncio.get_running_loop().remove_signal_handler(signal.SIGTERM)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        from infracards.tui.screens.browse import BrowseScreen
        from infracards.tui.screens.stats import StatsScreen

        yield from super().get_system_commands(screen)
        commands = [
            (
                ReviewScreen,
                "Review",
                "Review the selected deck's cards due today",
                self.action_review,
            ),
            (BrowseScreen, "Browse", "Search and read every card", self.action_browse),
            (
                StatsScreen,
                "Statistics",
                "Review calendar, streaks, forecast, retention",
                self.action_stats,
            ),
        ]
        for kind, title, help_text, action in commands:
            if not isinstance(screen, kind):  # not the screen the learner is on
                yield SystemCommand(title, help_text, action)
        yield SystemCommand(
            "Unlock answers", "Enter a card key (卡密) to open sealed answers", self.action_unlock
        )

    def _selected_deck(self) -> str | None:
        home = next((s for s in self.screen_stack if isinstance(s, HomeScreen)), None)
        return home.selected_deck if home is not None else None

    def _back_to(self, kind: type[Screen[None]]) -> bool:
        """Go back to an open screen of this kind, closing those above it; one of each at a
        time (a second review of the same deck over the first made q show it again)."""
        open_screen = next((s for s in self.screen_stack if isinstance(s, kind)), None)
        if open_screen is None:
            return False
        while self.screen is not open_screen:
            self.pop_screen()
        return True

    def action_review(self) -> None:
        if self._back_to(ReviewScreen):
            return
        deck_id = self._selected_deck()
        if deck_id is None:
            self.notify("No deck is loaded.", severity="warning")
            return
        self.push_screen(ReviewScreen(self.context, deck_id=deck_id))

    def action_browse(self) -> None:
        from infracards.tui.screens.browse import BrowseScreen

        if not self._back_to(BrowseScreen):
            self.push_screen(BrowseScreen(self.context))

    def action_stats(self) -> None:
        from infracards.tui.screens.stats import StatsScreen

        if not self._back_to(StatsScreen):
            self.push_screen(StatsScreen(self.context))

    @property
    def keys_shown(self) -> bool:
        """Whether the keys help panel is open on the screen in front."""
        return bool(self.screen.query("HelpPanel"))  # by name: its module imports Markdown

    def action_toggle_keys(self) -> None:
        """`?` or F1, on every screen: what each key does there."""
        if self.keys_shown:
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_hide_keys(self) -> None:
        self.action_hide_help_panel()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`k` shows only where the screen names a deck whose answers are still sealed; Esc
        closes the keys help first when it is open, and is the screen's own key otherwise."""
        if action == "hide_keys":
            return self.keys_shown
        if action == "unlock":
            deck_id = getattr(self.screen, "unlock_target", None)
            return deck_id is not None and not self.context.answers.is_unlocked(deck_id)
        return True

    def action_unlock(self) -> None:
        """Unlock the deck in front: the one the screen names (``unlock_target``: the reviewed
        or shown card's, Home's selection), else Home's selection, else the built-in deck."""
        deck_id = getattr(self.screen, "unlock_target", None)
        deck_id = deck_id or self._selected_deck() or DEFAULT_DECK
        if self.context.answers.is_unlocked(deck_id):
            self.notify(f"{deck_id} is already unlocked.")
            return
        from infracards.tui.dialogs.unlock import UnlockDialog

        self.push_screen(UnlockDialog(self.context, deck_id=deck_id), self._unlocked)

    def _unlocked(self, opened: OpenedRelease | None) -> None:
        if opened is None:
            return
        self.notify(f"Unlocked {opened.deck_id} v{opened.release}: every sealed answer opens now.")
        self._answers_opened([opened], [])

    @work(thread=True, exclusive=True, group="saved-keys")
    def open_saved_keys(self) -> None:
        """One KDF per unlocked deck (~0.15 s each), in a worker, once the app is on screen."""
        from infracards.services import unlock

        opened, notices = unlock.open_saved_keys(self.context.engine, self.context.home)
        self.call_from_thread(self._answers_opened, opened, notices)

    def _answers_opened(self, opened: list[OpenedRelease], notices: list[str]) -> None:
        for release in opened:
            self.context.answers.add(release)
        for notice in notices:
            self.notify(notice, severity="warning", timeout=10)
        if opened:
            for screen in self.screen_stack:
                screen.post_message(AnswersOpened())
