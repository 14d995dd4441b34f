"""q10: the MoE dispatch (permute + per-128 FP8 quantization) and combine kernels, in Triton."""

from __future__ import annotations

import pytest

from tests.kernels.numerics import DTYPE_NAME, max_error, report, torch
from tests.kernels.toolchain import triton_module

CHECKS = ("q10/moe_permute_fp8", "q10/moe_unpermute_combine")
T, K, H, E = 37, 3, 300, 6  # hidden 300: groups of 128, 128 and a partial 44
E4M3_MAX = 448.0


def routing(dtype):  # type: ignore[no-untyped-def]
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(T, H, generator=gen) * torch.rand(T, 1, generator=gen) * 5
    topk = torch.stack([torch.randperm(E, generator=gen)[:K] for _ in range(T)])
    weights = torch.rand(T, K, generator=gen)
    return x.to(dtype), topk, weights / weights.sum(1, keepdim=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_dispatch_rows_are_expert_major_and_fp8_with_one_scale_per_128(dtype) -> None:  # type: ignore[no-untyped-def]
    kernels = triton_module("q10/moe_permute_fp8")
    x, topk, _ = routing(dtype)
    q, scale, row, counts = kernels.permute_fp8(x, topk, E)
    order = torch.argsort(topk.flatten(), stable=True)
    source = x.float()[order // K]  # the row each dispatch row must hold
    assert torch.equal(counts, torch.bincount(topk.flatten(), minlength=E))
    assert torch.equal(row.flatten()[order], torch.arange(T * K, dtype=torch.int32))
    groups = torch.nn.functional.pad(source, (0, 3 * 128 - H)).view(T * K, 3, 128)
    want_scale = groups.abs().amax(-1) / E4M3_MAX
    report(f"q10 permute_fp8 {DTYPE_NAME[dtype]} scale", max_error(scale, want_scale), 0.0)
    scaled = (groups / want_scale[..., None]).view(T * K, -1)[:, :H]
    want_q = scaled.to(torch.float8_e4m3fn).float()  # round to nearest, as cvt.rn does
    report(f"q10 permute_fp8 {DTYPE_NAME[dtype]} e4m3 codes", max_error(q.float(), want_q), 0.0)
    restored = q.float() * scale.repeat_interleave(128, 1)[:, :H]
    # e4m3 keeps 3 mantissa bits: half an ulp is 2^-4 relative; subnormals 2^-10 * scale
    slack = torch.maximum(source.abs() * 2.0**-4, scale.repeat_interleave(128, 1)[:, :H] * 2.0**-10)
    assert ((restored - source).abs() <= slack).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_combine_gathers_each_slot_by_the_row_table_and_weights_it(dtype) -> None:  # type: ignore[no-untyped-def]
    combine = triton_module("q10/moe_unpermute_combine")
    gen = torch.Generator().manual_seed(1)
    _, topk, weights = routing(dtype)
    y = torch.randn(T * K, H, generator=gen).to(dtype)  # expert outputs, permuted order
    order = torch.argsort(topk.flatten(), stable=True)
    row = torch.empty(T * K, dtype=torch.int32)
    row[order] = torch.arange(T * K, dtype=torch.int32)
    row = row.view(T, K).clone()
    row[0, 1] = -1  # a dropped (token, slot): contributes nothing
    row[5, :] = -1  # a token whose every slot was dropped: output 0 (residual only)
    out = combine.combine(y, row, weights, BLOCK_H=128)  # 3 blocks of hidden, one partial
    gathered = torch.where(row[..., None] >= 0, y.float()[row.clamp(min=0).long()], 0.0)
    want = (weights[..., None] * gathered).sum(1)
    bound = 0.0 if dtype == torch.float32 else 2.0**-7 * float(want.abs().max())
    report(f"q10 unpermute_combine {DTYPE_NAME[dtype]}", max_error(out, want), bound + 1e-6)
    assert torch.equal(out[5].float(), torch.zeros(H))


def test_dispatch_then_combine_restores_each_token_within_fp8_error() -> None:
    """Identity experts: dequantize the dispatch buffer, combine it back with weights summing to 1."""
    dispatch = triton_module("q10/moe_permute_fp8")
    combine = triton_module("q10/moe_unpermute_combine")
    x, topk, weights = routing(torch.bfloat16)
    q, scale, row, _ = dispatch.permute_fp8(x, topk, E)
    expert_out = (q.float() * scale.repeat_interleave(128, 1)[:, :H]).contiguous()
    out = combine.combine(expert_out, row, weights, BLOCK_H=128)
    rel = ((out - x.float()).abs() / x.float().abs().clamp(min=1e-2)).max()
    report("q10 dispatch+combine roundtrip (relative)", float(rel), 2.0**-4 * 1.01)
