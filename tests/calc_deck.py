"""A small deck whose cards carry calculators and worked examples, and a notation page."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from infracards.services.library import add_deck
from infracards.store.db import open_store
from tests.conftest import write_release

CALC_DECK = """\
format: infracards-deck/v1
id: calcdemo
title: Calculator deck
version: 1
language: zh-CN
notation: |
  # 记号与常数

  | 符号 | 含义 |
  | --- | --- |
  | Ψ | 模型参数量 |
  | N_d | 数据并行度 |
lock:
  format: infracards-seal/v2
  aead: aes-256-gcm
  kdf: {alg: argon2id, memory_kib: 8192, iterations: 1, lanes: 1}
  commit: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
  revoked: []
  sealed: [q03]
  free: [q01, q02]
cards:
  - id: q01
    prompt: "7.5B 模型在 64 卡 ZeRO-1 下每卡多少模型状态？"
    tags: [memory]
    calculators: [memory, bubble]
    answer: |
      ## 核心回答
      每卡 2Ψ + 2Ψ + 12Ψ/N_d ≈ 31.4 GB。

      ```calc
      model: memory
      params: 7.5e9
      dp: 64
      zero: 1
      expect: per_gpu_gb = 31.4 ± 0.05
      ```

      ZeRO-3 时只剩 1.875 GB：

      ```calc
      model: memory
      params: 7.5e9; dp: 64; zero: 3
      expect: per_gpu_gb = 1.875 ± 0.001
      ```
  - id: q02
    prompt: "什么是 All-Reduce？"
    tags: [communication]
    answer: "Reduce-Scatter 之后 All-Gather。"
  - id: q03
    prompt: "175B 模型训练 300B token 要多久？"
    tags: [train-time]
    calculators: [train-time]
    sealed: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIj
"""


def calc_deck_file(folder: Path) -> Path:
    """The deck and its (empty) key slots, as a release ships them."""
    folder.mkdir(parents=True, exist_ok=True)
    return write_release(folder / "calcdemo.yaml", CALC_DECK)


def calc_store(home: Path, folder: Path) -> Engine:
    """A real, migrated store holding only the calculator deck."""
    engine = open_store(home)
    add_deck(engine, calc_deck_file(folder))
    return engine
