"""The key footer: compact when narrow, restyled in place, rebuilt only when its keys change."""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

COMPACT_BELOW = 100
"""Footer widths under which the keys drop their padding: at 60 columns Home's last keys
(``? Keys``) went out of sight."""
KEYS_HELP = "toggle_keys"
"""The action of ``? Keys`` (the app's), which lists every key: it is never left out."""


class KeysFooter(Footer):
    """``Footer`` that packs its keys when narrow and rebuilds them only when another set is
    shown, once per frame.

    Textual's footer rebuilds every key widget after each ``refresh_bindings``, however many
    come in one frame: revealing, grading and undoing each touch the bindings, and rebuilding
    the ~10 keys twice a card was about half of grade → next card drawn. Keys that only change
    between enabled and disabled are restyled in place; a screen that returns None from
    ``check_action`` (rather than False) for keys that come and go keeps its set stable, and
    its disabled keys are not drawn (``infracards.tcss``). Any other change waits for the frame
    and rebuilds once.

    Keys that still do not fit are left out from the right, never ``? Keys``, which lists
    them all: a review offers up to a dozen, and at 60 columns half of them, the keys help
    among them, were drawn past the edge.

    Textual 8.2 (issue #6666) also keeps a watcher per closed ``FooterKey`` until ``compact``
    changes, which here it does only when the width crosses ``COMPACT_BELOW``: after 150
    grades, gen-2 collections paused the app for 120-170 ms every few grades. ``recompose``
    drops them.
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

    def on_resize(self) -> None:
        self.compact = self.size.width < COMPACT_BELOW
        self.call_after_refresh(self._fit)  # once the keys are restyled for `compact`

    async def recompose(self) -> None:
        await super().recompose()
        watchers = getattr(self, "__watchers", {}).get("compact")
        if watchers:  # the same pruning Textual does when compact changes
            watchers[:] = [(node, callback) for node, callback in watchers if not node._closing]
        self._fit()

    def _fit(self) -> None:
        """Leave out, from the right, the keys past the footer's width (``? Keys`` stays)."""
        keys = list(self.query(FooterKey))
        room = self.size.width - sum(
            _cells(key)
            for key in keys
            if key.has_class("-command-palette") or key.action == KEYS_HELP
        )
        fits = True
        for key in keys:
            if key.has_class("-command-palette") or key.action == KEYS_HELP:
                continue
            if not key.has_class("-disabled"):  # a disabled key is not drawn, and takes no room
                room -= _cells(key)
                fits = fits and room >= 0
            key.set_class(not fits, "-left-out")

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
        self._fit()
        return True


def _cells(key: FooterKey) -> int:
    """The cells a key takes in the footer: its text, padding, border and margins."""
    styles = key.styles
    return key.get_content_width(Size(0, 0), Size(0, 0)) + styles.gutter.width + styles.margin.width
