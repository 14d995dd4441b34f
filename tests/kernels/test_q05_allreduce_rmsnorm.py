"""q05: the fused one-shot all-reduce + residual add + RMSNorm, ported on simulated ranks."""

from __future__ import annotations

import numpy as np

from tests.kernels.numerics import bf16, report, torch
from tests.kernels.ports import block_sum
from tests.kernels.sim import Block, run_calls, until_at_least

CHECKS = ("q05/allreduce_add_rmsnorm",)
R, GRID, THREADS, ROWS, H, CALLS, EPS = 4, 2, 64, 5, 8 * 70, 3, 1e-6


class FusedAllReduceNorm:
    def __init__(self, end_barrier: bool = True) -> None:
        self.end_barrier = end_barrier
        self.rng = np.random.default_rng(5)
        self.w = bf16(1 + 0.1 * self.rng.standard_normal(H))
        residual = bf16(self.rng.standard_normal((ROWS, H)))
        self.residual = [residual.copy() for _ in range(R)]  # identical on TP ranks
        self.partials = [self.fresh()]
        self.x = [p.copy() for p in self.partials[0]]
        self.y = [np.zeros((ROWS, H), np.float32) for _ in range(R)]
        self.flags = [np.zeros((GRID, 2, R), np.int64) for _ in range(R)]
        self.calls = [np.zeros(GRID, np.int64) for _ in range(R)]
        self.outputs: list[dict[int, tuple[np.ndarray, np.ndarray]]] = [{} for _ in range(CALLS)]

    def fresh(self) -> list[np.ndarray]:
        return [bf16(self.rng.standard_normal((ROWS, H))) for _ in range(R)]

    def barrier(self, rank: int, b: int, phase: int, epoch: int) -> Block:
        for peer in range(R):
            self.flags[peer][b, phase, rank] = epoch
        for peer in range(R):
            yield until_at_least(self.flags[rank], (b, phase, peer), epoch)

    def block(self, rank: int, b: int, call: int) -> Block:
        self.calls[rank][b] += 1
        epoch = int(self.calls[rank][b])
        yield from self.barrier(rank, b, 0, epoch)
        res, n_vec = self.residual[rank], H // 8
        for row in range(b, ROWS, GRID):
            ss = np.zeros(THREADS, np.float32)
            for t in range(THREADS):
                for i in range(t, n_vec, THREADS):
                    cols = slice(8 * i, 8 * i + 8)
                    acc = res[row, cols].astype(np.float32)
                    for p in range(R):  # same rank order everywhere
                        acc = acc + self.x[p][row, cols]
                        yield None
                    out = bf16(acc)
                    for value in out:  # ss += r * r, element by element
                        ss[t] = np.float32(ss[t] + np.float32(value * value))
                    res[row, cols] = out
            rstd = np.float32(
                1.0 / np.sqrt(np.float32(block_sum(ss) / np.float32(H)) + np.float32(EPS))
            )
            for t in range(THREADS):
                for i in range(t, n_vec, THREADS):
                    cols = slice(8 * i, 8 * i + 8)
                    self.y[rank][row, cols] = bf16(res[row, cols] * rstd * self.w[cols])
        if self.end_barrier:
            yield from self.barrier(rank, b, 1, epoch)

    def between(self, rank: int, call: int) -> None:
        self.outputs[call][rank] = (self.y[rank].copy(), self.residual[rank].copy())
        if len(self.partials) == call + 1:
            self.partials.append(self.fresh())
        self.x[rank][:] = self.partials[call + 1][rank]  # the next layer's GEMM output


def reference(
    residual: np.ndarray, partials: list[np.ndarray], w: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    acc = residual.astype(np.float32)
    for p in partials:
        acc = acc + p
    new_residual = bf16(acc)
    h = torch.from_numpy(new_residual).double()
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + EPS) * torch.from_numpy(w).double()
    return y.float().numpy(), new_residual


def test_every_rank_gets_the_same_residual_and_norm_as_unfused_allreduce_add_rmsnorm() -> None:
    error = 0.0
    for seed in range(4):
        fused = FusedAllReduceNorm()
        residual = fused.residual[0].copy()
        run_calls(R, GRID, CALLS, fused.block, fused.between, seed)
        for call in range(CALLS):
            want_y, want_residual = reference(residual, fused.partials[call], fused.w)
            ys = [fused.outputs[call][r][0] for r in range(R)]
            for y, new_residual in fused.outputs[call].values():
                assert np.array_equal(new_residual, want_residual)  # bitwise
                assert np.array_equal(y, ys[0])  # identical on every TP rank
                error = max(error, float(np.abs(y - want_y).max()))
            residual = want_residual
    report("q05 allreduce_add_rmsnorm bf16 y", error, 2.0**-7 * 4)  # |y| < 4, one bf16 rounding


def test_without_the_end_barrier_the_next_layer_overwrites_a_partial_being_read() -> None:
    wrong = 0
    for seed in range(10):
        fused = FusedAllReduceNorm(end_barrier=False)
        residual = fused.residual[0].copy()
        run_calls(R, GRID, CALLS, fused.block, fused.between, seed)
        for call in range(CALLS):
            _, want_residual = reference(residual, fused.partials[call], fused.w)
            wrong += any(
                not np.array_equal(r, want_residual) for _, r in fused.outputs[call].values()
            )
            residual = want_residual
    assert wrong > 0
