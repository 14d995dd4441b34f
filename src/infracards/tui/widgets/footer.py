"""The key footer: compact when narrow, and without a Textual leak that slowed every grade of
a long session."""

from __future__ import annotations

from textual.widgets import Footer

COMPACT_BELOW = 100
"""Footer widths under which the keys drop their padding: at 60 columns Home's last keys
(``? Keys``) went out of sight."""


class KeysFooter(Footer):
    """``Footer`` that packs its keys when narrow and lets go of the key widgets it replaced.

    Textual 8.2 (issue #6666): every ``FooterKey`` data-binds ``Footer.compact``, and the footer
    drops the watchers of closed keys only when ``compact`` changes, which it never does here.
    The review screen's keys are rebuilt about twice a card, so ~6 widgets a grade stayed alive:
    after 150 grades, gen-2 collections paused the app for 120-170 ms every few grades.
    """

    def on_resize(self) -> None:
        self.compact = self.size.width < COMPACT_BELOW

    async def recompose(self) -> None:
        await super().recompose()
        watchers = getattr(self, "__watchers", {}).get("compact")
        if watchers:  # the same pruning Textual does when compact changes
            watchers[:] = [(node, callback) for node, callback in watchers if not node._closing]
