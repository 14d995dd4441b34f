"""q25: the NVSHMEM one-shot all-reduce, ported block by block and run on simulated PEs."""

from __future__ import annotations

import numpy as np
import pytest

from tests.kernels.numerics import bf16, report
from tests.kernels.sim import Block, run_calls, until_at_least

CHECKS = ("q25/one_shot_allreduce",)
NPES, GRID, THREADS, CALLS = 4, 3, 4, 3


class OneShot:
    """The kernel's state on every PE: symmetric buf and sig, local out."""

    def __init__(self, n: int, kvec: int, rounding, end_barrier: bool = True) -> None:  # type: ignore[no-untyped-def]
        self.n, self.kvec, self.round, self.end_barrier = n, kvec, rounding, end_barrier
        self.rng = np.random.default_rng(n)
        self.buf = [self.round(self.rng.standard_normal(n)) for _ in range(NPES)]
        self.sig = [np.zeros((GRID, 2 * NPES + 1), np.uint64) for _ in range(NPES)]
        self.out = [np.full(n, np.nan, np.float32) for _ in range(NPES)]
        self.inputs = [[b.copy() for b in self.buf]]  # what each call reduces
        self.results: list[list[np.ndarray]] = [[] for _ in range(CALLS)]

    def block(self, me: int, b: int, call: int) -> Block:
        start, done, calls = slice(0, NPES), slice(NPES, 2 * NPES), 2 * NPES
        self.sig[me][b, calls] += 1  # epoch = ++*calls: in device memory
        epoch = self.sig[me][b, calls]
        for peer in range(NPES):  # threads 0..NPES-1: signal_op SET on peer
            self.sig[peer][b, start.start + me] = epoch
        for peer in range(NPES):
            yield until_at_least(self.sig[me], (b, start.start + peer), epoch)
        n_vec, stride = self.n // self.kvec, GRID * THREADS
        for t in range(THREADS):
            tid = b * THREADS + t
            for i in range(tid, n_vec, stride):  # 16-byte vectors
                acc = np.zeros(self.kvec, np.float32)
                for p in range(NPES):  # nvshmem_ptr(buf, p): a live remote load
                    acc += self.buf[p][i * self.kvec : (i + 1) * self.kvec]
                    yield None
                self.out[me][i * self.kvec : (i + 1) * self.kvec] = self.round(acc)
            for i in range(n_vec * self.kvec + tid, self.n, stride):  # the tail
                acc1 = np.float32(0)
                for p in range(NPES):
                    acc1 += self.buf[p][i]
                    yield None
                self.out[me][i] = self.round(acc1)
        if self.end_barrier:
            for peer in range(NPES):
                self.sig[peer][b, done.start + me] = epoch
            for peer in range(NPES):
                yield until_at_least(self.sig[me], (b, done.start + peer), epoch)

    def between(self, pe: int, call: int) -> None:
        """The next layer on this PE: read the result, write the next input into buf."""
        self.results[call].append(self.out[pe].copy())
        self.out[pe][:] = np.nan
        if len(self.inputs) == call + 1:
            self.inputs.append([self.round(self.rng.standard_normal(self.n)) for _ in range(NPES)])
        self.buf[pe][:] = self.inputs[call + 1][pe]

    def expected(self, call: int) -> np.ndarray:
        acc = np.zeros(self.n, np.float32)
        for p in range(NPES):  # fp32, PE order 0..NPES-1, then rounded once
            acc += self.inputs[call][p]
        return self.round(acc)


def fp32(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, np.float32)


@pytest.mark.parametrize(("rounding", "kvec"), [(fp32, 4), (bf16, 8)], ids=["fp32", "bf16"])
def test_every_pe_gets_the_same_sum_in_every_call_including_the_tail(rounding, kvec) -> None:  # type: ignore[no-untyped-def]
    for seed in range(6):
        state = OneShot(n=8 * GRID * THREADS + 5, kvec=kvec, rounding=rounding)  # n % kvec != 0
        run_calls(NPES, GRID, CALLS, state.block, state.between, seed)
        for call in range(CALLS):
            want = state.expected(call)
            for got in state.results[call]:
                assert np.array_equal(got, want)  # bitwise, and so across PEs
    exact = np.sum(np.stack(state.inputs[0]).astype(np.float64), 0)
    error = float(np.abs(state.results[0][0] - exact).max())
    report(
        f"q25 one_shot_allreduce {rounding.__name__} vs fp64 sum",
        error,
        2e-2 if kvec == 8 else 1e-5,
    )


def test_without_the_end_barrier_a_fast_pe_overwrites_what_a_peer_still_reads() -> None:
    wrong = 0
    for seed in range(12):
        state = OneShot(n=8 * GRID * THREADS + 5, kvec=4, rounding=fp32, end_barrier=False)
        run_calls(NPES, GRID, CALLS, state.block, state.between, seed)
        wrong += any(
            not np.array_equal(got, state.expected(call))
            for call in range(CALLS)
            for got in state.results[call]
        )
    assert wrong > 0
