"""Each model reproduces the figures its sources publish, within the rounding they state."""

from __future__ import annotations

import pytest

from infracards.calc import calculate

GPT3 = {"seq": 2048, "hidden": 12288, "heads": 96, "layers": 96}  # Korthikanti Table 3


# --- ZeRO (Rajbhandari et al. 2020), Fig. 1: Ψ = 7.5B, N_d = 64, K = 12 ---------------------


@pytest.mark.parametrize(
    ("zero", "paper_gb", "exact_gb"),
    [("0", 120, 120.0), ("1", 31.4, 31.40625), ("2", 16.6, 16.640625), ("3", 1.9, 1.875)],
)
def test_zero_figure_1(zero: str, paper_gb: float, exact_gb: float) -> None:
    result = calculate("memory", {"params": "7.5e9", "dp": "64", "zero": zero})
    assert result["per_gpu_gb"] == pytest.approx(exact_gb, rel=1e-12)
    assert abs(result["per_gpu_gb"] - paper_gb) <= 0.05  # the figure's one decimal


def test_zero_hsdp_shards_over_one_replica_only() -> None:
    """HSDP with R replicas is ZeRO-3 over N_d/R ranks: 4 × 8 shards like 8 ranks of FSDP."""
    hsdp = calculate("memory", {"params": 70e9, "dp": 32, "zero": 3, "replicas": 4})
    fsdp8 = calculate("memory", {"params": 70e9, "dp": 8, "zero": 3})
    assert hsdp["per_gpu_gb"] == fsdp8["per_gpu_gb"] == pytest.approx(16 * 70e9 / 8 / 1e9)


def test_megatron_distributed_optimizer_table() -> None:
    """Megatron Core docs: bf16 params + fp32 grads take 6 + 12/d bytes per parameter."""
    for d in (1, 8, 64):
        result = calculate("memory", {"params": 1e9, "dp": d, "zero": 1, "grad-bytes": 4})
        assert result["bytes_per_param"] == pytest.approx(6 + 12 / d)


# --- Megatron-LM (Narayanan et al. 2021), §5.1: 8TP/(nX) ------------------------------------


@pytest.mark.parametrize(
    ("params", "tokens", "gpus", "tflops", "paper_days"),
    [
        ("175e9", "300e9", "1024", "140", 34),  # GPT-3
        ("1008e9", "450e9", "3072", "163", 84),  # the "1T" model is 1008.0B in Table 1
    ],
)
def test_megatron_training_time(
    params: str, tokens: str, gpus: str, tflops: str, paper_days: int
) -> None:
    result = calculate(
        "train-time",
        {"params": params, "tokens": tokens, "gpus": gpus, "tflops": tflops, "recompute": "full"},
    )
    assert round(result["days"]) == paper_days
    assert result["hardware_flops"] == pytest.approx(8 * float(params) * float(tokens))


def test_mfu_counts_model_flops_and_hfu_the_recomputed_ones() -> None:
    """With full recompute the hardware runs 8ΨD; MFU = HFU × 6/8 (Korthikanti §5, PaLM B)."""
    result = calculate(
        "train-time",
        {
            "params": 175e9,
            "tokens": 300e9,
            "gpus": 1024,
            "tflops": 140,
            "peak": 312,
            "recompute": "full",
        },
    )
    assert result["hfu"] == pytest.approx(140 / 312)
    assert result["mfu"] == pytest.approx(140 / 312 * 6 / 8)


def test_palm_attention_term() -> None:
    """PaLM appendix B: 6N + 12·L·H·Q·T FLOPs per token (H·Q = h, T = s)."""
    result = calculate(
        "train-time",
        {
            "params": 1e9,
            "tokens": 1,
            "gpus": 1,
            "attention": "full",
            "layers": 24,
            "seq": 2048,
            "hidden": 2048,
        },
    )
    assert result["model_flops"] == 6e9 + 12 * 24 * 2048 * 2048


# --- Korthikanti et al. 2022, Table 2 and §4.2.3 ---------------------------------------------


def activations(**inputs: object) -> dict[str, float]:
    return dict(calculate("activations", {**GPT3, **inputs}).values)


def test_table_2_per_layer_formulas() -> None:
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    sbh = s * b * h
    rows: list[tuple[dict[str, object], float]] = [
        ({"tp": 1}, sbh * (34 + 5 * a * s / h)),
        ({"tp": t}, sbh * (10 + 24 / t + 5 * a * s / (h * t))),
        ({"tp": t, "sp": "on"}, sbh * (34 / t + 5 * a * s / (h * t))),
        ({"tp": t, "recompute": "selective"}, sbh * (10 + 24 / t)),
        ({"tp": t, "sp": "on", "recompute": "selective"}, sbh * 34 / t),
        ({"tp": t, "recompute": "full"}, 2 * sbh),
    ]
    for inputs, expected in rows:
        assert activations(**inputs)["per_layer_gb"] * 1e9 == pytest.approx(expected), inputs


def test_first_stage_holds_l_layers_whatever_p() -> None:
    """§4.2.3: under 1F1B the first stage stores p micro-batches of L/p layers (eq. 5, 6)."""
    for p in (1, 2, 8, 16):
        result = activations(tp=8, pp=p, sp="on", recompute="selective")
        assert result["layers_in_flight"] == 96
        assert result["stage_gb"] * 1e9 == pytest.approx(34 * 2048 * 12288 * 96 / 8)


def test_stage_i_holds_p_minus_i_micro_batches() -> None:
    """Megatron's 1F1B: rank i runs p−i−1 warm-up forwards, then one more before a backward."""
    for i in range(8):
        result = activations(tp=8, pp=8, stage=i)
        assert result["layers_in_flight"] == (8 - i) * 12


def test_interleaving_factor() -> None:
    """§4.2.3: interleaved 1F1B multiplies the first stage by 1 + (p−1)/(p·v)."""
    plain = activations(tp=8, pp=8, sp="on", recompute="selective")
    for v in (2, 3, 4):
        interleaved = activations(tp=8, pp=8, virtual=v, sp="on", recompute="selective")
        ratio = interleaved["stage_gb"] / plain["stage_gb"]
        assert ratio == pytest.approx(1 + 7 / (8 * v))


def test_sequence_parallel_and_selective_recompute_save_5x() -> None:
    """The abstract's "reduce activation memory by 5×", for GPT-3 175B at t = 8."""
    baseline = activations(tp=8)["per_layer_gb"]
    present = activations(tp=8, sp="on", recompute="selective")["per_layer_gb"]
    assert 5 <= baseline / present < 6


# --- Zero Bubble (Qi et al. 2024) Table 2 and DualPipe (DeepSeek-V3 Table 2) ------------------


def bubble(**inputs: object) -> dict[str, float]:
    return dict(calculate("bubble", inputs).values)


TIMES = [(1.0, 1.0, 1.0), (1.0, 1.2, 0.8), (2.0, 2.5, 1.0), (1.0, 1.143, 0.857)]


@pytest.mark.parametrize(("f", "b", "w"), TIMES)
def test_zero_bubble_table_2(f: float, b: float, w: float) -> None:
    p, m = 8, 32
    times = {"pp": p, "microbatches": m, "forward": f, "input-grad": b, "weight-grad": w}
    rows = {
        "1f1b": ((p - 1) * (f + b + w), p),
        "zb-h1": ((p - 1) * (f + b - w), p),
        "zb-h2": (max(0.0, (p - 1) * (f + b - 2 * w)), 2 * p - 1),
    }
    for schedule, (expected, peak) in rows.items():
        result = bubble(schedule=schedule, **times)
        assert result["bubble"] == pytest.approx(expected)
        assert result["peak_activations"] == peak  # p·M_B, p·M_B, (2p−1)·M_B


def test_zb_h1_is_a_third_of_1f1b_at_equal_times() -> None:
    """§2.1: with T_F = T_B = T_W the ZB-H1 bubble is a third of 1F1B's; ZB-H2's is zero."""
    one_f_one_b = bubble(schedule="1f1b", pp=8, microbatches=32)["bubble"]
    assert bubble(schedule="zb-h1", pp=8, microbatches=32)["bubble"] == one_f_one_b / 3
    assert bubble(schedule="zb-h2", pp=8, microbatches=32)["bubble"] == 0


@pytest.mark.parametrize(
    ("f", "b_full", "w", "f_and_b"),
    [(2.0, 3.0, 1.0, 3.0), (1.0, 2.0, 1.0, 3.0), (1.0, 2.0, 0.5, 2.5)],
)
def test_dualpipe_table(f: float, b_full: float, w: float, f_and_b: float) -> None:
    """DeepSeek-V3 Table 2 / DualPipe README, whose B is the full backward (ours is B + W)."""
    pp, m = 16, 32
    times = {"pp": pp, "microbatches": m, "forward": f, "input-grad": b_full - w, "weight-grad": w}
    rows = {
        "1f1b": ((pp - 1) * (f + b_full), 1, pp),
        "zb-h1": ((pp - 1) * (f + b_full - 2 * w), 1, pp),  # the table's ZB1P
        "dualpipe": ((pp / 2 - 1) * (f_and_b + b_full - 3 * w), 2, pp + 1),
    }
    for schedule, (expected, copies, peak) in rows.items():
        extra = {"overlapped": f_and_b} if schedule == "dualpipe" else {}
        result = bubble(schedule=schedule, **times, **extra)
        assert result["bubble"] == pytest.approx(expected)
        assert (result["param_copies"], result["peak_activations"]) == (copies, peak)


def test_bubble_fractions_on_both_bases() -> None:
    """GPipe's (p−1)/(m+p−1) of the step; Megatron's (p−1)/m and (p−1)/(v·m) of the ideal."""
    for p, m in ((4, 8), (8, 32), (16, 64)):
        plain = bubble(schedule="1f1b", pp=p, microbatches=m)
        assert plain["bubble_of_step"] == pytest.approx((p - 1) / (m + p - 1))
        assert plain["bubble_of_ideal"] == pytest.approx((p - 1) / m)
        assert bubble(schedule="gpipe", pp=p, microbatches=m) | {"peak_activations": p} == plain
        interleaved = bubble(schedule="interleaved", pp=p, microbatches=m, virtual=4)
        assert interleaved["bubble_of_ideal"] == pytest.approx((p - 1) / (4 * m))


# --- nccl-tests doc/PERFORMANCE.md: algbw, busbw ----------------------------------------------


@pytest.mark.parametrize("n", [2, 8, 64, 1024])
def test_ring_all_reduce_moves_2_n_minus_1_over_n(n: int) -> None:
    size = 1e9
    result = calculate(
        "collective",
        {"op": "all-reduce", "ranks": n, "bytes": size, "gpus-per-node": 1, "nics": 1, "nic": 50},
    )
    assert result["per_rank_gb"] * 1e9 == pytest.approx(2 * (n - 1) / n * size)
    # busbw = algbw × 2(n−1)/n equals the link bandwidth the optimal ring runs at
    assert result["busbw_gbs"] == pytest.approx(50)
    assert result["algbw_gbs"] == pytest.approx(50 * n / (2 * (n - 1)))


@pytest.mark.parametrize("op", ["reduce-scatter", "all-gather", "all-to-all"])
def test_busbw_factor_n_minus_1_over_n(op: str) -> None:
    n, size = 8, 1e9
    result = calculate("collective", {"op": op, "ranks": n, "bytes": size, "nvlink": 400})
    assert result["per_rank_gb"] * 1e9 == pytest.approx((n - 1) / n * size)
    assert result["busbw_gbs"] == pytest.approx(result["algbw_gbs"] * (n - 1) / n)
    assert result["busbw_gbs"] == pytest.approx(400)


def test_a_ring_across_nodes_runs_at_the_nodes_nic_bandwidth() -> None:
    """One ring channel per NIC, each crossing a node once: 8 × 45 GB/s, capped by NVLink."""
    multi = calculate("collective", {"ranks": 64, "bytes": 14e9, "nvlink": 400})
    assert multi["busbw_gbs"] == pytest.approx(8 * 45)
    capped = calculate("collective", {"ranks": 64, "bytes": 14e9, "nvlink": 300})
    assert capped["busbw_gbs"] == pytest.approx(300)
    one_nic = calculate("collective", {"ranks": 64, "bytes": 14e9, "nics": 1})
    assert one_nic["busbw_gbs"] == pytest.approx(45)


def test_alpha_beta_costs_of_the_other_algorithms() -> None:
    """Thakur et al. 2005: recursive halving-doubling 2·log2(n)·α + 2(n−1)/n·S·β; Bruck's
    all-to-all log2(n) steps of S/2; pairwise n−1 steps of S/n (one node, β = 1/(100 GB/s))."""
    n, size, alpha = 8, 1e9, 5.0
    fabric = {"ranks": n, "bytes": size, "alpha": alpha, "nvlink": 100}

    def cost(**inputs: object) -> tuple[float, float, float]:
        result = calculate("collective", {**fabric, **inputs})
        return result["latency_ms"], result["transfer_ms"], result["per_rank_gb"]

    rhd = cost(op="all-reduce", algo="rhd")
    assert rhd == pytest.approx((2 * 3 * alpha / 1e3, 2 * 7 / 8 * 10, 2 * 7 / 8))
    ring = cost(op="all-reduce")
    assert ring == pytest.approx((2 * 7 * alpha / 1e3, rhd[1], rhd[2]))
    bruck = cost(op="all-to-all", algo="bruck")
    assert bruck == pytest.approx((3 * alpha / 1e3, 3 * 0.5 * 10, 3 * 0.5))
    pairwise = cost(op="all-to-all")
    assert pairwise == pytest.approx((7 * alpha / 1e3, 7 / 8 * 10, 7 / 8))
