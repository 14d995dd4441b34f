"""The key footer of the review screen: restyled in place, rebuilt only when its keys change."""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeysFooter(Footer):
    """``Footer`` that rebuilds its keys only when another set is shown, once per frame.

    Textual's footer rebuilds every key widget after each ``refresh_bindings``, however many
    come in one frame: revealing, grading and undoing each touch the bindings, and rebuilding
    the ~10 keys twice a card was about half of grade → next card drawn. Keys that only change
    between enabled and disabled are restyled in place; a screen that returns None from
    ``check_action`` (rather than False) for keys that come and go keeps its set stable, and
    its disabled keys are not drawn (``infracards.tcss``). Any other change waits for the frame
    and rebuilds once.

    Textual 8.2 (issue #6666) also keeps a watcher per closed ``FooterKey`` until ``compact``
    changes, which it never does here: after 150 grades, gen-2 collections paused the app for
    120-170 ms every few grades. ``recompose`` drops them.
    """

    def __init__(self) -> None:
        super().__init__()
        self._pending = False
        """A rebuild is scheduled after the next frame."""

    def bindings_changed(self, screen: Any) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if self._restyle_in_place(screen) or self._pending:
            return
        self._pending = True
        self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._pending = False
        if self.is_attached and not self._restyle_in_place(self.screen):
            await self.recompose()

    async def recompose(self) -> None:
        await super().recompose()
        watchers = getattr(self, "__watchers", {}).get("compact")
        if watchers:  # the same pruning Textual does when compact changes
            watchers[:] = [(node, callback) for node, callback in watchers if not node._closing]

    def _restyle_in_place(self, screen: Any) -> bool:
        """Restyle the keys shown if the screen offers the same ones; False if it does not."""
        if not self._bindings_ready:
            return False
        wanted: dict[str, bool] = {}
        for _namespace, binding, enabled, _tooltip in screen.active_bindings.values():
            if binding.show:
                wanted.setdefault(binding.action, enabled)
        shown = [key for key in self.query(FooterKey) if not key.has_class("-command-palette")]
        if [key.action for key in shown] != list(wanted):
            return False
        for key in shown:
            # Textual 8's FooterKey keeps its state in `_disabled` and the `-disabled` class
            # (what Footer.compose sets), not in Widget.disabled.
            key._disabled = not wanted[key.action]
            key.set_class(key._disabled, "-disabled")
        return True
