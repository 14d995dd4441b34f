"""q11: the GEMM + reduce-scatter ring with the push in the epilogue, ported tile by tile."""

from __future__ import annotations

import numpy as np

from tests.kernels.numerics import bf16, report
from tests.kernels.sim import Block, run_calls, until_at_least

CHECKS = ("q11/gemm_rs_step",)
R, MC, N, K, CALLS = 3, 37, 40, 50, 3  # chunk rows, cols, depth: none a multiple of 32
BM = BN = BK = 32
TILES_X, TILES_Y = -(-N // BN), -(-MC // BM)
TILES = TILES_X * TILES_Y


class GemmReduceScatter:
    def __init__(self, flow_control: bool = True) -> None:
        self.flow_control = flow_control
        self.rng = np.random.default_rng(11)
        self.inputs = [self.fresh()]
        self.a = [x.copy() for x in self.inputs[0]]
        self.b = [bf16(self.rng.standard_normal((K, N)) / 4) for _ in range(R)]
        self.recv = [np.zeros((R - 1, MC, N), np.float32) for _ in range(R)]
        self.ready = [np.zeros((R - 1, TILES), np.int64) for _ in range(R)]
        self.ack = [np.zeros((R - 1, TILES), np.int64) for _ in range(R)]
        self.epoch = [1] * R  # next_epoch ran once before the first call
        self.out = [np.zeros((MC, N), np.float32) for _ in range(R)]
        self.results: list[dict[int, np.ndarray]] = [{} for _ in range(CALLS)]

    def fresh(self) -> list[np.ndarray]:
        return [bf16(self.rng.standard_normal((R * MC, K))) for _ in range(R)]

    def block(self, rank: int, tile: int, launch: int) -> Block:
        step, epoch = launch % R, self.epoch[rank]
        left, right = (rank - 1) % R, (rank + 1) % R
        c = (rank - step - 1) % R
        by, bx = divmod(tile, TILES_X)
        rows = np.arange(by * BM, by * BM + BM)
        cols = np.arange(bx * BN, bx * BN + BN)
        in_rows, in_cols = rows < MC, cols < N
        acc = np.zeros((BM, BN), np.float32)
        for k0 in range(0, K, BK):  # smem tiles, zero outside the matrix
            ks = np.arange(k0, k0 + BK)
            a_tile = np.zeros((BM, BK), np.float32)
            b_tile = np.zeros((BK, BN), np.float32)
            a_tile[np.ix_(in_rows, ks < K)] = self.a[rank][c * MC + rows[in_rows]][:, ks[ks < K]]
            b_tile[np.ix_(ks < K, in_cols)] = self.b[rank][ks[ks < K]][:, cols[in_cols]]
            for k in range(BK):
                acc += np.outer(a_tile[:, k], b_tile[k])
        valid = np.ix_(in_rows, in_cols)
        if step > 0:
            yield until_at_least(self.ready[rank], (step - 1, tile), epoch)
            acc[valid] += self.recv[rank][step - 1][np.ix_(rows[in_rows], cols[in_cols])]
            self.ack[left][step - 1, tile] = epoch  # the slot is free again
        if step == R - 1:
            self.out[rank][np.ix_(rows[in_rows], cols[in_cols])] = bf16(acc[valid])
            return
        if self.flow_control:
            yield until_at_least(self.ack[rank], (step, tile), epoch - 1)
        yield None  # the NVLink stores below may interleave with the peer
        self.recv[right][step][np.ix_(rows[in_rows], cols[in_cols])] = bf16(acc[valid])
        self.ready[right][step, tile] = epoch

    def between(self, rank: int, launch: int) -> None:
        if launch % R != R - 1:
            return  # the next step of the same call
        call = launch // R
        self.results[call][rank] = self.out[rank].copy()
        if len(self.inputs) == call + 1:
            self.inputs.append(self.fresh())
        self.a[rank][:] = self.inputs[call + 1][rank]
        self.epoch[rank] += 1  # next_epoch<<<1, 1>>> before the next call's steps

    def exact(self, call: int, rank: int) -> np.ndarray:
        total = sum(self.inputs[call][r].astype(np.float64) @ self.b[r] for r in range(R))
        return total[rank * MC : (rank + 1) * MC]


def test_each_rank_ends_with_its_reduced_row_chunk_in_every_call() -> None:
    error, scale = 0.0, 0.0
    for seed in range(4):
        op = GemmReduceScatter()
        run_calls(R, TILES, CALLS * R, op.block, op.between, seed)
        for call in range(CALLS):
            for rank in range(R):
                want = op.exact(call, rank)
                error = max(error, float(np.abs(op.results[call][rank] - want).max()))
                scale = max(scale, float(np.abs(want).max()))
    # bf16 partials: one rounding per hop and one at the end, each <= 2^-9 relative
    report("q11 gemm_rs_step bf16 out", error, R * 2.0**-8 * scale)


def test_without_the_ack_a_sender_a_call_ahead_overwrites_an_unread_slot() -> None:
    wrong = 0
    for seed in range(12):
        op = GemmReduceScatter(flow_control=False)
        run_calls(R, TILES, CALLS * R, op.block, op.between, seed)
        good = GemmReduceScatter()
        run_calls(R, TILES, CALLS * R, good.block, good.between, seed)
        wrong += any(
            not np.array_equal(op.results[call][rank], good.results[call][rank])
            for call in range(CALLS)
            for rank in range(R)
        )
    assert wrong > 0
