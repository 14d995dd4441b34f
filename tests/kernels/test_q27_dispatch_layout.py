"""q27: DeepEP-style dispatch layout kernel, ported thread by thread against a numpy reference."""

from __future__ import annotations

import numpy as np

from tests.kernels.numerics import report

CHECKS = ("q27/dispatch_layout",)
T, K, E, P, G, THREADS = 70, 8, 64, 16, 4, 32  # 3 blocks of 32 tokens, the last one partial


def dispatch_layout_port(topk: np.ndarray) -> tuple[np.ndarray, ...]:
    """The kernel: per-block shared counters, one thread per token, atomicAdd per non-zero bin."""
    per_expert = np.zeros(E, np.int64)
    per_rank = np.zeros(P, np.int64)
    per_node = np.zeros(P // G, np.int64)
    in_rank = np.zeros((T, P), bool)  # zeroed before launch (cudaMemsetAsync)
    epr = E // P
    for block in range(-(-T // THREADS)):
        s_expert, s_rank, s_node = np.zeros(E, int), np.zeros(P, int), np.zeros(P, int)
        for tid in range(THREADS):
            t = block * THREADS + tid
            if t >= T:
                continue
            row = topk[t]
            for j in range(K):
                e = row[j]
                if e < 0:
                    continue
                s_expert[e] += 1
                r = e // epr
                new_rank = new_node = True
                for i in range(j):
                    if row[i] < 0:
                        continue
                    q = row[i] // epr
                    new_rank &= q != r
                    new_node &= q // G != r // G
                if new_rank:
                    in_rank[t, r] = True
                    s_rank[r] += 1
                if new_node:
                    s_node[r // G] += 1
        per_expert += s_expert  # atomicAdd of the non-zero bins
        per_rank += s_rank
        per_node += s_node[: P // G]
    return per_expert, per_rank, per_node, in_rank


def test_layout_counts_each_token_once_per_rank_and_once_per_node() -> None:
    rng = np.random.default_rng(0)
    topk = np.stack([rng.choice(E, K, replace=False) for _ in range(T)])
    topk[rng.random((T, K)) < 0.15] = -1  # masked slots
    per_expert, per_rank, per_node, in_rank = dispatch_layout_port(topk)
    valid = topk >= 0
    want_in_rank = np.zeros((T, P), bool)
    want_in_rank[np.nonzero(valid)[0], topk[valid] // (E // P)] = True
    assert np.array_equal(in_rank, want_in_rank)
    assert np.array_equal(per_expert, np.bincount(topk[valid], minlength=E))
    assert np.array_equal(per_rank, want_in_rank.sum(0))
    assert np.array_equal(per_node, want_in_rank.reshape(T, P // G, G).any(2).sum(0))
    report(
        "q27 dispatch_layout (integer counts: exact)",
        float(np.abs(per_rank - want_in_rank.sum(0)).max()),
        0.0,
    )
