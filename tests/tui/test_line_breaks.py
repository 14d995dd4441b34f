"""CJK line breaking: Chinese fills each line; text without CJK wraps exactly as before."""

from __future__ import annotations

import re

import rich._wrap
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from infracards.tui.line_breaks import CJK, enable_cjk_line_breaks, rich_word, textual_chunk

RICH_WORD = rich_word()
TEXTUAL_CHUNK = textual_chunk()
ONE_CJK = re.compile(rf"[{CJK}]")

RICH_ORIGINAL = re.compile(r"\s*\S+\s*")
TEXTUAL_ORIGINAL = re.compile(r"\S+\s*|\s+")


def split(pattern: re.Pattern[str], text: str) -> list[str]:
    words, position = [], 0
    while (match := pattern.match(text, position)) is not None and match.end() > position:
        words.append(match.group(0))
        position = match.end()
    return words


@given(st.text(alphabet=st.characters(max_codepoint=0x2E7F), max_size=60))
def test_text_without_cjk_is_split_exactly_as_before(text: str) -> None:
    assert split(RICH_WORD, text) == split(RICH_ORIGINAL, text)
    assert split(TEXTUAL_CHUNK, text) == split(TEXTUAL_ORIGINAL, text)


@given(st.text(alphabet="中文训练，。（）ab 12", max_size=60))
def test_no_character_is_lost(text: str) -> None:
    assert "".join(split(TEXTUAL_CHUNK, text)) == text
    assert (
        "".join(split(RICH_WORD, text)) == text.rstrip() or "".join(split(RICH_WORD, text)) == text
    )


@given(st.text(alphabet="中文训练，。（）「」ab 12.,()x", max_size=60))
def test_every_cjk_character_is_a_break_opportunity(text: str) -> None:
    for pattern in (RICH_WORD, TEXTUAL_CHUNK):
        assert all(len(ONE_CJK.findall(word)) <= 1 for word in split(pattern, text))


def test_each_pattern_is_compiled_when_its_library_first_wraps() -> None:
    enable_cjk_line_breaks()
    assert not isinstance(rich._wrap.re_word, re.Pattern)
    assert list(rich._wrap.words("训练 ab")) == [
        (0, 1, "训"),
        (1, 3, "练 "),
        (3, 5, "ab"),
    ]  # Rich's splitter
    assert rich._wrap.re_word is RICH_WORD


def test_a_chinese_sentence_fills_its_lines_and_keeps_punctuation_attached() -> None:
    enable_cjk_line_breaks()
    console = Console(width=30, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(Text("1. **粗体** 把每卡全部流量都走网卡当模型，会得出省 80% 以上的错误结论。"))
    lines = console.export_text().splitlines()
    assert lines[0].startswith("1. **粗体** 把每卡全部流量") and len(lines[0].rstrip()) >= 18
    assert not any(line.startswith(("，", "。")) for line in lines)


def test_a_url_wider_than_the_line_breaks_between_its_path_segments() -> None:
    from infracards.tui.line_breaks import chop_between_segments

    url = (
        "(https://github.com/NVIDIA/Megatron-LM/blob/main/megatron/core/tensor_parallel/layers.py)"
    )
    assert chop_between_segments(url, 40) == [
        "(https://github.com/NVIDIA/Megatron-LM/",
        "blob/main/megatron/core/tensor_parallel/",
        "layers.py)",
    ]
    slug = "distributed-w-torchtitan-introducing-async-tensor-parallelism-in-pytorch"
    assert chop_between_segments(slug, 30) == [
        "distributed-w-torchtitan-",
        "introducing-async-tensor-",
        "parallelism-in-pytorch",
    ]
    assert chop_between_segments("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]  # no separator
    enable_cjk_line_breaks()
    console = Console(width=50, color_system=None)
    lines = console.render_lines(Text(f"see {url} for the code"), pad=False)
    assert ["".join(s.text for s in line).rstrip() for line in lines] == [
        "see",
        "(https://github.com/NVIDIA/Megatron-LM/blob/main/",
        "megatron/core/tensor_parallel/layers.py) for the",
        "code",
    ]
