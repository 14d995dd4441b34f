"""Use cases with no Textual: what the CLI and the app call."""
