"""q20: the staggered pull all-to-all kernel, ported block by block on simulated ranks."""

from __future__ import annotations

import numpy as np

from tests.kernels.numerics import report
from tests.kernels.sim import Block, run_calls, until_at_least

CHECKS = ("q20/all_to_all",)
R, GRID, THREADS, WORDS, CALLS = 4, 2, 3, 7, 3  # 7 16-byte words per block


class AllToAll:
    def __init__(self, end_barrier: bool = True) -> None:
        self.end_barrier = end_barrier
        self.rng = np.random.default_rng(3)
        self.inputs = [self.fresh()]
        self.send = [s.copy() for s in self.inputs[0]]
        self.recv = [np.zeros((R, WORDS)) for _ in range(R)]
        self.flags = [np.zeros((GRID, 2, R), np.int64) for _ in range(R)]
        self.calls = [np.zeros(GRID, np.int64) for _ in range(R)]
        self.results: list[dict[int, np.ndarray]] = [{} for _ in range(CALLS)]
        self.sources: list[list[int]] = [[] for _ in range(R)]  # who rank r read, in order

    def fresh(self) -> list[np.ndarray]:
        return [self.rng.standard_normal((R, WORDS)) for _ in range(R)]

    def barrier(self, rank: int, b: int, phase: int, epoch: int) -> Block:
        for peer in range(R):  # threads 0..R-1: store on the peer, then wait on mine
            self.flags[peer][b, phase, rank] = epoch
        for peer in range(R):
            yield until_at_least(self.flags[rank], (b, phase, peer), epoch)

    def block(self, rank: int, b: int, call: int) -> Block:
        self.calls[rank][b] += 1
        epoch = int(self.calls[rank][b])
        yield from self.barrier(rank, b, 0, epoch)
        for k in range(R):
            src = (rank + k) % R
            if b == 0:
                self.sources[rank].append(src)
            for t in range(THREADS):
                for i in range(b * THREADS + t, WORDS, GRID * THREADS):
                    self.recv[rank][src, i] = self.send[src][rank, i]  # a remote load
                    yield None
        if self.end_barrier:
            yield from self.barrier(rank, b, 1, epoch)

    def between(self, rank: int, call: int) -> None:
        self.results[call][rank] = self.recv[rank].copy()
        if len(self.inputs) == call + 1:
            self.inputs.append(self.fresh())
        self.send[rank][:] = self.inputs[call + 1][rank]


def test_all_to_all_transposes_the_block_matrix_reading_peers_staggered() -> None:
    error = 0.0
    for seed in range(6):
        a2a = AllToAll()
        run_calls(R, GRID, CALLS, a2a.block, a2a.between, seed)
        for call in range(CALLS):
            block_matrix = np.stack(a2a.inputs[call])  # [src, dst, words]
            for rank, got in a2a.results[call].items():
                error = max(error, float(np.abs(got - block_matrix[:, rank]).max()))
        for rank in range(R):  # at step k rank r reads rank r+k: a permutation per step
            assert a2a.sources[rank][:R] == [(rank + k) % R for k in range(R)]
    report("q20 all_to_all (a copy: exact)", error, 0.0)


def test_without_the_end_barrier_a_send_buffer_is_reused_too_early() -> None:
    wrong = 0
    for seed in range(12):
        a2a = AllToAll(end_barrier=False)
        run_calls(R, GRID, CALLS, a2a.block, a2a.between, seed)
        for call in range(CALLS):
            block_matrix = np.stack(a2a.inputs[call])
            wrong += any(
                not np.array_equal(got, block_matrix[:, rank])
                for rank, got in a2a.results[call].items()
            )
    assert wrong > 0
