"""q26: the pinned, double-buffered H2D -> kernel -> D2H pipeline, ported onto modelled streams.

CUDA semantics the port keeps: each stream runs its operations in issue order; an event
record completes when the stream reaches it; cudaStreamWaitEvent waits for the record that was
issued last before the wait was issued. Copies and the kernel move data in pieces, so a missing
dependency shows up as wrong data under some interleaving.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from tests.kernels.numerics import report
from tests.kernels.sim import Block, run, until_at_least

CHECKS = ("q26/scale",)
PIECE = 3  # elements a copy engine or the kernel moves between two interleaving points


@dataclass
class Streams:
    queues: dict[str, list[tuple]] = field(default_factory=dict)  # type: ignore[type-arg]
    records: dict[str, int] = field(default_factory=dict)  # event -> records issued
    reached: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # completed records

    def record(self, event: str, stream: str) -> None:
        self.records[event] = self.records.get(event, 0) + 1
        self.queues.setdefault(stream, []).append(("record", event, self.records[event]))

    def wait(self, stream: str, event: str) -> None:
        self.queues.setdefault(stream, []).append(("wait", event, self.records.get(event, 0)))

    def op(self, stream: str, move) -> None:  # type: ignore[no-untyped-def]
        self.queues.setdefault(stream, []).append(("op", move))

    def worker(self, stream: str) -> Block:
        for item in self.queues[stream]:
            if item[0] == "record":
                self.reached[item[1]] = item[2]
            elif item[0] == "wait":
                event, version = item[1], item[2]
                yield until_at_least(self.reached, event, version)
            else:
                yield from item[1]()


def pieces(
    dst: np.ndarray, dst_off: int, src: np.ndarray, src_off: int, n: int, factor: float = 1.0
):  # type: ignore[no-untyped-def]
    def move() -> Block:
        for start in range(0, n, PIECE):
            stop = min(start + PIECE, n)
            dst[dst_off + start : dst_off + stop] = src[src_off + start : src_off + stop] * factor
            yield None

    return move


def h2d_pipeline_port(
    src: np.ndarray, chunk: int, seed: int, wait_drained: bool = True
) -> np.ndarray:
    total = src.size
    h_pinned = src.copy()  # memcpy into pinned memory, off the hot path
    d_buf = [np.full(chunk, np.nan), np.full(chunk, np.nan)]
    s = Streams()
    for b in range(2):
        s.record(f"drained{b}", "d2h")  # both buffers start free
    for it, off in enumerate(range(0, total, chunk)):
        b, n = it & 1, min(chunk, total - off)
        if wait_drained:
            s.wait("h2d", f"drained{b}")
        s.op("h2d", pieces(d_buf[b], 0, h_pinned, off, n))
        s.record(f"copied{b}", "h2d")
        s.wait("comp", f"copied{b}")
        s.op("comp", pieces(d_buf[b], 0, d_buf[b], 0, n, 2.0))  # scale<<<...>>>(d_buf[b], n, 2)
        s.record(f"computed{b}", "comp")
        s.wait("d2h", f"computed{b}")
        s.op("d2h", pieces(h_pinned, off, d_buf[b], 0, n))
        s.record(f"drained{b}", "d2h")
    run([s.worker(name) for name in s.queues], seed)  # then cudaStreamSynchronize(d2h)
    return h_pinned.copy()  # memcpy to dst_pageable


def test_every_chunk_comes_back_scaled_whatever_the_engines_overlap() -> None:
    src = np.random.default_rng(0).standard_normal(47)  # 47 = 4 chunks of 11 and a tail of 3
    error = 0.0
    for seed in range(20):
        error = max(error, float(np.abs(h2d_pipeline_port(src, 11, seed) - 2 * src).max()))
    report("q26 h2d_pipeline (dst = 2 * src)", error, 0.0)


def test_without_the_drained_event_a_buffer_is_refilled_before_it_was_copied_out() -> None:
    src = np.random.default_rng(0).standard_normal(47)
    results = [h2d_pipeline_port(src, 11, seed, wait_drained=False) for seed in range(20)]
    assert any(not np.array_equal(r, 2 * src) for r in results)
