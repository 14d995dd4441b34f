"""q19: the ring reduce-scatter / all-gather kernel, ported block by block on simulated ranks."""

from __future__ import annotations

import numpy as np
import pytest

from tests.kernels.numerics import bf16, report
from tests.kernels.sim import Block, run_calls, until_at_least

CHECKS = ("q19/ring_collective",)
R, GRID, THREADS = 4, 2, 3
CHUNK = 2 * GRID * THREADS + 1  # not a multiple of the grid: some threads get one more


def fp32(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, np.float32)


class Ring:
    """Symmetric buffers and flags of R ranks; call 2k is a reduce-scatter, 2k+1 an all-gather."""

    def __init__(self, rounding, skip_start_wait: bool = False) -> None:  # type: ignore[no-untyped-def]
        self.round, self.skip_start_wait = rounding, skip_start_wait
        self.rng = np.random.default_rng(7)
        self.buf = [self.round(self.rng.standard_normal(R * CHUNK)) for _ in range(R)]
        self.flags = [np.zeros((GRID, R + 1), np.int64) for _ in range(R)]
        self.calls = [np.zeros(GRID, np.int64) for _ in range(R)]
        self.inputs = [[b.copy() for b in self.buf]]
        self.after: list[list[np.ndarray]] = []

    def block(self, rank: int, b: int, call: int) -> Block:
        reduce = call % 2 == 0
        self.calls[rank][b] += 1
        epoch = self.calls[rank][b]
        left, right = (rank - 1) % R, (rank + 1) % R
        mine, theirs = self.buf[rank], self.buf[left]
        me = self.flags[rank]
        self.flags[right][b, 0] = epoch  # signal(flags[right], 0): my input is in place
        for s in range(R - 1):
            c = (rank - s - (2 if reduce else 1)) % R
            if not (self.skip_start_wait and s == 0):
                yield until_at_least(me, (b, s), epoch)  # wait(flags[rank], s)
            off = c * CHUNK
            for t in range(THREADS):
                for i in range(b * THREADS + t, CHUNK, GRID * THREADS):
                    if reduce:  # each hop rounds its partial sum
                        mine[off + i] = self.round(np.float32(mine[off + i]) + theirs[off + i])
                    else:
                        mine[off + i] = theirs[off + i]
                    yield None
            self.flags[right][b, s + 1] = epoch  # right may read chunk c
        self.flags[left][b, R] = epoch  # I am done reading left's buffer
        yield until_at_least(me, (b, R), epoch)

    def between(self, rank: int, call: int) -> None:
        """After an all-gather: read the result, write the next call's gradient in place."""
        if call % 2 == 0:
            return  # the all-gather follows on the same buffer
        while len(self.after) <= call // 2:
            self.after.append([])
            self.inputs.append([self.round(self.rng.standard_normal(R * CHUNK)) for _ in range(R)])
        self.after[call // 2].append(self.buf[rank].copy())
        self.buf[rank][:] = self.inputs[call // 2 + 1][rank]

    def expected(self, k: int) -> np.ndarray:
        """Chunk c is summed along the ring, starting at rank c+1 and ending at rank c."""
        out = np.empty(R * CHUNK, np.float32)
        for c in range(R):
            part = slice(c * CHUNK, (c + 1) * CHUNK)
            acc = self.inputs[k][(c + 1) % R][part]
            for hop in range(2, R + 1):
                acc = self.round(self.inputs[k][(c + hop) % R][part] + acc)
            out[part] = acc
        return out


@pytest.mark.parametrize("rounding", [fp32, bf16], ids=["fp32", "bf16"])
def test_reduce_scatter_then_all_gather_is_an_all_reduce_on_every_rank(rounding) -> None:  # type: ignore[no-untyped-def]
    for seed in range(6):
        ring = Ring(rounding)
        run_calls(R, GRID, 4, ring.block, ring.between, seed)  # two all-reduces
        for k in range(2):
            want = ring.expected(k)
            assert all(np.array_equal(got, want) for got in ring.after[k])
    exact = np.sum(np.stack(ring.inputs[0]).astype(np.float64), 0)
    error = float(np.abs(ring.after[0][0] - exact).max())
    report(
        f"q19 ring RS+AG {rounding.__name__} vs fp64 sum", error, 3e-2 if rounding is bf16 else 1e-5
    )


def test_without_waiting_for_the_left_input_a_rank_reads_the_previous_gradient() -> None:
    wrong = 0
    for seed in range(12):
        ring = Ring(fp32, skip_start_wait=True)
        run_calls(R, GRID, 4, ring.block, ring.between, seed)
        wrong += any(
            not np.array_equal(got, ring.expected(k)) for k in range(2) for got in ring.after[k]
        )
    assert wrong > 0
