"""Pipeline bubble of GPipe, 1F1B, interleaved 1F1B, ZB-H1, ZB-H2 and DualPipe.

F, B and W are one micro-batch's forward, backward for the input gradient only, and backward
for the weight gradient on one stage (Zero Bubble's convention; the full backward is B + W).
Bubbles, per stage and iteration (Qi et al. Table 2; DeepSeek-V3 Table 2 rewritten with its
full-backward B as B + W): 1F1B (p−1)(F+B+W), ZB-H1 (p−1)(F+B−W), ZB-H2 (p−1)(F+B−2W),
DualPipe (p/2−1)(F&B+B−2W), interleaved 1F1B (p−1)(F+B+W)/v (Narayanan et al. 2021).
"""

from __future__ import annotations

from dataclasses import replace

from infracards.calc.common import MICROBATCHES, PP, VIRTUAL
from infracards.calc.spec import RATIO, Inputs, Model, Output, Param, reject

SCHEDULES = ("gpipe", "1f1b", "interleaved", "zb-h1", "zb-h2", "dualpipe")


def _overlapped(inputs: Inputs) -> float:
    """F&B: a forward and a full backward chunk overlapped (default: not at all, F+B+W)."""
    given = inputs.optional("overlapped")
    work = inputs.number("forward") + inputs.number("input-grad") + inputs.number("weight-grad")
    return work if given is None else given


def _bubble(inputs: Inputs) -> dict[str, float]:
    schedule, p, m = inputs.text("schedule"), inputs.whole("pp"), inputs.whole("microbatches")
    v = inputs.whole("virtual")
    f, b, w = (inputs.number(flag) for flag in ("forward", "input-grad", "weight-grad"))
    formula = {
        "gpipe": (p - 1) * (f + b + w),
        "1f1b": (p - 1) * (f + b + w),
        "interleaved": (p - 1) * (f + b + w) / v,
        "zb-h1": (p - 1) * (f + b - w),
        "zb-h2": (p - 1) * (f + b - 2 * w),
        "dualpipe": (p / 2 - 1) * (_overlapped(inputs) + b - 2 * w),
    }[schedule]
    bubble = max(0.0, formula)  # W larger than the schedule can use leaves no idle time
    ideal = m * (f + b + w)
    peak = {  # in one stage's activations for one micro-batch
        "gpipe": m,
        "1f1b": min(p, m),
        "interleaved": min(v * p + p - 1, v * m) / v,
        "zb-h1": min(p, m),
        "zb-h2": min(2 * p - 1, m),
        "dualpipe": p + 1,
    }[schedule]
    return {
        "bubble": bubble,
        "ideal": ideal,
        "step_time": ideal + bubble,
        "bubble_of_step": bubble / (ideal + bubble),
        "bubble_of_ideal": bubble / ideal,
        "peak_activations": peak,
        "param_copies": 2 if schedule == "dualpipe" else 1,
    }


def _rules(inputs: Inputs) -> None:
    schedule, p, m = inputs.text("schedule"), inputs.whole("pp"), inputs.whole("microbatches")
    if schedule == "interleaved" and inputs.whole("virtual") < 2:
        raise reject("virtual", "must be 2 or more with --schedule interleaved")
    if schedule != "interleaved" and "virtual" in inputs.given:
        raise reject("virtual", "counts only with --schedule interleaved")
    if schedule != "dualpipe" and "overlapped" in inputs.given:
        raise reject("overlapped", "counts only with --schedule dualpipe")
    if schedule == "dualpipe":
        if p % 2:
            raise reject("pp", "must be even for DualPipe: ranks pair up from both ends")
        if m % 2 or m < 2 * p:
            raise reject(
                "microbatches", f"must be even and at least 2 × --pp ({2 * p}) for DualPipe"
            )
        f, b, w = (inputs.number(flag) for flag in ("forward", "input-grad", "weight-grad"))
        low, high, fb = max(f, b + w), f + b + w, _overlapped(inputs)
        if not low <= fb <= high:
            raise reject(
                "overlapped",
                f"must be from max(F, B+W) = {low:g} to F+B+W = {high:g}: two chunks "
                "overlapped take at least the longer one and at most both",
            )


BUBBLE = Model(
    name="bubble",
    title="Pipeline bubble",
    help=(
        "Idle time per stage and iteration, in the unit of F, B, W. bubble_of_step is the "
        "bubble over the whole step (GPipe's (p−1)/(m+p−1) for 1F1B); bubble_of_ideal is over "
        "the ideal compute m(F+B+W) (Megatron's (p−1)/m, (p−1)/(v·m) interleaved). ZB1P in "
        "DeepSeek-V3's table is ZB-H1; DualPipeV has DualPipe's bubble. peak_activations "
        "counts one stage's activations of one micro-batch (p for 1F1B, 2p−1 ZB-H2, p+1 "
        "DualPipe)."
    ),
    sources=(
        "Qi et al. 2024, Zero Bubble Pipeline Parallelism, Table 2 "
        "(https://arxiv.org/abs/2401.10241)",
        "DeepSeek-V3 Technical Report, Table 2; deepseek-ai/DualPipe README "
        "(https://github.com/deepseek-ai/DualPipe)",
        "Narayanan et al. 2021, Megatron-LM, §2.2: (p−1)/m and (p−1)/(v·m) "
        "(https://arxiv.org/abs/2104.04473)",
    ),
    params=(
        Param(
            "schedule",
            "",
            "pipeline schedule",
            kind="choice",
            default="1f1b",
            choices=SCHEDULES,
        ),
        replace(PP, required=True, default=None),
        replace(MICROBATCHES, required=True, default=None),
        VIRTUAL,
        Param(
            "forward",
            "F",
            "forward time of one micro-batch on one stage (any unit; outputs use it)",
            default=1.0,
            low=1e-6,
            high=1e9,
        ),
        Param(
            "input-grad",
            "B",
            "backward time for the input gradient only",
            default=1.0,
            low=0,
            high=1e9,
        ),
        Param(
            "weight-grad",
            "W",
            "backward time for the weight gradient",
            default=1.0,
            low=0,
            high=1e9,
        ),
        Param(
            "overlapped",
            "F&B",
            "DualPipe: a forward and a full backward chunk run overlapped (default F+B+W)",
            low=1e-6,
            high=3e9,
        ),
    ),
    outputs=(
        Output("bubble", "", "idle time per stage per iteration"),
        Output("ideal", "", "compute per stage per iteration: m(F+B+W)"),
        Output("step_time", "", "ideal + bubble"),
        Output("bubble_of_step", RATIO, "bubble / step time"),
        Output("bubble_of_ideal", RATIO, "bubble / ideal compute"),
        Output("peak_activations", "", "peak activations, in one stage's micro-batches"),
        Output("param_copies", "", "copies of each stage's parameters in the pipeline"),
    ),
    formula=_bubble,
    rules=_rules,
)
