"""The key footer, without a Textual leak that slowed every grade of a long session."""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeysFooter(Footer):
    """``Footer`` that lets go of the key widgets it has replaced.

    Textual 8.2 (issue #6666): every ``FooterKey`` data-binds ``Footer.compact``, and the footer
    drops the watchers of closed keys only when ``compact`` changes, which it never does here.
    The review screen's keys are rebuilt about twice a card, so ~6 widgets a grade stayed alive:
    after 150 grades, gen-2 collections paused the app for 120-170 ms every few grades.
    """

    async def recompose(self) -> None:
        await super().recompose()
        watchers = getattr(self, "__watchers", {}).get("compact")
        if watchers:  # the same pruning Textual does when compact changes
            watchers[:] = [(node, callback) for node, callback in watchers if not node._closing]

    def bindings_changed(self, screen: Any) -> None:
        """Keys that only change between enabled and disabled are restyled in place; the
        footer is rebuilt only when another set of keys is shown. A screen that returns None
        from ``check_action`` (rather than False) for keys that come and go keeps its set
        stable, and its disabled keys are not drawn (``infracards.tcss``): rebuilding the ~10
        keys twice a card was about half of grade → next card drawn."""
        if self._restyle_in_place(screen):
            return
        super().bindings_changed(screen)

    def _restyle_in_place(self, screen: Any) -> bool:
        if not (self._bindings_ready and self.is_attached and screen is self.screen):
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
