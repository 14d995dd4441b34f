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
import json
import re
import sys
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
    SequenceStartEvent,
    StreamEndEvent,
)

from infracards.card_text import MAX_CALCULATORS, MAX_KEY_POINTS, MAX_TAGS, text_problem
from infracards.errors import DeckError
from infracards.files import MAX_DECK_BYTES, file_digest, keyslots_path, read_deck_bytes
from infracards.terminal_text import echo, quoted

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
_NO_ANCHORS = "anchors and aliases are not allowed in a deck"
MAX_CARD_VALUES = 1_024
"""Values (texts, lists) one card may hold while it is read: id, prompt, answer or sealed,
up to 32 tags and 64 key points fit many times over."""
MAX_HEADER_VALUES = 262_144
"""Values outside the card list (the lock header's revoked key ids, mostly)."""

# Only plain decimal integers are numbers: `012` (octal in YAML 1.1) and `1e3` stay text.
_PLAIN_INT = re.compile(r"0|[1-9][0-9]{0,17}")
_DECK_FIELDS = {"format", "id", "title", "version", "language", "notation", "lock", "cards"}
_CARD_FIELDS = {"id", "prompt", "tags", "key_points", "calculators", "answer", "sealed"}
_CARD_REQUIRED = {"id", "prompt"}
_DECK_ID = re.compile(r"[a-z][a-z0-9-]{1,31}")
CARD_ID = re.compile(r"[a-z][a-z0-9-]{0,31}")
TAG = re.compile(r"[a-z][a-z0-9-]{0,31}")
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]+")


@dataclass(frozen=True, slots=True)
class Card:
    """One flashcard as written in the deck file.

    Tags and key points are kept as the store holds them (one text each): a deck of 250,000
    cards with many short key points would otherwise be millions of small objects.
    """

    card_id: str
    prompt: str
    tags_text: str
    """Tags separated by spaces ("" for none)."""
    key_points_json: str
    """Key points as a JSON list ("[]" for none)."""
    answer: str | None
    """Free answer (Markdown); None when the answer is sealed."""
    sealed: str | None
    """Base64 ciphertext of a locked answer; opened only with a card key."""
    line: int
    calculators: tuple[str, ...] = ()
    """Whiteboard calculators (``infracards calc`` models) for this card's estimates: public,
    so a locked card offers them too."""

    @property
    def locked(self) -> bool:
        return self.answer is None

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(self.tags_text.split())

    @property
    def key_points(self) -> tuple[str, ...]:
        return tuple(json.loads(self.key_points_json))


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
    notation: str | None = None
    """The deck's notation-and-constants page (Markdown, free), opened from any card."""

    @property
    def keyslots_path(self) -> Path:
        return keyslots_path(self.path)


def load_deck(path: Path | str, *, max_bytes: int = MAX_DECK_BYTES) -> Deck:
    """Load and validate a deck file, or raise ``DeckError`` naming ``file:line`` and the field."""
    path = Path(path)
    data = read_deck_bytes(path, max_bytes=max_bytes)
    return parse_deck(data, path=path)


def parse_deck(data: bytes, *, path: Path) -> Deck:
    """Validate deck bytes already read from ``path``.

    Each card is checked and kept in its compact form as soon as its last event is read, and
    an unknown field is refused before its value is read, so memory stays a small multiple of
    the file's size whatever the cards look like; the 250,001st card is refused on sight.
    """
    reader = _DeckReader(path)
    with _no_collection():
        try:
            root = compose_yaml(data, path=path, deck=reader)
        except DeckError as error:  # the reading stopped here: with the problems before it
            raise reader.failed(error) from None
        return reader.read(root, digest=file_digest(data))


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


def compose_yaml(data: bytes, *, path: Path, deck: _DeckReader | None = None) -> Any:
    """Compose untrusted YAML into plain values with line numbers, or raise ``DeckError``.

    Mappings come back as ``_Mapping`` and sequences as ``_Sequence`` (which remember the line
    of every key and item); scalars as ``str``, or ``int`` for a plain decimal integer. With
    ``deck``, the root mapping is read as a deck: its card list is handed to ``deck`` card by
    card and comes back as a ``_CardList``.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DeckError(f"{echo(path)}:1: the file is UTF-16; save it as UTF-8")
    try:
        return _Composer(path, _event_source(data), deck=deck).document()
    except yaml.MarkedYAMLError as error:
        raise _syntax_error(error, path, data) from None
    except yaml.reader.ReaderError as error:
        raise _reader_error(data, error, path) from None
    except yaml.YAMLError as error:
        raise DeckError(f"{echo(path)}: {echo(error)}") from None


_UNCLOSED = {
    "while parsing a flow sequence": "this '[' is never closed",
    "while parsing a flow mapping": "this '{' is never closed",
    "while scanning a quoted scalar": "this quote is never closed",
}
"""Parser contexts that begin where the learner must look: the bracket or quote that opens."""
_ENDS_OPEN = {
    "while parsing a flow node": "the file ends inside a '[' or '{' that is never closed",
}
"""Parser contexts of a file that ends too early, where the opening line is not known."""


def _syntax_error(error: yaml.MarkedYAMLError, path: Path, data: bytes) -> DeckError:
    """Where the parser gave up (the end of the file, for an unclosed bracket) is rarely
    where the mistake is: an unclosed bracket or quote is named on the line that opens it,
    and a file that ends too early on its last line of text, never on a line after the end."""
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 if mark else 1
    problem = error.problem or error.context or "not valid YAML"
    if "nesting" in problem:
        # libyaml 0.2.6+ (PyYAML 6.0.4) refuses deep nesting in its scanner, before the
        # composer sees the events: the learner gets the same message either way.
        return DeckError(f"{echo(path)}:{line}: {_TOO_DEEP}")
    lines = data.decode("utf-8", "replace").splitlines()  # marks count characters
    at_end = mark is not None and (
        mark.line >= len(lines) or (mark.line == len(lines) - 1 and mark.column >= len(lines[-1]))
    )
    unclosed = _UNCLOSED.get(error.context or "")
    if unclosed is not None and error.context_mark is not None:
        opened = error.context_mark.line + 1
        by = "the file ends first" if at_end else f"by line {line}: {echo(problem)}"
        return DeckError(f"{echo(path)}:{opened}: {unclosed} ({by})")
    if at_end:
        # libyaml names no opening line for a '[' or '{' left open before any item.
        last = next((n for n in range(len(lines), 0, -1) if lines[n - 1].strip()), 1)
        ends = _ENDS_OPEN.get(error.context or "", f"the file ends too early ({echo(problem)})")
        return DeckError(f"{echo(path)}:{last}: {ends}")
    return DeckError(f"{echo(path)}:{line}: {echo(problem)}")


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
        return DeckError(f"{echo(path)}:{line}: invalid UTF-8 (byte {bad.start})")
    # libyaml counts bytes into the file, PyYAML characters into the text.
    if _CParser is not None:
        line = data[: error.position].count(b"\n") + 1
    else:
        line = text[: error.position].count("\n") + 1
    return DeckError(f"{echo(path)}:{line}: character #x{error.character:04x} is not allowed")


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


class _CardList(list["Card"]):
    """A deck's card list, each card already checked as it was read."""

    __slots__ = ("items", "line")

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.items = 0
        """Items the list held, cards or not (one that is no card is a problem, not a card)."""


class _Composer:
    """Builds values from parser events, refusing what a deck never needs.

    No anchors or aliases (billion laughs), no explicit tags (``!!python/...``, ``!!binary``),
    no duplicate or non-text keys, at most ``MAX_DEPTH`` levels; only plain decimal integers
    become numbers, so ``no``, ``012``, ``1e3`` and ``~`` stay text for the schema to judge.
    The depth check runs before descending, so recursion here is bounded by ``MAX_DEPTH``.
    """

    def __init__(
        self, path: Path, next_event: EventSource, *, deck: _DeckReader | None = None
    ) -> None:
        self._where = echo(path)
        self._next = next_event
        self._deck = deck
        self._left = MAX_HEADER_VALUES if deck is not None else sys.maxsize
        """Values still allowed in what is being read (the header, or one card)."""
        self._too_many = f"more than {MAX_HEADER_VALUES:,} values outside the card list"

    def _count(self, line: int) -> None:
        self._left -= 1
        if self._left < 0:
            raise self._fail(line, self._too_many)

    def _fail(self, line: int, message: str) -> DeckError:
        return DeckError(f"{self._where}:{line}: {message}")

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
            raise self._fail(line, _NO_ANCHORS)
        if event.tag is not None:
            raise self._fail(
                line, f"YAML tags such as {quoted(event.tag)} are not allowed in a deck"
            )
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
                raise self._fail(key_line, _NO_ANCHORS)
            if type(key) is not ScalarEvent or key.tag is not None:
                raise self._fail(key_line, "mapping keys must be plain strings")
            name: str = key.value
            if name in mapping:
                first = key_lines[name]
                raise self._fail(key_line, f"duplicate key {quoted(name)} (first on line {first})")
            self._count(key_line)
            value = next_event()
            if depth == 1 and self._deck is not None and name not in _DECK_FIELDS:
                # Refused before the rest of its value is read: it could be most of the file.
                if type(value) is AliasEvent or value.anchor is not None:
                    raise self._fail(value.start_mark.line + 1, _NO_ANCHORS)
                raise self._deck.fail(line, "deck", _unknown_field({name}, _DECK_FIELDS))
            key_lines[name] = key_line
            value_lines[name] = value.start_mark.line + 1
            if (
                depth == 1
                and name == "cards"
                and self._deck is not None
                and type(value) is SequenceStartEvent
            ):
                self._deck.check_format(mapping)
                mapping[name] = self._cards(value_lines[name])
                continue
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
            item_line = item.start_mark.line + 1
            self._count(item_line)
            lines.append(item_line)
            sequence.append(
                _plain_scalar(item)
                if type(item) is ScalarEvent and item.tag is None and item.anchor is None
                else self._value(item, depth + 1)
            )
        return sequence

    def _cards(self, line: int) -> _CardList:
        """Read a deck's card list one card at a time: each card is composed (within its own
        budget of values), checked and kept as a ``Card`` before the next one is read."""
        assert self._deck is not None
        cards = _CardList(line)
        header_left = self._left
        while type(item := self._next()) is not SequenceEndEvent:
            item_line = item.start_mark.line + 1
            index = cards.items
            if index == MAX_CARDS:
                raise self._deck.fail(line, "cards", f"more than {MAX_CARDS:,} cards in one deck")
            self._left = MAX_CARD_VALUES
            self._too_many = (
                f"cards[{index}]: a card holds at most {MAX_CARD_VALUES:,} values "
                f"(up to {MAX_TAGS} tags and {MAX_KEY_POINTS} key points)"
            )
            value = (
                _plain_scalar(item)
                if type(item) is ScalarEvent and item.tag is None and item.anchor is None
                else self._value(item, 3)
            )
            cards.items += 1
            card = self._deck.next_card(value, item_line, index)
            if card is not None:
                cards.append(card)
        self._left = header_left
        self._too_many = f"more than {MAX_HEADER_VALUES:,} values outside the card list"
        return cards


MAX_PROBLEMS = 20
"""Problems one failed deck load lists (every one it finds, up to this many, then a count)."""


class FieldReader:
    """Checks composed values against a schema, naming ``file:line`` and the field; the deck
    loader and the publisher's source loader share it.

    A problem that leaves the rest readable (an unknown or missing field, a bad text) goes to
    ``problem``, which raises it here: the publisher's loader stops at the first. The deck
    reader notes it and goes on, so ``deck check`` lists them all.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = echo(path)

    def fail(self, line: int, field: str, message: str) -> DeckError:
        return DeckError(f"{self.where}:{line}: {field}: {message}")

    def problem(self, error: DeckError) -> None:
        raise error

    def mapping(
        self, value: Any, line: int, field: str, allowed: set[str], required: set[str]
    ) -> _Mapping:
        """The mapping (refused if it is none); unknown and missing fields are problems."""
        if not isinstance(value, _Mapping):
            raise self.fail(line, field, "expected a mapping of fields")
        if not value.keys() <= allowed:
            self.problem(self.fail(line, field, _unknown_field(value.keys() - allowed, allowed)))
        for name in sorted(required - value.keys()):
            self.problem(self.fail(line, field, f"missing field {quoted(name)}"))
        return value

    def text(
        self, value: Any, line: int, field: str, *, pattern: re.Pattern[str] | None = None
    ) -> str:
        problem = text_problem(value)
        if problem is not None:
            raise self.fail(line, field, problem)
        if pattern is not None and not pattern.fullmatch(value):
            raise self.fail(line, field, f"{quoted(value)} must match {pattern.pattern}")
        return value

    def field_text(
        self, fields: _Mapping, name: str, field: str, *, pattern: re.Pattern[str] | None = None
    ) -> str:
        """A text field ("" when it is missing, which ``mapping`` reported, or has a problem)."""
        if name not in fields:
            return ""
        try:
            return self.text(fields[name], fields.value_lines[name], field, pattern=pattern)
        except DeckError as error:
            self.problem(error)
            return ""

    def integer(self, fields: _Mapping, name: str, field: str) -> int:
        value = fields[name]
        if type(value) is not int:
            raise self.fail(fields.value_lines[name], field, "expected a whole number such as 3")
        return value

    def texts(
        self,
        fields: _Mapping,
        name: str,
        field: str,
        *,
        most: int | None = None,
        pattern: re.Pattern[str] | None = None,
    ) -> tuple[str, ...]:
        """A list of texts (() when it is missing; each bad item is a problem of its own)."""
        if name not in fields:
            return ()
        items = fields[name]
        if not isinstance(items, _Sequence):
            self.problem(self.fail(fields.value_lines[name], field, "expected a list"))
            return ()
        if most is not None and len(items) > most:
            line = fields.value_lines[name]
            self.problem(self.fail(line, field, f"more than {most} in one card"))
            return ()
        texts: list[str] = []
        for index, (item, line) in enumerate(zip(items, items.lines, strict=True)):
            try:
                texts.append(self.text(item, line, f"{field}[{index}]", pattern=pattern))
            except DeckError as error:
                self.problem(error)
        return tuple(texts)

    def items(self, fields: _Mapping, name: str, field: str) -> list[tuple[Any, int]]:
        """A non-empty list's items, each with its line."""
        value = fields[name]
        if not isinstance(value, _Sequence) or not value:
            raise self.fail(fields.value_lines[name], field, "expected a non-empty list")
        return list(zip(value, value.lines, strict=True))

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


class _DeckReader(FieldReader):
    """Checks a composed deck against the deck schema and builds a ``Deck``.

    Every field is checked even after one fails, so one run of ``deck check`` lists all the
    problems of a file (up to ``MAX_PROBLEMS``), not one per run. The per-card checks catch
    inline: a closure per field cost a 100k-card deck a tenth of its parse time.
    """

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.problems: list[str] = []
        self._first_line: dict[str, int] = {}
        """Card id → the line it was first seen on (a duplicate names both)."""

    def problem(self, error: DeckError) -> None:
        self.problems.append(str(error))

    def attempt(self, check: Callable[[], _T], fallback: _T) -> _T:
        """Run one check; a problem is noted and ``fallback`` returned, so the rest still run."""
        try:
            return check()
        except DeckError as error:
            self.problem(error)
            return fallback

    def failed(self, stop: DeckError | None = None) -> DeckError:
        """Every problem noted (then ``stop``, the one that ended the reading), as one error."""
        problems = [*self.problems, *([str(stop)] if stop is not None else [])]
        shown = problems[:MAX_PROBLEMS]
        if len(problems) > MAX_PROBLEMS:
            more = len(problems) - MAX_PROBLEMS
            shown.append(f"… and {more} more problems ({len(problems)} in all)")
        return DeckError("\n".join(shown))

    def check_format(self, top: _Mapping) -> None:
        """Before the cards are read: a deck of another format needs another reader (its other
        fields mean nothing to this one, so this problem ends the reading)."""
        if "format" not in top:
            return
        deck_format = self.field_text(top, "format", "format")
        if deck_format and deck_format != DECK_FORMAT:
            raise self.fail(
                top.value_lines["format"],
                "format",
                f"{quoted(deck_format)} is not {DECK_FORMAT!r} (a newer infracards may read it)",
            )

    def read(self, root: Any, *, digest: str) -> Deck:
        card_problems, self.problems = self.problems, []  # the header's are listed first
        deck = self.attempt(lambda: self._deck(root, digest), None)
        self.problems += card_problems
        if self.problems or deck is None:
            raise self.failed()
        return deck

    def _deck(self, root: Any, digest: str) -> Deck:
        top = self.mapping(
            root,
            1,
            "deck",
            allowed=_DECK_FIELDS,
            required={"format", "id", "title", "version", "language", "cards"},
        )
        self.check_format(top)
        deck_id = self.field_text(top, "id", "id", pattern=_DECK_ID)
        title = self.field_text(top, "title", "title")
        version = None
        if "version" in top:
            version = self.attempt(lambda: self.integer(top, "version", "version"), None)
        if version is not None and version < 1:
            self.problem(self.fail(top.value_lines["version"], "version", "must be 1 or more"))
        language = self.field_text(top, "language", "language", pattern=_LANGUAGE)
        notation = self.field_text(top, "notation", "notation") if "notation" in top else None
        lock = None
        if "lock" in top:
            line = top.value_lines["lock"]
            lock = self.attempt(lambda: self.plain(top["lock"], line, "lock"), None)
            if lock is not None and not isinstance(lock, dict):
                self.problem(self.fail(line, "lock", "expected a mapping of fields"))
        cards = top.get("cards")
        if "cards" in top and (not isinstance(cards, _CardList) or not cards.items):
            self.problem(
                self.fail(top.value_lines["cards"], "cards", "expected a non-empty list of cards")
            )
        cards = cards if isinstance(cards, _CardList) else ()
        if "lock" not in top and any(card.sealed for card in cards):
            first = next(card for card in cards if card.sealed)
            self.problem(
                DeckError(
                    f"{self.where}:{first.line}: cards[{first.card_id}].sealed: "
                    "the deck has no lock header"
                )
            )
        return Deck(
            deck_id=deck_id,
            title=title,
            version=version or 0,
            language=language,
            cards=tuple(cards),
            lock=lock,
            path=self.path,
            digest=digest,
            notation=notation,
        )

    def next_card(self, item: Any, line: int, index: int) -> Card | None:
        """Check the deck's next card (``cards[index]``), and that its id is new; None for an
        item that is no card at all (noted)."""
        field = f"cards[{index}]"
        try:
            card = self.card(item, line, field)
        except DeckError as error:
            self.problem(error)
            return None
        first = self._first_line.get(card.card_id)
        if first is not None:
            self.problem(
                self.fail(
                    line,
                    f"{field}.id",
                    f"duplicate card id {quoted(card.card_id)} (first on line {first})",
                )
            )
        elif card.card_id:
            self._first_line[card.card_id] = line
        return card

    def card(self, item: Any, line: int, field: str) -> Card:
        fields = self.mapping(item, line, field, allowed=_CARD_FIELDS, required=_CARD_REQUIRED)
        if ("answer" in fields) == ("sealed" in fields):
            self.problem(
                self.fail(
                    line, field, "a card needs exactly one of 'answer' (free) or 'sealed' (locked)"
                )
            )
        sealed = None
        if "sealed" in fields:
            sealed = "".join(self.field_text(fields, "sealed", f"{field}.sealed").split())
            if sealed and not _BASE64.fullmatch(sealed):
                self.problem(
                    self.fail(
                        fields.value_lines["sealed"],
                        f"{field}.sealed",
                        "expected base64 ciphertext",
                    )
                )
        return Card(
            card_id=self.field_text(fields, "id", f"{field}.id", pattern=CARD_ID),
            prompt=self.field_text(fields, "prompt", f"{field}.prompt"),
            tags_text=" ".join(
                self.texts(fields, "tags", f"{field}.tags", most=MAX_TAGS, pattern=TAG)
            ),
            key_points_json=json.dumps(
                list(self.texts(fields, "key_points", f"{field}.key_points", most=MAX_KEY_POINTS)),
                ensure_ascii=False,
            )
            if "key_points" in fields
            else "[]",
            answer=self.field_text(fields, "answer", f"{field}.answer")
            if "answer" in fields
            else None,
            sealed=sealed,
            line=line,
            calculators=self.texts(
                fields, "calculators", f"{field}.calculators", most=MAX_CALCULATORS, pattern=TAG
            ),
        )


def _unknown_field(unknown: Iterable[object], allowed: set[str]) -> str:
    """Name the first unknown field, and the field meant if it looks like a typo of one."""
    from difflib import get_close_matches  # only on this error path

    name = sorted(map(str, unknown))[0]
    close = get_close_matches(name, sorted(allowed), n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"expected {', '.join(sorted(allowed))}"
    return f"unknown field {quoted(name)} ({hint})"
