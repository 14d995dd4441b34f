"""q08: the FlashAttention-style causal forward and the ring step's LSE merge, in Triton."""

from __future__ import annotations

import itertools

import pytest

from tests.kernels.numerics import DTYPE_NAME, max_error, report, torch
from tests.kernels.toolchain import triton_module

CHECKS = ("q08/merge_attn_states_kernel", "q08/flash_attn_fwd_kernel")
# The interpreter rounds fp32 -> bf16 by truncation where the GPU rounds to nearest, so bf16
# results are compared with a few bf16 ulps of slack (values here are O(1)).
BOUND = {torch.float32: 2e-5, torch.bfloat16: 4e-2}


def reference(q, k, v, q_start: int, k_start: int):  # type: ignore[no-untyped-def]
    """Causal softmax attention by global positions, in float64; rows with no key give 0."""
    scores = q.double() @ k.double().transpose(1, 2) * q.shape[-1] ** -0.5
    q_pos = torch.arange(q.shape[1]) + q_start
    k_pos = torch.arange(k.shape[1]) + k_start
    scores = scores.masked_fill(k_pos[None, :] > q_pos[:, None], float("-inf"))
    lse = torch.logsumexp(scores, -1)
    weights = torch.exp(scores - lse[..., None]).nan_to_num(0.0)
    return weights @ v.double(), lse


def qkv(dtype, heads: int = 3, length: int = 97, dim: int = 40):  # type: ignore[no-untyped-def]
    gen = torch.Generator().manual_seed(0)
    return [torch.randn(heads, length, dim, generator=gen).to(dtype) for _ in range(3)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_flash_attention_is_causal_softmax_attention_with_its_lse(dtype) -> None:  # type: ignore[no-untyped-def]
    fa = triton_module("q08/flash_attn_fwd_kernel")
    q, k, v = qkv(dtype)  # 97 tokens: 4 tiles of 32, the last one partial; head_dim 40 < 64
    o, lse = fa.flash_attn_fwd(q, k, v, block_m=32, block_n=32)
    want_o, want_lse = reference(q, k, v, 0, 0)
    report(f"q08 flash_attn_fwd {DTYPE_NAME[dtype]} o", max_error(o, want_o), BOUND[dtype])
    report(f"q08 flash_attn_fwd {DTYPE_NAME[dtype]} lse", max_error(lse, want_lse), BOUND[dtype])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_ring_steps_merged_by_lse_equal_full_causal_attention(dtype) -> None:  # type: ignore[no-untyped-def]
    """Each rank's Q chunk meets every KV chunk in ring order, future chunks included.

    A future chunk is fully masked: the forward returns o = 0, lse = -inf, and the merge must
    skip it. The accumulator starts as NaN garbage with lse = -inf (torch.empty in real code).
    """
    fa = triton_module("q08/flash_attn_fwd_kernel")
    merge = triton_module("q08/merge_attn_states_kernel")
    q, k, v = qkv(dtype)
    bounds = [0, 33, 65, 97]  # three ranks, chunk lengths 33, 32, 32
    chunks = [slice(a, b) for a, b in itertools.pairwise(bounds)]
    rank_count = len(chunks)
    outputs, lses = [], []
    for rank, mine in enumerate(chunks):
        q_r = q[:, mine].contiguous()
        heads, rows, dim = q_r.shape
        acc = torch.full((heads * rows, dim), float("nan"), dtype=dtype)
        acc_lse = torch.full((heads * rows,), float("-inf"))
        for step in range(rank_count):
            theirs = chunks[(rank - step) % rank_count]  # KV block held at this ring step
            o_b, lse_b = fa.flash_attn_fwd(
                q_r,
                k[:, theirs].contiguous(),
                v[:, theirs].contiguous(),
                q_start=mine.start,
                k_start=theirs.start,
                block_m=32,
                block_n=32,
            )
            merge.merge_attn_states_(acc, acc_lse, o_b.reshape(-1, dim), lse_b.reshape(-1))
        outputs.append(acc.reshape(heads, rows, dim))
        lses.append(acc_lse.reshape(heads, rows))
    want_o, want_lse = reference(q, k, v, 0, 0)
    report(
        f"q08 ring merge {DTYPE_NAME[dtype]} o",
        max_error(torch.cat(outputs, 1), want_o),
        BOUND[dtype],
    )
    report(
        f"q08 ring merge {DTYPE_NAME[dtype]} lse",
        max_error(torch.cat(lses, 1), want_lse),
        BOUND[dtype],
    )


def test_merging_two_empty_states_keeps_them_empty() -> None:
    """Both sides with lse = -inf (no key seen): o = 0 and lse = -inf, not NaN."""
    merge = triton_module("q08/merge_attn_states_kernel")
    acc = torch.full((5, 24), float("nan"))
    acc_lse = torch.full((5,), float("-inf"))
    block = torch.full((5, 24), float("nan"))
    merge.merge_attn_states_(acc, acc_lse, block, torch.full((5,), float("-inf")))
    assert torch.equal(acc, torch.zeros(5, 24))
    assert torch.isneginf(acc_lse).all()
