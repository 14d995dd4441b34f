"""The Textual app: wiring only. Screens own the use cases."""

from __future__ import annotations

import asyncio
import gc
import signal
from collections.abc import Iterable
from contextlib import suppress
from datetime import date
from functools import partial
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from infracards.errors import InfracardsError
from infracards.records import MockOptions
from infracards.seal import license_path
from infracards.services.settings import save_theme, saved_theme
from infracards.tui.context import AppContext
from infracards.tui.line_breaks import enable_cjk_line_breaks
from infracards.tui.messages import AnswersOpened, DeckInView
from infracards.tui.screens.home import HomeScreen
from infracards.tui.screens.review import ReviewScreen
from infracards.tui.text import notice

if TYPE_CHECKING:
    from infracards.services.unlock import OpenedRelease
    from infracards.tui.dialogs.practice import PracticeChoice
    from infracards.tui.screens.mock import MockReserve

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

    def __init__(
        self,
        context: AppContext,
        *,
        start_review: str | None = None,
        start_mock: MockOptions | None = None,
    ) -> None:
        super().__init__()
        enable_cjk_line_breaks()
        self.context = context
        self.start_review = start_review
        self.start_mock = start_mock
        self.mock_reserve: MockReserve | None = None
        """Made when Home is first shown (the mock screen's module is not loaded before)."""
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
        elif self.start_mock is not None:
            self.open_mock(self.start_mock)
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
        from infracards.tui.screens.mock import MockScreen
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
                MockScreen,
                "Mock interview",
                "Questions drawn as an interviewer would, against a clock, then self-checked",
                self.action_mock,
            ),
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
        yield SystemCommand(
            "Extra study",
            "Study ahead, more new cards today, cram, the final pass (outside the schedule)",
            self.action_practice,
        )
        yield SystemCommand(
            "Interview date",
            "Set or clear it: readiness and a plan on Home",
            self.action_interview_date,
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

    def action_mock(self) -> None:
        """A mock interview of the selected deck, with the default questions and minutes."""
        deck_id = self._selected_deck()
        if deck_id is None:
            self.notify("No deck is loaded.", severity="warning")
            return
        self.open_mock(MockOptions(deck_id=deck_id))

    def open_mock(self, options: MockOptions) -> None:
        from infracards.tui.screens.mock import MockScreen, open_mock_screen

        if self._back_to(MockScreen):
            return
        screen = self.mock_reserve.take(options) if self.mock_reserve is not None else None
        if screen is None:
            try:
                screen = open_mock_screen(self.context, options)
            except InfracardsError as error:
                self.notify(notice(str(error)), severity="warning", timeout=6, markup=False)
                return
        self.push_screen(screen)

    def on_deck_in_view(self, message: DeckInView) -> None:
        from infracards.tui.screens.mock import MockReserve

        if self.mock_reserve is None:
            self.mock_reserve = MockReserve(self, self.context)
        self.mock_reserve.keep_for(message.deck_id)

    def action_practice(self) -> None:
        """Extra study for the selected deck: study ahead, more new cards, cram, final pass."""
        from infracards.services.practice import practice_options
        from infracards.tui.dialogs.practice import PracticeMenu

        deck_id = self._selected_deck()
        if deck_id is None:
            self.notify("No deck is loaded.", severity="warning")
            return
        options = practice_options(self.context.engine, deck_id=deck_id, now=self.context.clock())
        self.push_screen(PracticeMenu(options), partial(self._practice_chosen, deck_id))

    def _practice_chosen(self, deck_id: str, choice: PracticeChoice | None) -> None:
        from infracards.services import practice
        from infracards.services.settings import add_new_cards_today
        from infracards.tui.dialogs import practice as menu

        if choice is None:
            return
        engine, now = self.context.engine, self.context.clock()
        try:
            if choice.kind == menu.MORE_NEW:
                limit = add_new_cards_today(engine, now=now)
                self.notify(f"Today's new-card limit is {limit}.", timeout=3)
                self.push_screen(ReviewScreen(self.context, deck_id=deck_id))
                return
            chosen = {
                menu.AHEAD: lambda: practice.study_ahead(engine, deck_id=deck_id, now=now),
                menu.TOPIC: lambda: practice.cram_topic(
                    engine, deck_id=deck_id, topic=choice.topic or ""
                ),
                menu.WEAKEST: lambda: practice.cram_weakest(engine, deck_id=deck_id),
                menu.MISSED: lambda: practice.most_missed(engine, deck_id=deck_id),
                menu.FINAL: lambda: practice.final_pass(engine, deck_id=deck_id, now=now),
            }[choice.kind]()
        except InfracardsError as error:
            self.notify(notice(str(error)), severity="warning", timeout=5, markup=False)
            return
        self.push_screen(ReviewScreen(self.context, deck_id=deck_id, practice=chosen))

    def action_interview_date(self) -> None:
        from infracards.services.settings import study_prefs
        from infracards.tui.dialogs.interview import InterviewDateDialog

        current = study_prefs(self.context.engine).interview_date
        self.push_screen(InterviewDateDialog(self.context, current=current), self._date_set)

    def _date_set(self, value: date | str | None) -> None:
        if value is None:
            return
        if isinstance(value, date):
            self.notify(f"Interview date: {value.isoformat()}", timeout=3)
        else:
            self.notify("Interview date cleared.", timeout=3)
        for screen in self.screen_stack:
            if isinstance(screen, HomeScreen) and screen.built:
                screen.refresh_decks()

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
            self.notify(notice(f"{deck_id} is already unlocked."), markup=False)
            return
        from infracards.tui.dialogs.unlock import UnlockDialog

        self.push_screen(UnlockDialog(self.context, deck_id=deck_id), self._unlocked)

    def _unlocked(self, opened: OpenedRelease | None) -> None:
        if opened is None:
            return
        unlocked = f"Unlocked {opened.deck_id} v{opened.release}: every sealed answer opens now."
        self.notify(notice(unlocked), markup=False)
        if opened.dropped:
            dropped = (
                f"The stored key for {', '.join(opened.dropped)} was damaged and is no longer "
                "kept: unlock that deck again with its card key."
            )
            self.notify(notice(dropped), severity="warning", timeout=10, markup=False)
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
        for text in notices:
            self.notify(notice(text), severity="warning", timeout=10, markup=False)
        if opened:
            for screen in self.screen_stack:
                screen.post_message(AnswersOpened())
