"""infracards: terminal flashcards for LLM training-infrastructure interviews."""

__version__ = "0.1.0"
