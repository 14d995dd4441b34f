"""The answers' Triton kernels on a real GPU: checked against torch at realistic sizes, timed.

Run by ``tools/kernels-on-gpu`` (needs CUDA, torch and triton; not part of the test suite,
which runs the same kernels in Triton's CPU interpreter on small shapes).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import torch
import triton.testing  # type: ignore[import-untyped]

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.kernels.blocks import kernel_blocks
from tools.kernels.gpu import BUILD

FAILED: list[str] = []


def load(name: str) -> ModuleType:
    block = next(b for b in kernel_blocks() if b.name == name)
    BUILD.mkdir(parents=True, exist_ok=True)
    path = BUILD / f"{block.file_stem}.py"
    path.write_text(block.code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(block.file_stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(
    name: str, got: torch.Tensor, want: torch.Tensor, bound: float, run: Callable[[], object]
) -> None:
    error = (got.float() - want.float()).abs().max().item()
    micros = triton.testing.do_bench(run) * 1000
    ok = error <= bound
    verdict = "ok" if ok else "FAILED"
    print(
        f"{name:<48} max |error| = {error:<10.3g} bound {bound:<8.3g} {micros:9.1f} us  {verdict}"
    )
    if not ok:
        FAILED.append(name)


def attention() -> None:
    fa, merge = load("q08/flash_attn_fwd_kernel"), load("q08/merge_attn_states_kernel")
    q, k, v = (torch.randn(16, 4099, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    o, _ = fa.flash_attn_fwd(q, k, v)
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    check(
        "q08 flash_attn_fwd bf16 (16 x 4099 x 128)",
        o,
        want,
        2e-2,
        lambda: fa.flash_attn_fwd(q, k, v),
    )
    half = 2048  # two ring steps for the second half of the queries, merged by LSE
    q2 = q[:, half:].contiguous()
    acc, acc_lse = fa.flash_attn_fwd(
        q2, k[:, :half].contiguous(), v[:, :half].contiguous(), half, 0
    )
    ob, lb = fa.flash_attn_fwd(q2, k[:, half:].contiguous(), v[:, half:].contiguous(), half, half)
    acc, acc_lse = acc.reshape(-1, 128), acc_lse.reshape(-1)
    merge.merge_attn_states_(acc, acc_lse, ob.reshape(-1, 128), lb.reshape(-1))
    check(
        "q08 ring merge bf16",
        acc.reshape(16, -1, 128),
        want[:, half:],
        2e-2,
        lambda: merge.merge_attn_states_(acc, acc_lse, ob.reshape(-1, 128), lb.reshape(-1)),
    )


def moe() -> None:
    dispatch, combine = load("q10/moe_permute_fp8"), load("q10/moe_unpermute_combine")
    x = torch.randn(4096, 7168, device="cuda", dtype=torch.bfloat16)
    topk = torch.rand(4096, 256, device="cuda").topk(8, dim=1).indices
    w = torch.softmax(torch.randn(4096, 8, device="cuda"), 1)
    q, scale, row, _ = dispatch.permute_fp8(x, topk, 256)
    restored = (q.float().view(-1, 56, 128) * scale[..., None]).view(-1, 7168)
    order = torch.argsort(topk.flatten(), stable=True)
    check(
        "q10 permute_fp8 (4096 x 7168, top-8), dequant",
        restored,
        x.float()[order // 8],
        0.07 * x.float().abs().max().item(),
        lambda: dispatch.permute_fp8(x, topk, 256),
    )
    y = restored.to(torch.bfloat16)
    out = combine.combine(y, row, w)
    check(
        "q10 unpermute_combine",
        out,
        (w[..., None] * y.float()[row.long()]).sum(1),
        5e-2,
        lambda: combine.combine(y, row, w),
    )


def memory_bound() -> None:
    norm, ce = load("q29/_add_rmsnorm_fwd"), load("q31/cross_entropy_fwd_bwd")
    x, r = (torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    w = torch.randn(8192, device="cuda", dtype=torch.bfloat16)
    y, _, _ = norm.add_rmsnorm(x, r, w)
    h = (x + r).float()
    want = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()
    check("q29 add_rmsnorm bf16 (8192 x 8192)", y, want, 0.15, lambda: norm.add_rmsnorm(x, r, w))
    logits = torch.randn(4096, 128256, device="cuda", dtype=torch.bfloat16)
    target = torch.randint(0, 128256, (4096,), device="cuda")
    want_loss = torch.nn.functional.cross_entropy(logits.float(), target)
    buffer = logits.clone()
    loss, _ = ce.cross_entropy_(buffer, target)
    check(
        "q31 cross_entropy bf16 (4096 x 128256)",
        loss,
        want_loss,
        1e-3,
        lambda: ce.cross_entropy_(logits.clone(), target),
    )


if __name__ == "__main__":
    attention()
    moe()
    memory_bound()
    print("triton: failed " + ", ".join(FAILED) if FAILED else "triton: all passed")
    sys.exit(1 if FAILED else 0)
