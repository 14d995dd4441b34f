"""Model-state memory per GPU: weights, gradients and optimizer states, sharded or not.

ZeRO's accounting (Rajbhandari et al. 2020, §3 and Fig. 1): mixed-precision Adam keeps 2Ψ bytes
of bf16 weights, 2Ψ of gradients and KΨ (K = 12: fp32 master weights, momentum, variance).
Stage 1 shards the K part over the data-parallel ranks, stage 2 also the gradients, stage 3
also the weights (FSDP FULL_SHARD). HSDP shards over N_d/R ranks and keeps R replicas. TP and
PP split the model first: each GPU holds Ψ/(t·p) parameters plus what its stage adds.
"""

from __future__ import annotations

from dataclasses import replace

from infracards.calc.common import DP, GB, PARAMS, PP, TP
from infracards.calc.spec import Inputs, Model, Output, Param, reject


def _states(inputs: Inputs) -> dict[str, float]:
    local = inputs.number("params") / (inputs.whole("tp") * inputs.whole("pp"))
    local += inputs.number("extra-params")
    shards = inputs.whole("dp") // inputs.whole("replicas")
    stage = int(inputs.text("zero"))
    weights = local * inputs.number("weight-bytes") / (shards if stage >= 3 else 1)
    grads = local * inputs.number("grad-bytes") / (shards if stage >= 2 else 1)
    optimizer = local * inputs.number("optimizer-bytes") / (shards if stage >= 1 else 1)
    total = weights + grads + optimizer
    return {
        "per_gpu_gb": total / GB,
        "weights_gb": weights / GB,
        "grads_gb": grads / GB,
        "optimizer_gb": optimizer / GB,
        "bytes_per_param": total / local,
        "params_per_gpu": local,
    }


def _rules(inputs: Inputs) -> None:
    dp, replicas = inputs.whole("dp"), inputs.whole("replicas")
    if dp % replicas:
        raise reject("replicas", f"must divide --dp ({dp}): each replica is N_d/R ranks")


MEMORY = Model(
    name="memory",
    title="Model-state memory per GPU",
    help=(
        "Weights + gradients + optimizer states per GPU, in GB. Per parameter on the GPU: "
        "2 + 2 + K bytes plain (ZeRO 0), 2 + 2 + K/N_d (ZeRO 1), 2 + (2 + K)/N_d (ZeRO 2), "
        "(2 + 2 + K)/N_d (ZeRO 3, FSDP FULL_SHARD); N_d/R in place of N_d for HSDP. "
        "Megatron's distributed optimizer keeps fp32 gradients: --zero 1 --grad-bytes 4 "
        "gives its 6 + 12/N_d. Activations and buffers are not included (see activations)."
    ),
    sources=(
        "Rajbhandari et al. 2020, ZeRO, §3 and Fig. 1 (https://arxiv.org/abs/1910.02054)",
        "Megatron Core distributed optimizer, bytes per parameter table "
        "(https://docs.nvidia.com/megatron-core/developer-guide/latest/api-guide/"
        "dist_optimizer.html)",
    ),
    params=(
        PARAMS,
        replace(DP, help="data-parallel degree: the ranks ZeRO shards over"),
        Param(
            "zero",
            "",
            "ZeRO stage: 0 plain DP; 1 optimizer states (P_os); 2 also gradients (P_os+g); "
            "3 also weights (P_os+g+p, FSDP FULL_SHARD)",
            kind="choice",
            default="0",
            choices=("0", "1", "2", "3"),
        ),
        Param(
            "replicas",
            "R",
            "HSDP: replicas of the sharded model, so ZeRO shards over N_d/R ranks (1: over all)",
            kind="int",
            default=1,
            low=1,
            high=10_000_000,
        ),
        TP,
        PP,
        Param(
            "weight-bytes",
            "",
            "bytes per weight the GPU computes with (bf16: 2)",
            unit="B",
            default=2.0,
            low=0.5,
            high=16,
        ),
        Param(
            "grad-bytes",
            "",
            "bytes per gradient (bf16: 2; Megatron's fp32 main grads: 4)",
            unit="B",
            default=2.0,
            low=0.5,
            high=16,
        ),
        Param(
            "optimizer-bytes",
            "K",
            "optimizer-state bytes per parameter (mixed-precision Adam: fp32 master + m + v = 12)",
            unit="B",
            default=12.0,
            low=0,
            high=64,
        ),
        Param(
            "extra-params",
            "",
            "parameters this GPU holds besides Ψ/(t·p): the first stage's embedding, the last "
            "stage's LM head",
            default=0.0,
            low=0,
            high=1e15,
        ),
    ),
    outputs=(
        Output("per_gpu_gb", "GB", "model states on one GPU"),
        Output("weights_gb", "GB", "weights on one GPU"),
        Output("grads_gb", "GB", "gradients on one GPU"),
        Output("optimizer_gb", "GB", "optimizer states on one GPU"),
        Output("bytes_per_param", "B", "model-state bytes per parameter the GPU holds"),
        Output("params_per_gpu", "", "parameters on one GPU: Ψ/(t·p) + extra"),
    ),
    formula=_states,
    rules=_rules,
)
