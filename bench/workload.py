"""The synthetic collection every side of the benchmark loads: same cards, same history.

Card sizes follow the issue: a ~60-character Chinese prompt and a ~1.5k-character Markdown
answer with a code block. The history is N card states plus M reviews spread over two years,
generated from a fixed seed so infracards, Anki and the raw floor all see identical data.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

TODAY = (datetime.now() - timedelta(hours=4)).date()
"""The learner's study day now (infracards rolls the day over at 04:00). The history ends here,
so a fresh process that reads the real clock (cold start) sees the queue the others time."""
HISTORY_DAYS = 730
NEW_SHARE = 0.2
TAGS = [
    "communication", "memory", "zero", "pipeline", "tensor-parallel", "data-parallel",
    "checkpoint", "scheduler", "nccl", "kernels", "attention", "moe", "fp8", "storage",
    "network", "profiling", "inference", "serving", "evaluation", "career",
]  # fmt: skip

_PROMPT = (
    "在 1024 张 H100 上训练 70B 模型时，如何在 TP、PP、DP 之间切分，"
    "并估算每一步的通信量与显存占用？请给出推导"
)
_ANSWER = (
    "## 结论\n\n"
    "Ring All-Reduce 中每个 rank 发送 2(N-1)/N·S 字节：先 Reduce-Scatter，再 All-Gather，"
    "两步各 (N-1)/N·S。**ZeRO-3** 把参数、梯度和优化器状态切到 DP 组内，"
    "forward 前对每层 All-Gather 参数，backward 后 Reduce-Scatter 梯度，"
    "所以通信量是 DDP 的 1.5 倍，换来每卡显存降到 1/N。\n\n"
    "```python\n"
    "def ring_all_reduce_bytes(size: int, ranks: int) -> float:\n"
    '    """Bytes each rank sends in a ring all-reduce of `size` bytes."""\n'
    "    return 2 * (ranks - 1) / ranks * size\n"
    "\n"
    "print(ring_all_reduce_bytes(2 * 70e9, 8) / 1e9, 'GB')\n"
    "```\n\n"
    "## 推导\n\n"
    "1. 1F1B 的 bubble 占比是 (p-1)/(m+p-1)，m 是 micro-batch 数，p 是 stage 数；"
    "interleaved 1F1B 把它除以 virtual stage 数 v。\n"
    "2. TP 放在 NVLink 域内（≤ 8 卡），每层 forward 两次 All-Reduce（attention 与 MLP 各一次），"
    "backward 同样两次；跨节点的 IB 带宽只有 NVLink 的 1/9 左右。\n"
    "3. 显存：参数 + 梯度 + Adam 状态按混合精度是 16 字节/参数，70B 即 1.12 TB，"
    "必须靠 ZeRO 或 PP 切开；activation 再用 selective recomputation 压到可控范围。\n\n"
    "## 面试官追问\n\n"
    "- 为什么 DualPipe 能把 bubble 进一步压缩？双向调度如何让 forward 与 backward 的计算和通信重叠？\n"
    "- NCCL 的 tree 与 ring 算法各适合什么消息大小？延迟项 α 与带宽项 β 如何取舍？\n"
    "- 如果某个 rank 慢 20%，整体 step time 会怎样变化？怎么定位 straggler？\n"
    "- ZeRO-3 与 FSDP 的 prefetch 策略有什么差别？HSDP 为什么在节点内分片、节点间复制？\n\n"
    "## 常见误区\n\n"
    "把 All-Reduce 的通信量算成 (N-1)·S（那是朴素的 reduce + broadcast）；"
    "忘记 PP 的 activation 需要按 in-flight micro-batch 数乘上去；"
    "以为 TP 可以随意跨节点扩展——跨 IB 后每层四次 All-Reduce 会让 MFU 明显下降。"
    "估算时先写出每个维度的公式，再代入 NVLink 900 GB/s、IB 400 Gb/s 这类数字做数量级检查，"
    "最后说明哪些假设（overlap 比例、kernel 效率、负载均衡）会让实测偏离理论值。"
    "面试中把公式、假设和数量级讲清楚，比背出一个数字更重要；"
    "如果能补充一次真实 profiling 的经历（nsys 时间线上 NCCL kernel 与 GEMM 的重叠情况），会更有说服力。\n"
)


def card_id(index: int) -> str:
    return f"c{index:06d}"


def prompt(index: int) -> str:
    """About 60 characters, unique per card."""
    return f"{_PROMPT[:54]} #{index}"


def answer(index: int) -> str:
    """About 1.5k characters of Markdown with a Python code block."""
    return f"{_ANSWER}\n（第 {index} 题，合成的基准数据，内容只为撑起真实的长度与格式。）\n"


def tags(index: int) -> list[str]:
    return list(dict.fromkeys([TAGS[index % 20], TAGS[index * 7 % 20]]))


def write_deck_yaml(path: str, cards: int, *, deck_id: str = "bench") -> None:
    """An infracards deck file of ``cards`` cards, written the way an author would."""
    with open(path, "w", encoding="utf-8") as out:
        out.write(
            f"format: infracards-deck/v1\nid: {deck_id}\ntitle: Bench deck\n"
            "version: 1\nlanguage: zh-CN\ncards:\n"
        )
        for index in range(cards):
            body = "".join(
                f"      {line}\n" if line else "\n" for line in answer(index).splitlines()
            )
            out.write(
                f"  - id: {card_id(index)}\n"
                f'    prompt: "{prompt(index)}"\n'
                f"    tags: [{', '.join(tags(index))}]\n"
                f"    answer: |\n{body}"
            )


@dataclass(frozen=True, slots=True)
class CardHistory:
    """Where one card stands today; ``due`` is None for a card never reviewed."""

    index: int
    due: date | None
    interval: int
    repetitions: int
    easiness: float


@dataclass(frozen=True, slots=True)
class PastReview:
    index: int
    reviewed_at: datetime
    grade: int
    """SM-2 grade 0–5 (the Anki side maps it to its four buttons)."""
    duration_ms: int


def card_states(cards: int, *, seed: int = 7) -> list[CardHistory]:
    """One in five cards new; of the others about a third overdue, the rest due within their interval."""
    rng = random.Random(seed)
    states = []
    for index in range(cards):
        if rng.random() < NEW_SHARE:
            states.append(CardHistory(index, None, 0, 0, 2.5))
            continue
        interval = rng.choice([1, 1, 2, 6, 6, 15, 38, 90, 200])
        due = TODAY + timedelta(days=rng.randint(-interval // 4 - 2, interval))
        states.append(
            CardHistory(index, due, interval, rng.randint(1, 8), rng.randint(130, 300) / 100)
        )
    return states


def reviews(cards: int, count: int, *, seed: int = 11) -> Iterator[PastReview]:
    """Chronological, like a real log: one day in ten is skipped, recent days are busier."""
    rng = random.Random(seed)
    days = [TODAY - timedelta(days=n) for n in range(HISTORY_DAYS - 1, -1, -1)]
    studied = [day for day in days if rng.random() > 0.1 or day == TODAY]
    weights = [1 + i / len(studied) for i in range(len(studied))]
    per_day = [0] * len(studied)
    for i in rng.choices(range(len(studied)), weights=weights, k=count):
        per_day[i] += 1
    for day, reviewed in zip(studied, per_day, strict=True):
        start = datetime(day.year, day.month, day.day, 8, tzinfo=UTC)
        for n in range(reviewed):
            yield PastReview(
                index=rng.randrange(cards),
                reviewed_at=start + timedelta(seconds=n * 20),
                grade=rng.choices(range(6), weights=[3, 3, 6, 18, 40, 30])[0],
                duration_ms=rng.randint(2000, 30000),
            )
