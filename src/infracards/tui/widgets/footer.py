"""The key footer of the review screen: rebuilt only when the keys it shows change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.screen import Screen


class KeysFooter(Footer):
    """``Footer`` that rebuilds its keys once per change, and lets go of the ones it replaced.

    Textual's footer rebuilds every key widget after each ``refresh_bindings``, however many
    come in one frame and whether or not a key changed: about nine rebuilds of ~5 ms per grade
    on the review screen, where revealing, grading and undoing each touch the bindings. Here
    the rebuild waits for the frame, runs once, and only if what the keys show has changed.

    Textual 8.2 (issue #6666) also keeps a watcher per closed ``FooterKey`` until ``compact``
    changes, which it never does here: after 150 grades, gen-2 collections paused the app for
    120-170 ms every few grades. The pruning below drops them.
    """

    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple[object, ...] | None = None
        """What the keys showed when last built: (key, description, action, enabled) each."""
        self._pending = False

    def _keys_now(self) -> tuple[object, ...]:
        return tuple(
            (binding.key, binding.description, binding.action, enabled, tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        )

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if not self._pending:
            self._pending = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._pending = False
        if not self.is_attached:  # the screen closed before the frame came
            return
        shown = self._keys_now()
        if shown != self._shown:
            await self.recompose()

    async def recompose(self) -> None:
        self._shown = self._keys_now()
        await super().recompose()
        watchers = getattr(self, "__watchers", {}).get("compact")
        if watchers:  # the same pruning Textual does when compact changes
            watchers[:] = [(node, callback) for node, callback in watchers if not node._closing]
