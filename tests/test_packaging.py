"""The built wheel and sdist hold no sealed answer, in any encoding (sealing.md §1.9).

Publisher mistakes are the likeliest leak: plaintext source, a key list or the publisher secret
swept into a package. These tests build real artifacts with hatchling, walk every member (opening
nested archives and compressed streams) and search each one for the sealed answers in every
encoding a tool chain is likely to produce. Positive controls prove the same scanner catches a
planted leak, so a silent scanner cannot pass for a clean package.
"""

from __future__ import annotations

import base64
import bz2
import gzip
import importlib.util
import io
import json
import lzma
import re
import secrets
import shutil
import subprocess
import sys
import tarfile
import tomllib
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

from infracards.deck import Deck, parse_deck
from infracards.services.publish import (
    create_secret,
    issue_keys,
    load_source,
    read_secret,
    seal_source,
)
from tools.kernels.blocks import FENCE

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "deck" / "source" / "module03"
DECK_FILES = ("deck/module03.yaml", "deck/module03.keyslots.json")
PROJECT_FILES = ("pyproject.toml", "README.md", "alembic.ini", ".gitignore")
PROJECT_DIRS = ("src", "migrations")
SDIST_ONLY_INCLUDE = {
    "src",
    "migrations",
    *DECK_FILES,
    "README.md",
    "pyproject.toml",
    "alembic.ini",
}
SDIST_ALWAYS = {"PKG-INFO", ".gitignore"}
"""Files hatchling adds to every sdist, whatever ``only-include`` says."""
WHEEL_DECK = "infracards/_decks/module03.yaml"
WHEEL_DATA = {WHEEL_DECK, "infracards/_decks/module03.keyslots.json"}
DIST_INFO = {"METADATA", "WHEEL", "RECORD", "entry_points.txt"}
FORBIDDEN = re.compile(r"(^|/)(deck/source|tests?)/|(^|/)q\d+\.md$|keys\.json$|secret|\.pyc$", re.I)
"""Publisher source, key lists, secrets, tests and bytecode: never in a package."""

MAX_DEPTH = 8
MAX_INFLATE = 256 << 20
"""Bounds for nested archives, so a hostile member cannot hang or exhaust the test."""


# --- needles: one secret text in every encoding we search for -----------------------------------

_SPACES = b" \t\n\r\x0b\x0c"
_URLSAFE = bytes.maketrans(b"+/", b"-_")


def flat(data: bytes) -> bytes:
    """ASCII whitespace removed: YAML folding, indentation and wrapped base64 cannot hide a match."""
    return data.translate(None, _SPACES)


VIEWS: dict[str, Callable[[bytes], bytes]] = {
    "raw": lambda data: data,
    "flat": flat,
    "flat-ci": lambda data: flat(data).lower(),
}
"""Each pattern is searched in one view of every member; ``flat-ci`` is for hex and escapes."""


@dataclass(frozen=True, slots=True)
class Needle:
    """A secret (an answer excerpt, a canary, a key) and its encodings as (view, name, bytes)."""

    label: str
    patterns: tuple[tuple[str, str, bytes], ...]


def base64_windows(data: bytes) -> Iterator[tuple[str, bytes]]:
    """The base64 text of ``data`` wherever it starts in a 3-byte group (offset 0, 1 or 2).

    Characters that also depend on the bytes before or after the needle are dropped, so the
    window matches inside any longer base64 string.
    """
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).rstrip(b"=")
        window = encoded[-(-8 * offset // 6) : 8 * (offset + len(data)) // 6]
        yield f"base64@{offset}", window
        yield f"base64url@{offset}", window.translate(_URLSAFE)


def text_needle(label: str, text: str) -> Needle:
    """``text`` as UTF-8/16, JSON and repr escapes, hex and base64, ignoring whitespace."""
    utf8 = text.encode()
    assert len(flat(utf8)) >= 12, f"{label}: needle {text!r} is too short to search for"
    escapes = {
        "json": json.dumps(text, ensure_ascii=False)[1:-1],
        "json \\uXXXX": json.dumps(text)[1:-1],
        "repr": ascii(text)[1:-1],
        "bytes repr": repr(utf8)[2:-1],
    }
    patterns = [("flat", "utf-8", flat(utf8))]
    patterns += [
        ("flat" if name == "json" else "flat-ci", name, flat(escaped.encode()))
        for name, escaped in escapes.items()
        if escaped != text
    ]
    patterns += [("raw", "utf-16-le", text.encode("utf-16-le"))]
    patterns += [("raw", "utf-16-be", text.encode("utf-16-be"))]
    patterns += [("flat-ci", "hex", utf8.hex().encode())]
    patterns += [("flat", name, window) for name, window in base64_windows(utf8)]
    return Needle(label, _unique(patterns))


def binary_needle(label: str, data: bytes) -> Needle:
    """Raw key bytes: as they are, in hex and in base64."""
    patterns = [("raw", "bytes", data), ("flat-ci", "hex", data.hex().encode())]
    patterns += [("flat", name, window) for name, window in base64_windows(data)]
    return Needle(label, _unique(patterns))


def _unique(patterns: list[tuple[str, str, bytes]]) -> tuple[tuple[str, str, bytes], ...]:
    seen: set[tuple[str, bytes]] = set()
    kept: list[tuple[str, str, bytes]] = []
    for view, name, pattern in patterns:
        pattern = pattern.lower() if view == "flat-ci" else pattern
        if (view, pattern) not in seen:
            seen.add((view, pattern))
            kept.append((view, name, pattern))
    return tuple(kept)


# --- walking artifacts: every member, nested archive and compressed stream ----------------------


@dataclass(frozen=True, slots=True)
class Layer:
    """Bytes to search, and where they came from (``artifact!member!gz!inner``)."""

    where: str
    data: bytes


def walk(where: str, data: bytes, depth: int = 0) -> Iterator[Layer]:
    """``data`` itself, then everything inside it, recursively."""
    yield Layer(where, data)
    if depth < MAX_DEPTH:
        for name, inner in open_container(data):
            yield from walk(f"{where}!{name}", inner, depth + 1)


def open_container(data: bytes) -> list[tuple[str, bytes]]:
    """The members of a zip or tar, or the content of a gz/xz/bz2/zlib stream; else nothing."""
    if data.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                return [(i.filename, archive.read(i)) for i in archive.infolist() if not i.is_dir()]
        except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError):
            return []
    if data[257:262] == b"ustar":
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
                return [(m.name, _tar_read(archive, m)) for m in archive.getmembers() if m.isfile()]
        except (tarfile.TarError, OSError):
            return []
    stream = decompress(data)
    return [stream] if stream else []


def _tar_read(archive: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    handle = archive.extractfile(member)
    assert handle is not None
    return handle.read()


def _zlib_header(data: bytes) -> bool:
    return len(data) > 2 and data[0] & 0x8F == 0x08 and (data[0] << 8 | data[1]) % 31 == 0


_STREAMS: tuple[tuple[str, Callable[[bytes], bool], Callable[[], Any]], ...] = (
    ("gz", lambda d: d.startswith(b"\x1f\x8b"), lambda: zlib.decompressobj(wbits=31)),
    ("xz", lambda d: d.startswith(b"\xfd7zXZ\x00"), lzma.LZMADecompressor),
    ("bz2", lambda d: d[:3] == b"BZh" and d[3:4].isdigit(), bz2.BZ2Decompressor),
    ("zlib", _zlib_header, zlib.decompressobj),
)


def decompress(data: bytes) -> tuple[str, bytes] | None:
    """(kind, content) of a compressed stream at the start of ``data``, concatenated members too."""
    for kind, matches, new_decompressor in _STREAMS:
        if not matches(data):
            continue
        out, rest = bytearray(), data
        try:
            while rest and len(out) < MAX_INFLATE:
                decompressor = new_decompressor()
                out += decompressor.decompress(rest, MAX_INFLATE - len(out))
                if not decompressor.eof:
                    break
                rest = decompressor.unused_data
        except (zlib.error, lzma.LZMAError, OSError, EOFError, ValueError):
            pass  # a damaged stream still yields what came before the damage
        return (kind, bytes(out)) if out else None
    return None


def artifact_layers(path: Path) -> list[Layer]:
    return list(walk(path.name, path.read_bytes()))


# --- the scanner --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hit:
    where: str
    needle: str
    encoding: str

    def __str__(self) -> str:
        return f"{self.where}: {self.needle} ({self.encoding})"


_JOIN = b"\x00\xff\x00"
"""Between layers in a joined view: no UTF-8 holds it, and a match across it is re-checked."""


def scan(layers: Iterable[Layer], needles: Iterable[Needle]) -> list[Hit]:
    """Every (layer, needle, encoding) where a needle occurs.

    Each view of all layers is joined once, so a pattern costs one ``in`` over the whole
    artifact; only a pattern that occurs there is looked up layer by layer.
    """
    layers = list(layers)
    views = {name: [view(layer.data) for layer in layers] for name, view in VIEWS.items()}
    joined = {name: _JOIN.join(parts) for name, parts in views.items()}
    hits: list[Hit] = []
    for needle in needles:
        for view, encoding, pattern in needle.patterns:
            if pattern in joined[view]:
                hits += [
                    Hit(layer.where, needle.label, encoding)
                    for layer, data in zip(layers, views[view], strict=True)
                    if pattern in data
                ]
    return hits


def assert_no_leak(layers: list[Layer], needles: list[Needle]) -> None:
    hits = scan(layers, needles)
    assert not hits, f"{len(hits)} sealed secrets found in the artifacts:\n" + "\n".join(
        map(str, hits)
    )


# --- building and checking the artifacts --------------------------------------------------------


def copy_project(dest: Path) -> Path:
    """What the build reads (app, migrations, metadata), without bytecode and without a deck."""
    for name in PROJECT_DIRS:
        shutil.copytree(REPO / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in PROJECT_FILES:
        if (REPO / name).exists():
            shutil.copy2(REPO / name, dest / name)
    return dest


def copy_checkout(dest: Path) -> Path:
    """The whole working tree as a publisher builds it: publisher source, tests and all."""
    ignore = shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", ".*_cache", ".hypothesis", "build", "dist", "*.egg-info"
    )
    shutil.copytree(REPO, dest, ignore=ignore)
    assert (dest / "deck" / "source" / "module03" / "keys.json").exists()
    return dest


def build(project: Path) -> tuple[Path, Path]:
    """(wheel, sdist) built by hatchling, as the publisher's release job builds them."""
    if importlib.util.find_spec("hatchling") is None:
        pytest.fail("hatchling is needed to build the artifacts: pip install -e '.[test]'")
    out = project / "dist"
    command = [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-t", "sdist", "-d"]
    done = subprocess.run(
        [*command, str(out)], cwd=project, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return wheel, sdist


def wheel_member_allowed(name: str) -> bool:
    path = PurePosixPath(name)
    if len(path.parts) == 2 and path.parts[0].endswith(".dist-info"):
        return path.name in DIST_INFO
    if name in WHEEL_DATA or name.startswith("infracards/_migrations/"):
        return True
    return path.parts[0] == "infracards" and path.suffix in {".py", ".tcss"}


def sdist_member_allowed(name: str) -> bool:
    _root, _, rest = name.partition("/")
    if rest in SDIST_ALWAYS or rest in SDIST_ONLY_INCLUDE or rest.startswith("migrations/"):
        return True
    return rest.startswith("src/infracards/") and PurePosixPath(rest).suffix in {".py", ".tcss"}


def assert_members_allowed(wheel: Path, sdist: Path) -> None:
    """Only the app, its migrations and the shipped deck; nothing a publisher keeps private."""
    with zipfile.ZipFile(wheel) as archive:
        wheel_names = archive.namelist()
    with tarfile.open(sdist) as archive:
        members = archive.getmembers()
    assert all(m.isfile() or m.isdir() for m in members), "links in the sdist"
    sdist_names = [m.name for m in members if m.isfile()]
    unexpected = [n for n in wheel_names if not wheel_member_allowed(n) or FORBIDDEN.search(n)]
    unexpected += [n for n in sdist_names if not sdist_member_allowed(n) or FORBIDDEN.search(n)]
    assert not unexpected, f"members outside the allow-list: {unexpected}"
    assert set(wheel_names) >= WHEEL_DATA
    assert {n.partition("/")[2] for n in sdist_names} >= set(DECK_FILES)


def packaged_decks(wheel: Path, sdist: Path) -> tuple[bytes, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = archive.read(WHEEL_DECK)
    with tarfile.open(sdist) as archive:
        (member,) = [m for m in archive.getmembers() if m.name.endswith("/deck/module03.yaml")]
        in_sdist = _tar_read(archive, member)
    return in_wheel, in_sdist


def deck_layers(wheel: Path, sdist: Path) -> set[str]:
    """Where the scanner finds the packaged deck in each artifact."""
    root = sdist.name.removesuffix(".tar.gz")
    return {f"{wheel.name}!{WHEEL_DECK}", f"{sdist.name}!gz!{root}/deck/module03.yaml"}


def assert_deck_sealed(data: bytes) -> Deck:
    """Exactly the two free cards carry an ``answer``; the other 31 only a ``sealed`` blob."""
    deck = parse_deck(data, path=Path("module03.yaml"))
    free = [card.card_id for card in deck.cards if card.answer is not None]
    sealed = [card.card_id for card in deck.cards if card.sealed is not None]
    assert free == ["q01", "q02"]
    assert sealed == [f"q{n:02d}" for n in range(3, 34)]
    assert all(not card.key_points for card in deck.cards if card.sealed is not None)
    return deck


def test_pyproject_sdist_is_only_include() -> None:
    """The sdist allow-list mirrors ``only-include``; without it hatchling takes every file."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    sdist = config["tool"]["hatch"]["build"]["targets"]["sdist"]
    assert set(sdist["only-include"]) == SDIST_ONLY_INCLUDE
    assert set(sdist) == {"only-include"}


# --- test 1: a fixture deck full of canaries ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class FixtureCard:
    card_id: str
    canary: str
    sentence: str
    key_points: tuple[str, ...]
    kp_canaries: tuple[str, ...]

    def needles(self) -> list[Needle]:
        texts = {
            f"{self.card_id} answer canary": self.canary,
            f"{self.card_id} CJK sentence": self.sentence,
            **{f"{self.card_id} key point {i}": kp for i, kp in enumerate(self.key_points, 1)},
            **{f"{self.card_id} kp canary {i}": c for i, c in enumerate(self.kp_canaries, 1)},
        }
        return [text_needle(label, text) for label, text in texts.items()]


def cjk_sentence() -> str:
    """Random ideographs: unique per card, and no ASCII that a search could match instead."""
    return "秘密" + "".join(chr(0x4E00 + secrets.randbelow(0x5000)) for _ in range(18)) + "。"


def write_fixture_source(folder: Path) -> dict[str, FixtureCard]:
    """The real deck.yaml (33 prompts, q01/q02 free) and notation page, with canary answers
    in every qNN.md."""
    folder.mkdir(parents=True)
    shutil.copy2(SOURCE / "deck.yaml", folder / "deck.yaml")
    header = yaml.safe_load((folder / "deck.yaml").read_text(encoding="utf-8"))
    if "notation" in header:
        shutil.copy2(SOURCE / header["notation"], folder / header["notation"])
    cards: dict[str, FixtureCard] = {}
    for entry in header["cards"]:
        card_id = entry["id"]
        kp_canaries = tuple(f"KP-CANARY-{uuid.uuid4()}" for _ in range(2))
        card = FixtureCard(
            card_id=card_id,
            canary=f"CANARY-{uuid.uuid4()}",
            sentence=cjk_sentence(),
            key_points=(f"要点一：{kp_canaries[0]}", f"要点二，带有标记 {kp_canaries[1]} 的一句话"),
            kp_canaries=kp_canaries,
        )
        front = yaml.safe_dump({"key_points": list(card.key_points)}, allow_unicode=True)
        body = (
            f"## 核心回答\n\n{card.sentence}\n\n"
            f"1. **第一点。** 这一段正文带有标记 {card.canary}，用来检查打包结果。\n"
            f"   第二行续写，YAML 可能折行。\n\n"
            f'```python\nassert "{card.canary}".startswith("CANARY-")\n```\n'
        )
        (folder / f"{card_id}.md").write_text(f"---\n{front}---\n{body}", encoding="utf-8")
        cards[card_id] = card
    assert len(cards) == 33 and len({c.sentence for c in cards.values()}) == 33
    return cards


@dataclass(frozen=True, slots=True)
class FixtureBuild:
    wheel: Path
    sdist: Path
    cards: dict[str, FixtureCard]
    secret: bytes
    kek: bytes
    license_key: str

    def sealed_needles(self) -> list[Needle]:
        needles = [
            n for card in self.cards.values() if card.card_id > "q02" for n in card.needles()
        ]
        needles.append(binary_needle("throw-away publisher secret", self.secret))
        needles.append(binary_needle("issued KEK", self.kek))
        needles.append(text_needle("issued card key", self.license_key))
        return needles


@pytest.fixture(scope="module")
def fixture_build(tmp_path_factory: pytest.TempPathFactory) -> FixtureBuild:
    """Project copy whose deck is sealed from canary answers under a throw-away secret."""
    project = copy_project(tmp_path_factory.mktemp("fixture-project"))
    source = project / "deck" / "source" / "module03"
    cards = write_fixture_source(source)
    create_secret(source / "publisher-secret.json")  # where a careless publisher keeps it
    secret = read_secret(source / "publisher-secret.json")
    (issued,) = issue_keys(source, secret=secret, count=1, test_params=True)
    seal_source(source, secret=secret, out_dir=project / "deck", test_params=True)
    decoy = project / "tests" / "test_answers.py"  # test fixtures hold answers too
    decoy.parent.mkdir()
    decoy.write_text(f"ANSWER = {cards['q05'].canary!r}\n", encoding="utf-8")
    wheel, sdist = build(project)
    return FixtureBuild(wheel, sdist, cards, secret, issued.kek, issued.license_key)


def test_fixture_artifacts_hold_no_sealed_canary(fixture_build: FixtureBuild) -> None:
    """No sealed answer, key point, secret, KEK or card key, in any encoding, in any member."""
    layers = [*artifact_layers(fixture_build.wheel), *artifact_layers(fixture_build.sdist)]
    assert_no_leak(layers, fixture_build.sealed_needles())

    # The free cards ship in plaintext: the same walk must find them inside both artifacts.
    free = {hit.where for hit in scan(layers, fixture_build.cards["q01"].needles())}
    assert deck_layers(fixture_build.wheel, fixture_build.sdist) <= free


def test_fixture_artifacts_members_and_deck(fixture_build: FixtureBuild) -> None:
    """Allow-listed members only, and the packaged deck is the sealed one: 2 free, 31 sealed."""
    assert_members_allowed(fixture_build.wheel, fixture_build.sdist)
    in_wheel, in_sdist = packaged_decks(fixture_build.wheel, fixture_build.sdist)
    assert in_wheel == in_sdist
    assert_deck_sealed(in_wheel)


# --- positive controls: the scanner must report a planted leak ----------------------------------


def rewrite_wheel(wheel: Path, out: Path, members: dict[str, bytes]) -> Path:
    """A copy of ``wheel`` with ``members`` added or replacing the original bytes."""
    extra = dict(members)
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dest:
        for info in source.infolist():
            dest.writestr(info, extra.pop(info.filename, None) or source.read(info))
        for name, data in extra.items():
            dest.writestr(name, data)
    return out


def tar_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_scanner_reports_planted_plaintext(fixture_build: FixtureBuild, tmp_path: Path) -> None:
    """Plant sealed answers in several encodings and nestings; each one must be reported."""
    cards = fixture_build.cards
    with zipfile.ZipFile(fixture_build.wheel) as archive:
        deck = archive.read(WHEEL_DECK)
    sentence = cards["q09"].sentence.encode()
    folded = sentence[:12] + b"\n      " + sentence[12:]  # cut between two ideographs
    planted = {
        WHEEL_DECK: deck + b"# " + base64.b64encode(b"x" + cards["q17"].sentence.encode()) + b"\n",
        "infracards/_decks/notes.txt": cards["q05"].canary.encode("utf-16-le"),
        "infracards/_decks/folded.yaml": b"answer: >\n  " + folded + b"\n",
        "infracards/_decks/cache.tar.gz": gzip.compress(
            tar_bytes(
                {
                    "inner/kp.json": json.dumps({"kp": cards["q20"].key_points[1]}).encode(),
                    "inner/a.bin": lzma.compress(cards["q28"].canary.encode().hex().encode()),
                }
            )
        ),
        "infracards/_decks/blob.z": zlib.compress(
            bz2.compress(base64.urlsafe_b64encode(b"a" + cards["q31"].key_points[1].encode()))
        ),
    }
    leaky = rewrite_wheel(fixture_build.wheel, tmp_path / fixture_build.wheel.name, planted)
    hits = scan(artifact_layers(leaky), fixture_build.sealed_needles())

    expected = {
        ("!infracards/_decks/module03.yaml", "q17 CJK sentence", "base64@1"),
        ("!infracards/_decks/notes.txt", "q05 answer canary", "utf-16-le"),
        ("!infracards/_decks/folded.yaml", "q09 CJK sentence", "utf-8"),
        ("/cache.tar.gz!gz!inner/kp.json", "q20 key point 2", "json \\uXXXX"),
        ("/cache.tar.gz!gz!inner/a.bin!xz", "q28 answer canary", "hex"),
        ("/blob.z!zlib!bz2", "q31 key point 2", "base64url@1"),  # its prefix has a "-" there
    }
    for suffix, label, encoding in expected:
        assert any(
            h.where.endswith(suffix) and h.needle == label and h.encoding == encoding for h in hits
        ), f"planted {label} ({encoding}) in {suffix} was not reported; got {list(map(str, hits))}"
    planted_cards = {label.split()[0] for _, label, _ in expected}
    assert {hit.needle.split()[0] for hit in hits} == planted_cards  # and nothing else
    with pytest.raises(AssertionError, match="q05 answer canary"):
        assert_no_leak(artifact_layers(leaky), fixture_build.sealed_needles())


# --- test 2: the real repository and its real sealed answers ------------------------------------


_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]{12,}")


def answer_excerpts(answer: str, public: str) -> list[str]:
    """Three distinct excerpts of a sealed answer that appear nowhere in the public deck.

    A long CJK run of prose, the longest code line, then the longest prose lines.
    """
    prose = FENCE.sub("", answer)
    code = [line.strip() for _, _, block in FENCE.findall(answer) for line in block.splitlines()]
    lines = [line.strip(" -*#>|0123456789.") for line in prose.splitlines()]
    candidates = [
        *sorted(_CJK_RUN.findall(prose), key=len, reverse=True)[:1],
        *sorted((c for c in code if len(set(c)) >= 8), key=len, reverse=True)[:1],
        *sorted((line for line in lines if len(set(line)) >= 8), key=len, reverse=True),
    ]
    picked: list[str] = []
    for text in candidates:
        squashed = flat(text.encode()).decode()
        if (
            len(squashed) >= 12
            and squashed not in public
            and all(squashed not in flat(p.encode()).decode() for p in picked)
        ):
            picked.append(text)
    return picked[:3]


def real_needles(shipped: Deck) -> list[Needle]:
    """Excerpts and key points of the sealed answers, the demo secret and every cached KEK."""
    source = load_source(SOURCE)
    public_parts = [(SOURCE / "deck.yaml").read_text(encoding="utf-8"), shipped.notation or ""]
    public_parts += [c.answer + "".join(c.key_points) for c in source.cards if c.free]
    public_parts += [c.answer + "".join(c.key_points) for c in shipped.cards if c.answer]
    public = flat("".join(public_parts).encode()).decode()
    needles: list[Needle] = []
    for card in source.cards:
        if card.free:
            continue
        excerpts = answer_excerpts(card.answer, public)
        assert len(excerpts) == 3, f"{card.card_id}: found only {excerpts}"
        needles += [text_needle(f"{card.card_id} excerpt {text[:40]!r}", text) for text in excerpts]
        needles += [
            text_needle(f"{card.card_id} key point {i}", point)
            for i, point in enumerate(card.key_points, 1)
            if flat(point.encode()).decode() not in public
        ]
    demo_secret = SOURCE / "DEMO-publisher-secret.json"
    secret_text = json.loads(demo_secret.read_text(encoding="utf-8"))["secret"]
    needles.append(text_needle("demo publisher secret", secret_text))
    needles.append(binary_needle("demo publisher secret (raw)", read_secret(demo_secret)))
    registry = json.loads((SOURCE / "keys.json").read_text(encoding="utf-8"))
    for kid, kek in registry["issued"].items():
        needles.append(text_needle(f"KEK {kid}", kek))
        needles.append(binary_needle(f"KEK {kid} (raw)", base64.b64decode(kek)))
    return needles


def free_needles(shipped: Deck) -> list[Needle]:
    """The same kind of excerpts from the free answers as shipped: these must be found."""
    return [
        text_needle(f"{card.card_id} excerpt {text[:40]!r}", text)
        for card in shipped.cards
        if card.answer
        for text in answer_excerpts(card.answer, public="")
    ]


def test_real_artifacts_hold_no_sealed_answer(tmp_path: Path) -> None:
    """The repository as released: no excerpt of q03–q33, key point, secret or KEK ships."""
    wheel, sdist = build(copy_checkout(tmp_path / "checkout"))
    assert_members_allowed(wheel, sdist)
    in_wheel, in_sdist = packaged_decks(wheel, sdist)
    assert in_wheel == in_sdist == (REPO / DECK_FILES[0]).read_bytes()
    shipped = assert_deck_sealed(in_wheel)

    layers = [*artifact_layers(wheel), *artifact_layers(sdist)]
    assert_no_leak(layers, real_needles(shipped))
    # The free answers ship in plaintext: the same picker and scanner must find them in both.
    free = free_needles(shipped)
    assert len(free) == 6
    for needle in free:
        found = {hit.where for hit in scan(layers, [needle])}
        assert deck_layers(wheel, sdist) <= found, needle.label
