"""Deck files: YAML format v1, a hardened loader, and validation with ``file:line`` errors.

Decks may come from third parties, so the loader trusts nothing: it composes YAML nodes with the
pure-Python ``SafeLoader`` machinery (the C loader segfaults on deep nesting), rejects anchors,
aliases, explicit tags and duplicate keys, caps size and depth, resolves only strings and plain
decimal integers, and then validates the node tree itself so every message can name its line.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from infracards.errors import DeckError

DECK_FORMAT = "infracards-deck/v1"
MAX_DECK_BYTES = 4 << 20
"""The sealed Module 03 deck (33 long answers, base64) is about 0.8 MiB; 4 MiB leaves room."""
MAX_DEPTH = 16
MAX_TEXT_CHARS = 64 * 1024

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_DECK_ID = re.compile(r"[a-z][a-z0-9-]{1,31}")
_CARD_ID = re.compile(r"[a-z][a-z0-9-]{0,31}")
_TAG = re.compile(r"[a-z][a-z0-9-]{0,31}")
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")
# C0 controls except tab/newline, DEL and C1 controls: ESC would let a deck drive the terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]+")


@dataclass(frozen=True, slots=True)
class Card:
    """One flashcard as written in the deck file."""

    card_id: str
    prompt: str
    tags: tuple[str, ...]
    key_points: tuple[str, ...]
    answer: str | None
    """Free answer (Markdown); None when the answer is sealed."""
    sealed: str | None
    """Base64 ciphertext of a locked answer; opened only with a card key."""
    line: int

    @property
    def locked(self) -> bool:
        return self.answer is None


@dataclass(frozen=True, slots=True)
class Deck:
    """A validated deck file."""

    deck_id: str
    title: str
    version: int
    language: str
    cards: tuple[Card, ...]
    lock: dict[str, Any] | None
    """The seal header (format, KDF parameters, key check) when the deck has sealed answers."""
    path: Path
    digest: str
    """SHA-256 of the file bytes: an unchanged file is not parsed or synced again."""

    @property
    def keyslots_path(self) -> Path:
        return self.path.with_name(f"{self.path.name.removesuffix('.yaml')}.keyslots.json")


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_deck_bytes(path: Path, *, max_bytes: int = MAX_DECK_BYTES) -> bytes:
    """Read a regular file of bounded size (a FIFO or /dev/zero must not hang or exhaust us)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise DeckError(f"{path}: no such file") from None
    except OSError as error:
        raise DeckError(f"{path}: cannot open ({error.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise DeckError(f"{path}: not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise DeckError(f"{path}: cannot read ({error.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise DeckError(f"{path}: larger than the {max_bytes // 1024} KiB limit for a deck file")
    return data


def load_deck(path: Path | str, *, max_bytes: int = MAX_DECK_BYTES) -> Deck:
    """Load and validate a deck file, or raise ``DeckError`` naming ``file:line`` and the field."""
    path = Path(path)
    data = read_deck_bytes(path, max_bytes=max_bytes)
    return parse_deck(data, path=path)


def parse_deck(data: bytes, *, path: Path) -> Deck:
    """Validate deck bytes already read from ``path``."""
    root = compose_yaml(data, path=path)
    return _DeckReader(path).read(root, digest=file_digest(data))


def compose_yaml(data: bytes, *, path: Path) -> Node:
    """Compose untrusted YAML into a node tree, or raise ``DeckError`` with the line."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DeckError(f"{path}:1: the file is UTF-16; save it as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise DeckError(f"{path}:{line}: invalid UTF-8 (byte {error.start})") from None
    loader = None
    try:
        loader = _HardenedLoader(text, path)
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else 1
        problem = error.problem or error.context
        if problem == "but found another document":
            problem = "only one YAML document is allowed in a deck file"
        raise DeckError(f"{path}:{line}: {problem}") from None
    except yaml.reader.ReaderError as error:
        line = text[: error.position].count("\n") + 1
        raise DeckError(
            f"{path}:{line}: character #x{error.character:04x} is not allowed"
        ) from None
    except yaml.YAMLError as error:
        raise DeckError(f"{path}: {error}") from None
    finally:
        if loader is not None:
            loader.dispose()
    if node is None:
        raise DeckError(f"{path}:1: the file is empty")
    return node


class _HardenedLoader(yaml.SafeLoader):
    """Composer-only loader: no aliases, no tags, no deep nesting, no duplicate keys."""

    yaml_implicit_resolvers: dict[str, list[tuple[str, re.Pattern[str]]]] = {}

    def __init__(self, text: str, path: Path) -> None:
        super().__init__(text)
        self._path = path
        self._depth = 0

    def _fail(self, line: int, message: str) -> DeckError:
        return DeckError(f"{self._path}:{line}: {message}")

    def compose_node(self, parent: Node | None, index: object) -> Node | None:
        event = self.peek_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise self._fail(line, "anchors and aliases are not allowed in a deck")
        if getattr(event, "tag", None) is not None:
            raise self._fail(line, f"YAML tags such as {event.tag!r} are not allowed in a deck")
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise self._fail(line, f"nested deeper than {MAX_DEPTH} levels")
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if isinstance(node, MappingNode):
            self._check_duplicate_keys(node)
        return node

    def _check_duplicate_keys(self, node: MappingNode) -> None:
        seen: dict[str, int] = {}
        for key, _ in node.value:
            name = key.value if isinstance(key, ScalarNode) else None
            if name is None:
                raise self._fail(key.start_mark.line + 1, "mapping keys must be plain strings")
            line = key.start_mark.line + 1
            if name in seen:
                raise self._fail(line, f"duplicate key {name!r} (first on line {seen[name]})")
            seen[name] = line


# Only plain decimal integers are numbers: `012` (octal in YAML 1.1), `1e3`, `no`, `~` stay
# strings, and the schema then says which field wanted what.
_HardenedLoader.add_implicit_resolver(
    _INT, re.compile(r"^(?:0|[1-9][0-9]{0,17})$"), list("0123456789")
)


class _DeckReader:
    """Walks the composed node tree and builds a ``Deck``, naming the line of every problem."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, node: Node, field: str, message: str) -> DeckError:
        return DeckError(f"{self.path}:{node.start_mark.line + 1}: {field}: {message}")

    def mapping(
        self, node: Node, field: str, allowed: set[str], required: set[str]
    ) -> dict[str, Node]:
        if not isinstance(node, MappingNode):
            raise self.fail(node, field, "expected a mapping of fields")
        fields = {key.value: value for key, value in node.value}
        unknown = sorted(set(fields) - allowed)
        if unknown:
            raise self.fail(node, field, f"unknown field {unknown[0]!r}")
        missing = sorted(required - set(fields))
        if missing:
            raise self.fail(node, field, f"missing field {missing[0]!r}")
        return fields

    def text(self, node: Node, field: str, *, pattern: re.Pattern[str] | None = None) -> str:
        if not isinstance(node, ScalarNode) or node.tag != _STR:
            raise self.fail(node, field, "expected text (quote it if it looks like a number)")
        value: str = node.value
        if not value.strip():
            raise self.fail(node, field, "must not be empty")
        if len(value) > MAX_TEXT_CHARS:
            raise self.fail(node, field, f"longer than {MAX_TEXT_CHARS} characters")
        if _CONTROL.search(value):
            raise self.fail(node, field, "contains control characters (such as ESC)")
        if pattern is not None and not pattern.fullmatch(value):
            raise self.fail(node, field, f"{value!r} must match {pattern.pattern}")
        return value

    def integer(self, node: Node, field: str) -> int:
        if not isinstance(node, ScalarNode) or node.tag != _INT:
            raise self.fail(node, field, "expected a whole number such as 3")
        return int(node.value)

    def texts(
        self, node: Node, field: str, *, pattern: re.Pattern[str] | None = None
    ) -> Iterator[str]:
        if not isinstance(node, SequenceNode):
            raise self.fail(node, field, "expected a list")
        for index, item in enumerate(node.value):
            yield self.text(item, f"{field}[{index}]", pattern=pattern)

    def plain(self, node: Node, field: str) -> Any:
        """Plain data (the lock header) for the seal layer, which validates it itself."""
        if isinstance(node, MappingNode):
            return {
                key.value: self.plain(value, f"{field}.{key.value}") for key, value in node.value
            }
        if isinstance(node, SequenceNode):
            return [self.plain(item, f"{field}[{i}]") for i, item in enumerate(node.value)]
        return int(node.value) if node.tag == _INT else self.text(node, field)

    def read(self, root: Node, *, digest: str) -> Deck:
        top = self.mapping(
            root,
            "deck",
            allowed={"format", "id", "title", "version", "language", "lock", "cards"},
            required={"format", "id", "title", "version", "language", "cards"},
        )
        deck_format = self.text(top["format"], "format")
        if deck_format != DECK_FORMAT:
            raise self.fail(
                top["format"],
                "format",
                f"{deck_format!r} is not {DECK_FORMAT!r} (a newer infracards may read it)",
            )
        version = self.integer(top["version"], "version")
        if version < 1:
            raise self.fail(top["version"], "version", "must be 1 or more")
        lock_node = top.get("lock")
        lock = self.plain(lock_node, "lock") if lock_node is not None else None
        if lock is not None and not isinstance(lock, dict):
            raise self.fail(lock_node, "lock", "expected a mapping of fields")
        cards = self.cards(top["cards"])
        if lock is None and any(card.sealed for card in cards):
            first = next(card for card in cards if card.sealed)
            raise DeckError(
                f"{self.path}:{first.line}: cards[{first.card_id}].sealed: "
                "the deck has no lock header"
            )
        return Deck(
            deck_id=self.text(top["id"], "id", pattern=_DECK_ID),
            title=self.text(top["title"], "title"),
            version=version,
            language=self.text(top["language"], "language", pattern=_LANGUAGE),
            cards=cards,
            lock=lock,
            path=self.path,
            digest=digest,
        )

    def cards(self, node: Node) -> tuple[Card, ...]:
        if not isinstance(node, SequenceNode) or not node.value:
            raise self.fail(node, "cards", "expected a non-empty list of cards")
        cards: list[Card] = []
        first_line: dict[str, int] = {}
        for index, item in enumerate(node.value):
            card = self.card(item, f"cards[{index}]")
            if card.card_id in first_line:
                raise self.fail(
                    item,
                    f"cards[{index}].id",
                    f"duplicate card id {card.card_id!r} "
                    f"(first on line {first_line[card.card_id]})",
                )
            first_line[card.card_id] = card.line
            cards.append(card)
        return tuple(cards)

    def card(self, node: Node, field: str) -> Card:
        fields = self.mapping(
            node,
            field,
            allowed={"id", "prompt", "tags", "key_points", "answer", "sealed"},
            required={"id", "prompt"},
        )
        if ("answer" in fields) == ("sealed" in fields):
            raise self.fail(
                node, field, "a card needs exactly one of 'answer' (free) or 'sealed' (locked)"
            )
        sealed = None
        if "sealed" in fields:
            sealed = "".join(self.text(fields["sealed"], f"{field}.sealed").split())
            if not _BASE64.fullmatch(sealed):
                raise self.fail(fields["sealed"], f"{field}.sealed", "expected base64 ciphertext")
        tags = (
            tuple(self.texts(fields["tags"], f"{field}.tags", pattern=_TAG))
            if "tags" in fields
            else ()
        )
        key_points = (
            tuple(self.texts(fields["key_points"], f"{field}.key_points"))
            if "key_points" in fields
            else ()
        )
        return Card(
            card_id=self.text(fields["id"], f"{field}.id", pattern=_CARD_ID),
            prompt=self.text(fields["prompt"], f"{field}.prompt"),
            tags=tags,
            key_points=key_points,
            answer=self.text(fields["answer"], f"{field}.answer") if "answer" in fields else None,
            sealed=sealed,
            line=node.start_mark.line + 1,
        )
