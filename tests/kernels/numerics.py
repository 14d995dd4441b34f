"""Rounding helpers and error reports shared by the kernel checks."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="the kernel checks need torch (pip install -e '.[kernels]')"
)


def bf16(values: np.ndarray) -> np.ndarray:
    """Round to bfloat16 as the GPU does (round to nearest even), kept as float32."""
    return torch.from_numpy(np.asarray(values, np.float32)).to(torch.bfloat16).float().numpy()


def max_error(got: object, want: object) -> float:
    """Max absolute difference, printed so that ``pytest -s`` shows each kernel's measured error."""
    a = got.detach().float().cpu().numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
    b = want.detach().float().cpu().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert not np.isnan(a).any(), "NaN in the kernel's output"
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max(initial=0.0))


DTYPE_NAME = {torch.float32: "fp32", torch.bfloat16: "bf16"}
MEASURED: list[tuple[str, float, float]] = []  # (what, max error, bound), for the summary


def report(name: str, error: float, bound: float) -> None:
    """Check ``error`` against ``bound`` and keep it for the summary that ``-ra`` runs print."""
    MEASURED.append((name, error, bound))
    assert error <= bound, f"{name}: max error {error:.3g} > {bound:.3g}"
