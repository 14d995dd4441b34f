"""q29: the fused add+RMSNorm (Triton), bias+GeLU, RMSNorm fp32/bf16 and fused AdamW (CUDA)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.kernels.numerics import DTYPE_NAME, bf16, max_error, report, torch
from tests.kernels.ports import block_sum, grid_stride
from tests.kernels.toolchain import triton_module

CHECKS = ("q29/_add_rmsnorm_fwd", "q29/bias_gelu_f4", "q29/fused_adamw")
EPS = 1e-6


def rms_reference(h: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = torch.from_numpy(np.asarray(h, np.float64))
    rstd = torch.rsqrt(x.pow(2).mean(-1) + EPS)
    return (x * rstd[:, None] * torch.from_numpy(np.asarray(w, np.float64))).numpy(), rstd.numpy()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_triton_add_rmsnorm_matches_add_then_rmsnorm(dtype) -> None:  # type: ignore[no-untyped-def]
    kernel = triton_module("q29/_add_rmsnorm_fwd")
    gen = torch.Generator().manual_seed(0)
    x, r = (torch.randn(7, 300, generator=gen).to(dtype) for _ in range(2))  # 300 < BLOCK 512
    w = (1 + 0.1 * torch.randn(300, generator=gen)).to(dtype)
    y, h, rstd = kernel.add_rmsnorm(x, r, w, eps=EPS)
    want_h = x.float() + r.float()
    # bf16: the interpreter truncates stores where the GPU rounds, so h may be one ulp
    # (2^-7 relative) off; y and rstd are then checked against the kernel's own h.
    rel = float(((h.float() - want_h).abs() / want_h.abs().clamp(min=1e-30)).max())
    report(
        f"q29 add_rmsnorm {DTYPE_NAME[dtype]} h (relative)",
        rel,
        0.0 if dtype == torch.float32 else 2.0**-7,
    )
    want_y, want_rstd = rms_reference(h.float().numpy(), w.float().numpy())
    bound = 1e-5 if dtype == torch.float32 else 2.0**-7 * 4
    report(f"q29 add_rmsnorm {DTYPE_NAME[dtype]} y", max_error(y, want_y), bound)
    report(f"q29 add_rmsnorm {DTYPE_NAME[dtype]} rstd", max_error(rstd, want_rstd), 1e-5)


def gelu_tanh(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float32)
    k0, k1 = np.float32(0.7978845608028654), np.float32(0.044715)
    return np.float32(0.5) * v * (np.float32(1) + np.tanh(k0 * (v + k1 * v * v * v)))


def test_bias_gelu_f4_visits_every_float4_once_and_is_tanh_gelu() -> None:
    rows, n, grid, threads = 5, 36, 3, 4  # n_vec = 45 float4s: grid-stride covers 12 per pass
    rng = np.random.default_rng(1)
    x = rng.standard_normal((rows, n)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    y = np.full(rows * n, np.nan, np.float32)
    n_vec, per_row = rows * n // 4, n // 4
    visits = np.zeros(n_vec, int)
    for block in range(grid):
        for indices in grid_stride(block, threads, grid, n_vec):
            for i in indices:
                v = x.reshape(-1)[4 * i : 4 * i + 4] + b[4 * (i % per_row) : 4 * (i % per_row) + 4]
                y[4 * i : 4 * i + 4] = gelu_tanh(v)
                visits[i] += 1
    assert (visits == 1).all()
    want = torch.nn.functional.gelu(torch.from_numpy(x + b).double(), approximate="tanh")
    report("q29 bias_gelu_f4 fp32", max_error(y.reshape(rows, n), want), 1e-6)


@pytest.mark.parametrize("bf16_rows", [False, True], ids=["fp32", "bf16"])
def test_rmsnorm_block_reduction_matches_rmsnorm(bf16_rows: bool) -> None:
    """rmsnorm_fwd (one float per step) and rmsnorm_fwd_bf16 (8 per uint4), 64 threads per row."""
    rows, n, threads = 3, 8 * 100, 64
    rng = np.random.default_rng(2)
    x = rng.standard_normal((rows, n)).astype(np.float32)
    w = (1 + 0.1 * rng.standard_normal(n)).astype(np.float32)
    if bf16_rows:
        x, w = bf16(x), bf16(w)
    y = np.zeros_like(x)
    rstds = np.zeros(rows, np.float32)
    step = 8 if bf16_rows else 1
    for row in range(rows):
        ss = np.zeros(threads, np.float32)
        for t in range(threads):
            for i in range(t, n // step, threads):
                part = x[row, step * i : step * i + step]
                if bf16_rows:  # ss += f.x * f.x + f.y * f.y, pair by pair
                    for a, c in part.reshape(4, 2):
                        ss[t] = np.float32(ss[t] + np.float32(a * a + c * c))
                else:
                    ss[t] = np.float32(ss[t] + part[0] * part[0])
        rstd = np.float32(1 / np.sqrt(np.float32(block_sum(ss) / np.float32(n)) + np.float32(EPS)))
        rstds[row] = rstd
        y[row] = x[row] * rstd * w
    if bf16_rows:
        y = bf16(y)
    want_y, want_rstd = rms_reference(x, w)
    name = "bf16" if bf16_rows else "fp32"
    report(f"q29 rmsnorm_fwd {name} y", max_error(y, want_y), 2.0**-8 * 4 if bf16_rows else 2e-6)
    report(f"q29 rmsnorm_fwd {name} rstd", max_error(rstds, want_rstd), 1e-6)


def adamw_port(p, m, v, g, lr, b1, b2, eps, wd, step, grid, threads):  # type: ignore[no-untyped-def]
    """fused_adamw: float4 main loop + scalar tail, fp32 math in the kernel's order."""
    f = np.float32
    step_size = f(lr / (1 - f(b1) ** step))
    inv_sqrt_bc2 = f(1 / np.sqrt(f(1 - f(b2) ** step)))
    decay = f(1 - f(lr) * f(wd))
    n, touched = p.size, np.zeros(p.size, int)
    p_bf16 = np.full(n, np.nan, np.float32)

    def update(idx: slice) -> None:
        p[idx] = p[idx] * decay
        m[idx] = f(b1) * m[idx] + f(1 - f(b1)) * g[idx]
        v[idx] = f(b2) * v[idx] + f(1 - f(b2)) * g[idx] * g[idx]
        p[idx] = p[idx] - step_size * m[idx] / (np.sqrt(v[idx]) * inv_sqrt_bc2 + f(eps))
        p_bf16[idx] = bf16(p[idx])
        touched[idx] += 1

    n4 = n // 4
    for block in range(grid):
        for indices in grid_stride(block, threads, grid, n4):
            for i in indices:
                update(slice(4 * i, 4 * i + 4))
        for t in range(threads):  # the n % 4 tail, one element per thread
            for i in range(4 * n4 + block * threads + t, n, grid * threads):
                update(slice(i, i + 1))
    return p_bf16, touched


@pytest.mark.parametrize("grad_bf16", [False, True], ids=["fp32-grad", "bf16-grad"])
def test_fused_adamw_matches_torch_adamw_and_updates_every_element_once(grad_bf16: bool) -> None:
    grid, threads = 3, 8
    n = 4 * grid * threads * 2 + 3  # two grid-stride passes and a tail of 3
    rng = np.random.default_rng(4)
    p = rng.standard_normal(n).astype(np.float32)
    m, v = np.zeros(n, np.float32), np.zeros(n, np.float32)
    param = torch.nn.Parameter(torch.from_numpy(p.copy()))
    opt = torch.optim.AdamW(
        [param], lr=1e-2, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1, foreach=False
    )
    for step in range(1, 4):
        g = rng.standard_normal(n).astype(np.float32)
        if grad_bf16:
            g = bf16(g)
        p_bf16, touched = adamw_port(p, m, v, g, 1e-2, 0.9, 0.95, 1e-8, 0.1, step, grid, threads)
        assert (touched == 1).all()
        param.grad = torch.from_numpy(g.copy())
        opt.step()
    name = "bf16" if grad_bf16 else "fp32"
    report(f"q29 fused_adamw {name} grads, p after 3 steps", max_error(p, param.detach()), 1e-6)
    assert np.array_equal(p_bf16, bf16(p))
