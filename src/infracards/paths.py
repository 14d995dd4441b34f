"""Where infracards keeps its data, computed on call (never at import)."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "INFRACARDS_HOME"
PACKAGE_DIR = Path(__file__).resolve().parent
_SOURCE_TREE = PACKAGE_DIR.parent.parent


def home() -> Path:
    """The data folder: ``$INFRACARDS_HOME`` or the platform's user data dir."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs  # ~8 ms to import: only when no folder is given

    return platformdirs.user_data_path("infracards", appauthor=False)


def database_path(home_dir: Path) -> Path:
    return home_dir / "infracards.db"


def _bundled(packaged: str, in_source_tree: str) -> Path:
    """A data file shipped in the wheel, or its place in a source checkout (editable install)."""
    candidate = PACKAGE_DIR / packaged
    return candidate if candidate.exists() else _SOURCE_TREE / in_source_tree


def migrations_dir() -> Path:
    return _bundled("_migrations", "migrations")


def builtin_deck_path() -> Path:
    return _bundled("_decks/module03.yaml", "deck/module03.yaml")
