"""A few screenshots with a fixed date, deck and terminal size; review the report before updating."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from infracards.services.library import add_deck
from infracards.tui.app import InfracardsApp
from infracards.tui.context import AppContext

SIZE = (100, 32)


def test_home(app: InfracardsApp, snap_compare: Any) -> None:
    assert snap_compare(app, terminal_size=SIZE)


def test_review_answer_revealed(app: InfracardsApp, snap_compare: Any) -> None:
    assert snap_compare(app, press=["r", "space"], terminal_size=SIZE)


def test_review_locked_card(app: InfracardsApp, snap_compare: Any) -> None:
    assert snap_compare(app, press=["r", "space", "5", "space", "5", "space"], terminal_size=SIZE)


def test_browse(app: InfracardsApp, snap_compare: Any) -> None:
    assert snap_compare(app, press=["b"], terminal_size=SIZE)


# --- the most common terminal sizes: nothing cut, nothing out of sight without a word ---------

SMALL = {"60x20": (60, 20), "80x24": (80, 24)}

LAYOUT_DECK = """\
format: infracards-deck/v1
id: layout
title: "Layout: 布局检查 deck"
version: 1
language: zh-CN
cards:
  - id: l1
    prompt: "Ring All-Reduce 在 8 卡上每卡发送多少数据？为什么和卡数几乎无关？"
    tags: [communication, nccl]
    key_points:
      - "每卡发送 2(N−1)/N·S：Reduce-Scatter 与 All-Gather 各 (N−1)/N·S，N 大时趋近 2S"
      - "带宽项与 N 无关，延迟项 2(N−1)·α 随 N 线性增长"
    answer: |
      ## 核心回答
      | 算法 | 每卡发送 | 步数 |
      | --- | --- | --- |
      | Ring | 2(N−1)/N·S | 2(N−1) |
      | Tree | 2S | 2·log N |

      ```python
      n, size = 8, 64 << 20  # 每卡 64 MiB 的梯度，见 https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md
      assert 2 * (n - 1) / n * size == 117440512
      ```
"""


@pytest.fixture
def layout_app(context: AppContext, engine: Engine, tmp_path: Path) -> InfracardsApp:
    """The app on a deck whose one card has a table, a code line wider than 80 columns (a
    CJK comment and a URL in it) and key points that wrap."""
    deck = tmp_path / "layout.yaml"
    deck.write_text(LAYOUT_DECK, encoding="utf-8")
    add_deck(engine, deck)
    return InfracardsApp(context, start_review="layout")


@pytest.mark.parametrize("size", SMALL.values(), ids=SMALL.keys())
def test_home_in_a_small_terminal(app: InfracardsApp, snap_compare: Any, size: Any) -> None:
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize("size", SMALL.values(), ids=SMALL.keys())
def test_review_question_in_a_small_terminal(
    layout_app: InfracardsApp, snap_compare: Any, size: Any
) -> None:
    assert snap_compare(layout_app, terminal_size=size)


@pytest.mark.parametrize("size", SMALL.values(), ids=SMALL.keys())
def test_review_answer_and_grades_in_a_small_terminal(
    layout_app: InfracardsApp, snap_compare: Any, size: Any
) -> None:
    """The prompt on one line above the answer; the table, the code (its long line wrapped
    after ↪) and the key points; six aligned two-line grade buttons."""
    assert snap_compare(layout_app, press=["space"], terminal_size=size)


@pytest.mark.parametrize("size", SMALL.values(), ids=SMALL.keys())
def test_browse_in_a_small_terminal(app: InfracardsApp, snap_compare: Any, size: Any) -> None:
    """Every column whole, or named above the table when it had to give way."""
    assert snap_compare(app, press=["b"], terminal_size=size)
