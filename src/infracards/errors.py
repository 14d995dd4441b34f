"""User-facing errors: each carries a message a person can act on.

The CLI turns any ``InfracardsError`` into one line on stderr and exit code 1;
anything else is a bug and keeps its traceback. In the app, one that no screen handles ends
the app the same way: Textual shows an unhandled exception's ``__rich__`` instead of a
traceback, and exits with code 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text


class InfracardsError(Exception):
    """Base class for errors caused by input, files or keys, not by bugs."""

    def __rich__(self) -> Text:
        from rich.text import Text  # only the app renders errors this way

        from infracards.terminal_text import message_line

        return Text(f"infracards: {message_line(str(self))}")


class DeckError(InfracardsError):
    """A deck file is malformed; the message names ``file:line`` and the field."""


class StoreError(InfracardsError):
    """The database cannot be opened, migrated or written."""


class SettingError(StoreError):
    """A stored setting holds a value infracards never writes (edited by hand, say)."""

    def __init__(self, key: str, value: str, default: object) -> None:
        shown = value if len(value) <= 40 else f"{value[:40]}…"
        super().__init__(
            f"the stored setting {key} is {shown!r}, which infracards does not take (was the"
            f" database edited by hand?); nothing was changed: set it again with"
            f" `infracards config {key} {default}` (its default)"
        )


class SealError(InfracardsError):
    """Base for sealed-answer, card key and license problems."""


class KeyFormatError(SealError):
    """A typed card key is malformed (length, character, checksum): caught before any KDF."""


class KeyNotValidError(SealError):
    """A well-formed card key does not open this deck release."""


class KeyRevokedError(SealError):
    """The card key was revoked by the publisher in this release."""


class DeckCorruptedError(SealError):
    """Sealed data (lock header, key slot, answer blob) failed validation or authentication."""


class LicenseError(SealError):
    """The stored license file is unsafe, damaged or cannot be written."""


class ProgressError(InfracardsError):
    """A progress document cannot be imported; nothing was changed."""


class CalcError(InfracardsError):
    """A calculator input breaks a rule; the message names the parameter by its CLI flag."""

    def __init__(self, message: str, *, flag: str | None = None) -> None:
        super().__init__(message)
        self.flag = flag
        """The parameter at fault (``"dp"``), for a form to mark; None when no single one is."""
