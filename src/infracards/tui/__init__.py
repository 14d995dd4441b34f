"""The Textual app; only ``cli`` imports this package, and lazily."""
