"""q31: the fused softmax cross-entropy (forward, LSE and in-place gradient), in Triton."""

from __future__ import annotations

import pytest

from tests.kernels.numerics import DTYPE_NAME, max_error, report, torch
from tests.kernels.toolchain import triton_module

CHECKS = ("q31/cross_entropy_fwd_bwd",)
T, V = 19, 1000  # vocab 1000 in chunks of 256: four chunks, the last one partial


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_fused_cross_entropy_matches_torch_loss_gradient_and_lse(dtype) -> None:  # type: ignore[no-untyped-def]
    ce = triton_module("q31/cross_entropy_fwd_bwd")
    gen = torch.Generator().manual_seed(0)
    logits = (torch.randn(T, V, generator=gen) * 3).to(dtype)
    target = torch.randint(0, V, (T,), generator=gen)
    target[[2, 7]] = -100  # prompt / padding tokens
    wide = logits.float().clone().requires_grad_()
    want = torch.nn.functional.cross_entropy(wide, target, ignore_index=-100)
    want.backward()
    assert wide.grad is not None
    buffer = logits.clone()
    loss, lse = ce.cross_entropy_(buffer, target, block_v=256)
    name = DTYPE_NAME[dtype]
    report(f"q31 cross_entropy {name} loss", max_error(loss, want.detach()), 1e-5)
    report(
        f"q31 cross_entropy {name} lse", max_error(lse, torch.logsumexp(logits.float(), 1)), 1e-5
    )
    # the gradient is stored in the logits' dtype: bf16 keeps ~3 significant digits
    bound = 1e-7 if dtype == torch.float32 else 2.0**-7 * float(wide.grad.abs().max())
    report(f"q31 cross_entropy {name} grad", max_error(buffer, wide.grad), bound)
    assert torch.equal(buffer[2].float(), torch.zeros(V))  # an ignored token: no gradient
    logprob = logits.float()[torch.arange(T), target.clamp(min=0)] - lse
    assert torch.allclose(loss * (T - 2), -logprob[target != -100].sum(), rtol=1e-5)
