"""CJK line breaking: Chinese fills each line; text without CJK wraps exactly as before."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from infracards.tui.line_breaks import RICH_WORD, TEXTUAL_CHUNK, enable_cjk_line_breaks

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


def test_a_chinese_sentence_fills_its_lines_and_keeps_punctuation_attached() -> None:
    enable_cjk_line_breaks()
    console = Console(width=30, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(Text("1. **粗体** 把每卡全部流量都走网卡当模型，会得出省 80% 以上的错误结论。"))
    lines = console.export_text().splitlines()
    assert lines[0].startswith("1. **粗体** 把每卡全部流量") and len(lines[0].rstrip()) >= 18
    assert not any(line.startswith(("，", "。")) for line in lines)
