"""Training time from tokens: C = 6ΨD model FLOPs, an attention term, GPUs, peak, MFU, goodput.

Training a dense transformer costs about 6 FLOPs per parameter per token (forward 2, backward
4; Kaplan et al. 2020). Attention scores add 12·L·s·h per token (PaLM's MFU accounting), about
half with a causal kernel. Full recomputation makes the hardware run 8ΨD (Megatron-LM's
8TP/(nX), Narayanan et al. 2021), yet MFU counts only the model's FLOPs.
"""

from __future__ import annotations

from dataclasses import replace

from infracards.calc.common import HIDDEN, LAYERS, PARAMS, RECOMPUTE, SEQ
from infracards.calc.spec import RATIO, Inputs, Model, Output, Param, reject

SECONDS_PER_DAY = 86_400
TERA = 1e12


def _attention_per_token(inputs: Inputs) -> float:
    """Attention-score FLOPs per token, forward and backward (QKᵀ and PV, 4·s·h a layer)."""
    kind = inputs.text("attention")
    if kind == "none":
        return 0.0
    per_layer = 4 * inputs.number("seq") * inputs.number("hidden")
    return 3 * per_layer * inputs.number("layers") / (2 if kind == "causal" else 1)


def _hardware_ratio(inputs: Inputs) -> float:
    """FLOPs the hardware runs per model FLOP: full recompute reruns each layer's forward."""
    model = 6 * inputs.number("params") + _attention_per_token(inputs)
    rerun = {
        "none": 0.0,
        "selective": _attention_per_token(inputs) / 3,  # the attention core's forward
        "full": model / 3,  # every forward again: 8ΨD instead of 6ΨD
    }[inputs.text("recompute")]
    return (model + rerun) / model


def _train_time(inputs: Inputs) -> dict[str, float]:
    tokens, gpus = inputs.number("tokens"), inputs.whole("gpus")
    model_flops = (6 * inputs.number("params") + _attention_per_token(inputs)) * tokens
    hardware_flops = model_flops * _hardware_ratio(inputs)
    peak = inputs.number("peak") * TERA
    achieved = inputs.optional("tflops")
    if achieved is None:
        seconds = model_flops / (gpus * peak * inputs.number("mfu"))
    else:
        seconds = hardware_flops / (gpus * achieved * TERA)
    wall = seconds / inputs.number("goodput")
    steps = max(1.0, tokens / inputs.number("batch-tokens"))
    return {
        "days": wall / SECONDS_PER_DAY,
        "compute_days": seconds / SECONDS_PER_DAY,
        "gpu_hours": wall * gpus / 3600,
        "model_flops": model_flops,
        "hardware_flops": hardware_flops,
        "mfu": model_flops / (seconds * gpus * peak),
        "hfu": hardware_flops / (seconds * gpus * peak),
        "steps": steps,
        "step_seconds": seconds / steps,
    }


def _rules(inputs: Inputs) -> None:
    shape = ("layers", "seq", "hidden")
    if inputs.text("attention") == "none":
        for flag in shape:
            if flag in inputs.given:
                raise reject(flag, "counts only with --attention causal or full")
    else:
        for flag in shape:
            if inputs[flag] is None:
                raise reject(flag, f"is required with --attention {inputs.text('attention')}")
    peak, ratio = inputs.number("peak"), _hardware_ratio(inputs)
    achieved = inputs.optional("tflops")
    if achieved is not None:
        if "mfu" in inputs.given:
            raise reject("tflops", "give either --tflops (achieved) or --mfu, not both")
        if achieved > peak:
            raise reject("tflops", f"cannot exceed --peak ({peak:g} TFLOP/s)")
    elif inputs.number("mfu") * ratio > 1:
        raise reject(
            "mfu",
            f"at most {1 / ratio:.3g} with --recompute {inputs.text('recompute')}: the "
            f"hardware runs {ratio:.3g}× the model FLOPs and cannot exceed --peak",
        )


TRAIN_TIME = Model(
    name="train-time",
    title="Training time from tokens",
    help=(
        "Model FLOPs C = (6Ψ + attention)·D; compute time C / (GPUs × peak × MFU), or, with "
        "--tflops, the hardware FLOPs (8ΨD under full recompute) / (GPUs × achieved rate) as "
        "in Megatron-LM's 8TP/(nX); wall-clock time divides by goodput. Ψ counts the weights "
        "in matrix multiplies (MoE: the activated ones)."
    ),
    sources=(
        "Kaplan et al. 2020, Scaling Laws for Neural Language Models, C ≈ 6ND "
        "(https://arxiv.org/abs/2001.08361)",
        "Narayanan et al. 2021, Megatron-LM, §5.1 eq. (4) 8TP/(nX) "
        "(https://arxiv.org/abs/2104.04473)",
        "Chowdhery et al. 2022, PaLM, appendix B: MFU and 6N + 12LHQT "
        "(https://arxiv.org/abs/2204.02311)",
    ),
    params=(
        replace(PARAMS, help="parameters in the matrix multiplies (MoE: activated per token)"),
        Param("tokens", "D", "training tokens", required=True, low=1, high=1e17),
        Param("gpus", "N_GPU", "GPUs", kind="int", required=True, low=1, high=10_000_000),
        Param(
            "tflops",
            "X",
            "achieved TFLOP/s per GPU, counting the FLOPs the hardware runs (with full "
            "recompute 8ΨD), as Megatron-LM reports; give this or --mfu",
            unit="TFLOP/s",
            low=1e-3,
            high=1e5,
        ),
        Param(
            "peak",
            "",
            "dense peak TFLOP/s per GPU at the training precision (H100 SXM BF16: 989)",
            unit="TFLOP/s",
            default=989.0,
            low=1e-3,
            high=1e5,
        ),
        Param(
            "mfu",
            "MFU",
            "model FLOPs utilization: model FLOPs / (time × GPUs × peak)",
            unit=RATIO,
            default=0.4,
            low=1e-4,
            high=1,
        ),
        RECOMPUTE,
        Param(
            "attention",
            "",
            "attention-score FLOPs: none (6ΨD only); causal (+6·L·s·h per token); full "
            "(+12·L·s·h per token, PaLM's accounting)",
            kind="choice",
            default="none",
            choices=("none", "causal", "full"),
        ),
        replace(LAYERS, required=False),
        replace(SEQ, required=False),
        replace(HIDDEN, required=False),
        Param(
            "goodput",
            "",
            "share of wall-clock time spent training (checkpoints, failures, restarts excluded)",
            unit=RATIO,
            default=1.0,
            low=1e-3,
            high=1,
        ),
        Param(
            "batch-tokens",
            "",
            "tokens per optimizer step (global batch × sequence length); fewer make one step",
            default=4e6,
            low=1,
            high=1e17,
        ),
    ),
    outputs=(
        Output("days", "days", "wall-clock training time"),
        Output("compute_days", "days", "training time before goodput"),
        Output("gpu_hours", "GPU·h", "GPUs × wall-clock hours"),
        Output("model_flops", "FLOP", "the model's FLOPs: (6Ψ + attention)·D"),
        Output("hardware_flops", "FLOP", "FLOPs the hardware runs, recomputation included"),
        Output("mfu", RATIO, "model FLOPs utilization"),
        Output("hfu", RATIO, "hardware FLOPs utilization"),
        Output("steps", "", "optimizer steps: D / batch tokens"),
        Output("step_seconds", "s", "compute time per step"),
    ),
    formula=_train_time,
    rules=_rules,
)
