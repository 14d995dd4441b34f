"""Ports of device helpers that several CUDA blocks share, bit for bit where fp32 allows."""

from __future__ import annotations

import numpy as np


def block_sum(per_thread: np.ndarray) -> np.float32:
    """``block_sum`` of q05/q29: xor-shuffle within each warp of 32, then warp 0 sums the warps."""
    v = np.asarray(per_thread, np.float32).copy()
    assert v.size % 32 == 0, "blockDim.x is a multiple of 32"
    warps = v.reshape(-1, 32)
    for off in (16, 8, 4, 2, 1):
        warps = warps + warps[:, np.arange(32) ^ off]  # __shfl_xor_sync: all lanes at once
    part = np.zeros(32, np.float32)
    part[: warps.shape[0]] = warps[:, 0]  # lane 0 of each warp
    for off in (16, 8, 4, 2, 1):
        part = part + part[np.arange(32) ^ off]
    return np.float32(part[0])


def grid_stride(block: int, threads: int, grid: int, count: int) -> list[list[int]]:
    """Indices each thread of ``block`` visits in ``for (i = tid; i < count; i += stride)``."""
    stride = grid * threads
    return [list(range(block * threads + t, count, stride)) for t in range(threads)]
