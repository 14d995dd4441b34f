"""Deck files: YAML format v1, a hardened loader, and validation with ``file:line`` errors.

Decks may come from third parties, so the loader trusts nothing, and they may hold 100,000 cards,
so it must be fast. It takes the event stream of libyaml's C parser (fast, and non-recursive) and
composes it with its own bounded composer instead of PyYAML's recursive ones (the C composer
segfaults on deep nesting; the pure-Python one is some 20× slower). The composer refuses anchors,
aliases, explicit tags and duplicate keys, caps depth, and resolves only strings and plain decimal
integers; the reader then checks the schema, naming the line of every problem.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    StreamEndEvent,
)

from infracards.errors import DeckError
from infracards.files import MAX_DECK_BYTES, file_digest, read_deck_bytes

_CParser: type[yaml._yaml.CParser] | None
try:
    from yaml._yaml import CParser as _CParser
except ImportError:  # PyYAML built without libyaml: same events, from its pure-Python parser
    _CParser = None

EventSource = Callable[[], Any]
"""A parser's ``get_event``. Events are typed ``Any``: the composer dispatches on their exact
classes in its hot loop (``type(event) is ...``), which mypy's narrowing does not follow, and
libyaml always sets the marks that PyYAML's stubs declare optional."""

_T = TypeVar("_T")

DECK_FORMAT = "infracards-deck/v1"
MAX_CARDS = 250_000
MAX_DEPTH = 16
_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"
MAX_TEXT_CHARS = 64 * 1024

# Only plain decimal integers are numbers: `012` (octal in YAML 1.1) and `1e3` stay text.
_PLAIN_INT = re.compile(r"0|[1-9][0-9]{0,17}")
_CARD_FIELDS = {"id", "prompt", "tags", "key_points", "answer", "sealed"}
_CARD_REQUIRED = {"id", "prompt"}
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


def load_deck(path: Path | str, *, max_bytes: int = MAX_DECK_BYTES) -> Deck:
    """Load and validate a deck file, or raise ``DeckError`` naming ``file:line`` and the field."""
    path = Path(path)
    data = read_deck_bytes(path, max_bytes=max_bytes)
    return parse_deck(data, path=path)


def parse_deck(data: bytes, *, path: Path) -> Deck:
    """Validate deck bytes already read from ``path``."""
    with _no_collection():
        root = compose_yaml(data, path=path)
        return _DeckReader(path).read(root, digest=file_digest(data))


@contextmanager
def _no_collection() -> Iterator[None]:
    """Pause the cycle collector while building a deck: it holds no cycles, and a 100k-card
    deck is millions of new objects, which made the collector rescan them again and again
    (a third of the parse time)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def compose_yaml(data: bytes, *, path: Path) -> Any:
    """Compose untrusted YAML into plain values with line numbers, or raise ``DeckError``.

    Mappings come back as ``_Mapping`` and sequences as ``_Sequence`` (which remember the line
    of every key and item); scalars as ``str``, or ``int`` for a plain decimal integer.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DeckError(f"{path}:1: the file is UTF-16; save it as UTF-8")
    try:
        return _Composer(path, _event_source(data)).document()
    except yaml.MarkedYAMLError as error:
        raise _syntax_error(error, path) from None
    except yaml.reader.ReaderError as error:
        raise _reader_error(data, error, path) from None
    except yaml.YAMLError as error:
        raise DeckError(f"{path}: {error}") from None


_UNCLOSED = {
    "while parsing a flow sequence": "this '[' is never closed",
    "while parsing a flow mapping": "this '{' is never closed",
    "while scanning a quoted scalar": "this quote is never closed",
}
"""Parser contexts that begin where the learner must look: the bracket or quote that opens."""


def _syntax_error(error: yaml.MarkedYAMLError, path: Path) -> DeckError:
    """Where the parser gave up (the end of the file, for an unclosed bracket) is rarely
    where the mistake is: an unclosed bracket or quote is named on the line that opens it."""
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 if mark else 1
    problem = error.problem or error.context or "not valid YAML"
    if "nesting" in problem:
        # libyaml 0.2.6+ (PyYAML 6.0.4) refuses deep nesting in its scanner, before the
        # composer sees the events: the learner gets the same message either way.
        return DeckError(f"{path}:{line}: {_TOO_DEEP}")
    unclosed = _UNCLOSED.get(error.context or "")
    if unclosed is not None and error.context_mark is not None:
        opened = error.context_mark.line + 1
        return DeckError(f"{path}:{opened}: {unclosed} (by line {line}: {problem})")
    return DeckError(f"{path}:{line}: {problem}")


def _event_source(data: bytes) -> EventSource:
    """The parser's ``get_event``: libyaml's when PyYAML has it, else PyYAML's own.

    Both parsers keep their state on a heap stack, so hostile nesting cannot overflow the C
    stack; only PyYAML's recursive *composers* can, and ``_Composer`` replaces them.
    """
    parser = _CParser(data) if _CParser is not None else yaml.SafeLoader(data)
    return parser.get_event


def _reader_error(data: bytes, error: yaml.reader.ReaderError, path: Path) -> DeckError:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as bad:
        line = data[: bad.start].count(b"\n") + 1
        return DeckError(f"{path}:{line}: invalid UTF-8 (byte {bad.start})")
    # libyaml counts bytes into the file, PyYAML characters into the text.
    if _CParser is not None:
        line = data[: error.position].count(b"\n") + 1
    else:
        line = text[: error.position].count("\n") + 1
    return DeckError(f"{path}:{line}: character #x{error.character:04x} is not allowed")


def _plain_scalar(event: ScalarEvent) -> str | int:
    """An untagged scalar: a plain decimal integer becomes an int, anything else stays text.

    Scalars need no depth check: they are leaves, one level below a collection that had one.
    """
    value: str = event.value
    if event.implicit[0] and value[:1].isdigit() and _PLAIN_INT.fullmatch(value):
        return int(value)
    return value


class _Mapping(dict[str, Any]):
    """A composed YAML mapping that remembers where each key and value began."""

    __slots__ = ("key_lines", "line", "value_lines")

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.key_lines: dict[str, int] = {}
        self.value_lines: dict[str, int] = {}


class _Sequence(list[Any]):
    """A composed YAML sequence that remembers where each item began."""

    __slots__ = ("line", "lines")

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.lines: list[int] = []


class _Composer:
    """Builds values from parser events, refusing what a deck never needs.

    No anchors or aliases (billion laughs), no explicit tags (``!!python/...``, ``!!binary``),
    no duplicate or non-text keys, at most ``MAX_DEPTH`` levels; only plain decimal integers
    become numbers, so ``no``, ``012``, ``1e3`` and ``~`` stay text for the schema to judge.
    The depth check runs before descending, so recursion here is bounded by ``MAX_DEPTH``.
    """

    def __init__(self, path: Path, next_event: EventSource) -> None:
        self._path = path
        self._next = next_event

    def _fail(self, line: int, message: str) -> DeckError:
        return DeckError(f"{self._path}:{line}: {message}")

    def document(self) -> Any:
        self._next()  # StreamStartEvent
        if isinstance(self._next(), StreamEndEvent):
            raise self._fail(1, "the file is empty")
        root = self._value(self._next(), 1)
        self._next()  # DocumentEndEvent
        extra = self._next()
        if not isinstance(extra, StreamEndEvent):
            raise self._fail(
                extra.start_mark.line + 1, "only one YAML document is allowed in a deck file"
            )
        return root

    def _value(self, event: Any, depth: int) -> Any:
        line = event.start_mark.line + 1
        if depth > MAX_DEPTH:
            raise self._fail(line, _TOO_DEEP)
        kind = type(event)
        if kind is AliasEvent or event.anchor is not None:
            raise self._fail(line, "anchors and aliases are not allowed in a deck")
        if event.tag is not None:
            raise self._fail(line, f"YAML tags such as {event.tag!r} are not allowed in a deck")
        if kind is ScalarEvent:
            return _plain_scalar(event)
        if kind is MappingStartEvent:
            return self._mapping(line, depth)
        return self._sequence(line, depth)

    def _mapping(self, line: int, depth: int) -> _Mapping:
        mapping = _Mapping(line)
        next_event, key_lines, value_lines = self._next, mapping.key_lines, mapping.value_lines
        while type(key := next_event()) is not MappingEndEvent:
            key_line = key.start_mark.line + 1
            if type(key) is AliasEvent or key.anchor is not None:
                raise self._fail(key_line, "anchors and aliases are not allowed in a deck")
            if type(key) is not ScalarEvent or key.tag is not None:
                raise self._fail(key_line, "mapping keys must be plain strings")
            name: str = key.value
            if name in mapping:
                first = key_lines[name]
                raise self._fail(key_line, f"duplicate key {name!r} (first on line {first})")
            value = next_event()
            key_lines[name] = key_line
            value_lines[name] = value.start_mark.line + 1
            mapping[name] = (
                _plain_scalar(value)
                if type(value) is ScalarEvent and value.tag is None and value.anchor is None
                else self._value(value, depth + 1)
            )
        return mapping

    def _sequence(self, line: int, depth: int) -> _Sequence:
        sequence = _Sequence(line)
        next_event, lines = self._next, sequence.lines
        while type(item := next_event()) is not SequenceEndEvent:
            lines.append(item.start_mark.line + 1)
            sequence.append(
                _plain_scalar(item)
                if type(item) is ScalarEvent and item.tag is None and item.anchor is None
                else self._value(item, depth + 1)
            )
        return sequence


MAX_PROBLEMS = 20
"""Problems one failed load lists (every one it finds, up to this many, then a count)."""


class _DeckReader:
    """Checks composed values against the deck schema and builds a ``Deck``, naming lines.

    Every field is checked even after one fails, so one run of ``deck check`` lists all the
    problems of a file (up to ``MAX_PROBLEMS``), not one per run.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[str] = []

    def fail(self, line: int, field: str, message: str) -> DeckError:
        return DeckError(f"{self.path}:{line}: {field}: {message}")

    def attempt(self, check: Callable[[], _T], fallback: _T) -> _T:
        """Run one check; a problem is noted and ``fallback`` returned, so the rest still run.
        (The per-card checks catch inline instead: a closure per field cost a 100k-card deck
        a tenth of its parse time.)"""
        try:
            return check()
        except DeckError as error:
            self.problems.append(str(error))
            return fallback

    def mapping(
        self, value: Any, line: int, field: str, allowed: set[str], required: set[str]
    ) -> _Mapping:
        """The mapping (refused if it is none); unknown and missing fields are noted."""
        if not isinstance(value, _Mapping):
            raise self.fail(line, field, "expected a mapping of fields")
        if not value.keys() <= allowed:
            self.problems.append(
                str(self.fail(line, field, _unknown_field(value.keys() - allowed, allowed)))
            )
        for name in sorted(required - value.keys()):
            self.problems.append(str(self.fail(line, field, f"missing field {name!r}")))
        return value

    def text(
        self, value: Any, line: int, field: str, *, pattern: re.Pattern[str] | None = None
    ) -> str:
        if type(value) is not str:
            raise self.fail(line, field, "expected text (quote it if it looks like a number)")
        if not value or value.isspace():
            raise self.fail(line, field, "must not be empty")
        if len(value) > MAX_TEXT_CHARS:
            raise self.fail(line, field, f"longer than {MAX_TEXT_CHARS} characters")
        if _CONTROL.search(value):
            raise self.fail(line, field, "contains control characters (such as ESC)")
        if pattern is not None and not pattern.fullmatch(value):
            raise self.fail(line, field, f"{value!r} must match {pattern.pattern}")
        return value

    def field_text(
        self, fields: _Mapping, name: str, field: str, *, pattern: re.Pattern[str] | None = None
    ) -> str:
        """A text field ("" when it is missing or has a problem, both already noted)."""
        if name not in fields:
            return ""
        try:
            return self.text(fields[name], fields.value_lines[name], field, pattern=pattern)
        except DeckError as error:
            self.problems.append(str(error))
            return ""

    def integer(self, fields: _Mapping, name: str, field: str) -> int | None:
        value = fields.get(name)
        if name in fields and type(value) is not int:
            self.problems.append(
                str(self.fail(fields.value_lines[name], field, "expected a whole number such as 3"))
            )
        return value if type(value) is int else None

    def texts(
        self, fields: _Mapping, name: str, field: str, *, pattern: re.Pattern[str] | None = None
    ) -> tuple[str, ...]:
        if name not in fields:
            return ()
        items = fields[name]
        if not isinstance(items, _Sequence):
            self.problems.append(str(self.fail(fields.value_lines[name], field, "expected a list")))
            return ()
        texts: list[str] = []
        for index, (item, line) in enumerate(zip(items, items.lines, strict=True)):
            try:
                texts.append(self.text(item, line, f"{field}[{index}]", pattern=pattern))
            except DeckError as error:
                self.problems.append(str(error))
        return tuple(texts)

    def plain(self, value: Any, line: int, field: str) -> Any:
        """Plain data (the lock header) for the seal layer, which validates it itself."""
        if isinstance(value, _Mapping):
            return {
                name: self.plain(item, value.value_lines[name], f"{field}.{name}")
                for name, item in value.items()
            }
        if isinstance(value, _Sequence):
            return [
                self.plain(item, item_line, f"{field}[{index}]")
                for index, (item, item_line) in enumerate(zip(value, value.lines, strict=True))
            ]
        return value if type(value) is int else self.text(value, line, field)

    def read(self, root: Any, *, digest: str) -> Deck:
        deck = self.attempt(lambda: self._deck(root, digest), None)
        if self.problems or deck is None:
            raise DeckError(_problem_list(self.problems))
        return deck

    def _deck(self, root: Any, digest: str) -> Deck:
        top = self.mapping(
            root,
            1,
            "deck",
            allowed={"format", "id", "title", "version", "language", "lock", "cards"},
            required={"format", "id", "title", "version", "language", "cards"},
        )
        deck_format = self.field_text(top, "format", "format")
        if deck_format and deck_format != DECK_FORMAT:
            raise self.fail(  # a newer format: its other fields mean nothing to this reader
                top.value_lines["format"],
                "format",
                f"{deck_format!r} is not {DECK_FORMAT!r} (a newer infracards may read it)",
            )
        deck_id = self.field_text(top, "id", "id", pattern=_DECK_ID)
        title = self.field_text(top, "title", "title")
        version = self.integer(top, "version", "version")
        if version is not None and version < 1:
            self.problems.append(
                str(self.fail(top.value_lines["version"], "version", "must be 1 or more"))
            )
        language = self.field_text(top, "language", "language", pattern=_LANGUAGE)
        lock = None
        if "lock" in top:
            line = top.value_lines["lock"]
            lock = self.attempt(lambda: self.plain(top["lock"], line, "lock"), None)
            if lock is not None and not isinstance(lock, dict):
                self.problems.append(str(self.fail(line, "lock", "expected a mapping of fields")))
        cards: tuple[Card, ...] = ()
        if "cards" in top:
            line = top.value_lines["cards"]
            cards = self.attempt(lambda: self.cards(top["cards"], line), ())
        if "lock" not in top and any(card.sealed for card in cards):
            first = next(card for card in cards if card.sealed)
            self.problems.append(
                f"{self.path}:{first.line}: cards[{first.card_id}].sealed: "
                "the deck has no lock header"
            )
        return Deck(
            deck_id=deck_id,
            title=title,
            version=version or 0,
            language=language,
            cards=cards,
            lock=lock,
            path=self.path,
            digest=digest,
        )

    def cards(self, items: Any, line: int) -> tuple[Card, ...]:
        if not isinstance(items, _Sequence) or not items:
            raise self.fail(line, "cards", "expected a non-empty list of cards")
        if len(items) > MAX_CARDS:
            raise self.fail(line, "cards", f"more than {MAX_CARDS:,} cards in one deck")
        cards: list[Card] = []
        first_line: dict[str, int] = {}
        for index, (item, item_line) in enumerate(zip(items, items.lines, strict=True)):
            field = f"cards[{index}]"
            try:
                card = self.card(item, item_line, field)
            except DeckError as error:
                self.problems.append(str(error))
                continue
            if card.card_id in first_line:
                self.problems.append(
                    str(
                        self.fail(
                            item_line,
                            f"{field}.id",
                            f"duplicate card id {card.card_id!r} "
                            f"(first on line {first_line[card.card_id]})",
                        )
                    )
                )
            elif card.card_id:
                first_line[card.card_id] = card.line
            cards.append(card)
        return tuple(cards)

    def card(self, item: Any, line: int, field: str) -> Card:
        fields = self.mapping(item, line, field, allowed=_CARD_FIELDS, required=_CARD_REQUIRED)
        if ("answer" in fields) == ("sealed" in fields):
            self.problems.append(
                str(
                    self.fail(
                        line,
                        field,
                        "a card needs exactly one of 'answer' (free) or 'sealed' (locked)",
                    )
                )
            )
        sealed = None
        if "sealed" in fields:
            sealed = "".join(self.field_text(fields, "sealed", f"{field}.sealed").split())
            if sealed and not _BASE64.fullmatch(sealed):
                self.problems.append(
                    str(
                        self.fail(
                            fields.value_lines["sealed"],
                            f"{field}.sealed",
                            "expected base64 ciphertext",
                        )
                    )
                )
        return Card(
            card_id=self.field_text(fields, "id", f"{field}.id", pattern=_CARD_ID),
            prompt=self.field_text(fields, "prompt", f"{field}.prompt"),
            tags=self.texts(fields, "tags", f"{field}.tags", pattern=_TAG),
            key_points=self.texts(fields, "key_points", f"{field}.key_points"),
            answer=self.field_text(fields, "answer", f"{field}.answer")
            if "answer" in fields
            else None,
            sealed=sealed,
            line=line,
        )


def _problem_list(problems: list[str]) -> str:
    """The problems one per line, the first ``MAX_PROBLEMS`` of them, then how many more."""
    shown = problems[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        more = len(problems) - MAX_PROBLEMS
        shown.append(f"… and {more} more problems ({len(problems)} in all)")
    return "\n".join(shown)


def _unknown_field(unknown: Iterable[object], allowed: set[str]) -> str:
    """Name the first unknown field, and the field meant if it looks like a typo of one."""
    from difflib import get_close_matches  # only on this error path

    name = sorted(map(str, unknown))[0]
    close = get_close_matches(name, sorted(allowed), n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"expected {', '.join(sorted(allowed))}"
    return f"unknown field {name!r} ({hint})"
