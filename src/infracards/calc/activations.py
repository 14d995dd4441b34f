"""Activation memory of a GPT layer and of a pipeline stage (Korthikanti et al. 2022).

Per layer and micro-batch, 16-bit activations and 1-byte dropout masks (Table 2):
no parallelism sbh(34 + 5as/h); TP sbh(10 + 24/t + 5as/(ht)); TP + SP sbh(34/t + 5as/(ht));
selective recomputation drops the 5as/h term; full recomputation keeps only each layer's input,
2sbh (2sbh/t with SP). Under 1F1B the first stage holds p micro-batches of L/p layers, that is
L layers' worth (§4.2.3), and stage i holds p − i; interleaving with v chunks multiplies the
first stage's by 1 + (p−1)/(p·v).
"""

from __future__ import annotations

from dataclasses import replace

from infracards.calc.common import (
    GB,
    HIDDEN,
    LAYERS,
    MICROBATCHES,
    PP,
    RECOMPUTE,
    SEQ,
    TP,
    VIRTUAL,
)
from infracards.calc.spec import Inputs, Model, Output, Param, reject


def _per_layer(inputs: Inputs) -> tuple[float, float]:
    """(bytes one layer keeps per micro-batch, bytes it holds while computed without recompute)."""
    s, h, a, t = (inputs.whole(flag) for flag in ("seq", "hidden", "heads", "tp"))
    sbh = s * inputs.whole("micro-batch") * h
    scores = 5 * a * s / h
    sp = inputs.text("sp") == "on"
    whole = sbh * (34 + scores) / t if sp else sbh * (10 + 24 / t + scores / t)
    recompute = inputs.text("recompute")
    if recompute == "none":
        return whole, whole
    if recompute == "selective":
        return (34 * sbh / t if sp else sbh * (10 + 24 / t)), whole
    return (2 * sbh / t if sp else 2 * sbh), whole


def _layers_in_flight(inputs: Inputs) -> float:
    """Layer × micro-batch units of activations pipeline rank i holds at its peak."""
    layers, p, v = inputs.whole("layers"), inputs.whole("pp"), inputs.whole("virtual")
    i = inputs.whole("stage")
    m = None if inputs["microbatches"] is None else inputs.whole("microbatches")
    if inputs.text("schedule") == "gpipe":
        return inputs.whole("microbatches") * layers / p  # the rules require m here
    if v == 1:  # Megatron's warm-up p−i−1 forwards, then one more before the first backward
        return (p - i if m is None else min(p - i, m)) * layers / p
    chunks = v * p + p - 2 * i - 1  # interleaved warm-up 2(p−i−1) + (v−1)p, plus one
    return (chunks if m is None else min(chunks, v * m)) * layers / (p * v)


def _activations(inputs: Inputs) -> dict[str, float]:
    kept, whole = _per_layer(inputs)
    units = _layers_in_flight(inputs)
    workspace = whole if inputs.text("recompute") == "full" else 0.0
    return {
        "per_layer_gb": kept / GB,
        "layers_in_flight": units,
        "stage_gb": kept * units / GB,
        "workspace_gb": workspace / GB,
        "peak_gb": (kept * units + workspace) / GB,
    }


def _rules(inputs: Inputs) -> None:
    t, heads, seq = inputs.whole("tp"), inputs.whole("heads"), inputs.whole("seq")
    layers, p, v = inputs.whole("layers"), inputs.whole("pp"), inputs.whole("virtual")
    if heads % t:
        raise reject("tp", f"must divide --heads ({heads}): TP splits the attention heads")
    if inputs.text("sp") == "on" and seq % t:
        raise reject("tp", f"must divide --seq ({seq}) with --sp on: SP splits the sequence")
    if layers % p:
        raise reject("pp", f"must divide --layers ({layers}): each stage gets L/p layers")
    if v > 1 and inputs.text("schedule") != "1f1b":
        raise reject("virtual", "needs --schedule 1f1b: interleaving is a 1F1B schedule")
    if layers % (p * v):
        raise reject("virtual", f"--pp × --virtual ({p * v}) must divide --layers ({layers})")
    if inputs.whole("stage") >= p:
        raise reject("stage", f"must be below --pp ({p}): stages count from 0")
    if inputs.text("schedule") == "gpipe" and inputs["microbatches"] is None:
        raise reject("microbatches", "is required with --schedule gpipe: stages hold all m")


ACTIVATIONS = Model(
    name="activations",
    title="Activation memory per layer and per pipeline stage",
    help=(
        "Korthikanti et al.'s per-layer activations (GPT layer, 16-bit activations, 1-byte "
        "dropout masks; FlashAttention keeps no s×s scores, as --recompute selective) times "
        "the layers × micro-batches stage i holds: (p−i)·L/p under 1F1B (L on the first), "
        "L·(1 + (p−1)/(p·v)) on the first interleaved, m·L/p under GPipe. With --recompute "
        "full the layer being recomputed needs its whole activations once more (workspace). The "
        "embedding dropout, final LayerNorm and fp32 logits (§4.3) are not included."
    ),
    sources=(
        "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer "
        "Models, Table 2, §4.2.3, §5 (https://arxiv.org/abs/2205.05198)",
        "Megatron-LM schedules.py: interleaved warm-up 2(p−1−i) + (v−1)p "
        "(https://github.com/NVIDIA/Megatron-LM/blob/main/megatron/core/pipeline_parallel/"
        "schedules.py)",
    ),
    params=(
        SEQ,
        Param(
            "micro-batch",
            "b",
            "micro-batch size (sequences)",
            kind="int",
            default=1,
            low=1,
            high=100_000,
        ),
        HIDDEN,
        Param("heads", "a", "attention heads", kind="int", required=True, low=1, high=100_000),
        LAYERS,
        TP,
        Param(
            "sp",
            "",
            "sequence parallelism: also split the LayerNorm and dropout activations by t",
            kind="choice",
            default="off",
            choices=("off", "on"),
        ),
        RECOMPUTE,
        PP,
        Param(
            "schedule",
            "",
            "pipeline schedule: 1f1b (interleaved when --virtual > 1) or gpipe",
            kind="choice",
            default="1f1b",
            choices=("1f1b", "gpipe"),
        ),
        VIRTUAL,
        Param(
            "stage",
            "i",
            "pipeline rank, from 0: the first stage holds the most (1F1B: p − i micro-batches)",
            kind="int",
            default=0,
            low=0,
            high=4095,
        ),
        replace(
            MICROBATCHES,
            default=None,
            help="micro-batches per step; without it, enough to fill the pipeline (m ≥ p)",
        ),
    ),
    outputs=(
        Output("per_layer_gb", "GB", "activations one layer keeps per micro-batch"),
        Output("layers_in_flight", "layers", "layer × micro-batch units the stage holds"),
        Output("stage_gb", "GB", "activations the stage keeps at its peak"),
        Output("workspace_gb", "GB", "full recompute: one layer's activations rebuilt"),
        Output("peak_gb", "GB", "the stage's activations plus the recompute workspace"),
    ),
    formula=_activations,
    rules=_rules,
)
