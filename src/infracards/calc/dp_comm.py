"""Data-parallel communication per optimizer step: DDP, ZeRO-1/2/3 (FSDP) and HSDP.

Per step, with S = Ψ·b bytes on the wire and m micro-batches (ZeRO paper §7; every collective a
ring): DDP all-reduces the gradients once (no_sync accumulation); ZeRO-1 reduce-scatters them
and all-gathers the updated weights; ZeRO-2 must reduce every micro-batch to free the gradients;
ZeRO-3 / FSDP all-gathers the weights for the forward and again for the backward and
reduce-scatters the gradients, every micro-batch. DeepSpeed's ZeRO-1/2 reduce with all-reduce
(PR #4695). HSDP does ZeRO-3 inside a group of N_d/R ranks and all-reduces each 1/(N_d/R) shard
across the R replicas once a step (FSDP2 ``set_requires_all_reduce``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from infracards.calc.collective import Cost, Fabric, check_nodes, crossing, ring
from infracards.calc.common import (
    ALPHA,
    DP,
    GB,
    GPUS_PER_NODE,
    MICROBATCHES,
    NIC,
    NICS,
    NVLINK,
    PARAMS,
)
from infracards.calc.spec import Inputs, Model, Output, Param, reject


@dataclass(frozen=True, slots=True)
class Collectives:
    """``times`` ring collectives of one shape in a step."""

    cost: Cost
    times: int
    crossing: float
    """Bytes each one sends out of each node."""


def _group(op: str, ranks: int, size: float, fabric: Fabric, times: int) -> Collectives:
    per_node = min(ranks, fabric.gpus_per_node)
    cost = ring(op, ranks, size, fabric, per_node)
    return Collectives(cost, times, crossing(ranks, per_node, cost.moved, fabric))


def _flat(inputs: Inputs, fabric: Fabric) -> list[Collectives]:
    """The collectives of DDP and ZeRO over all N_d ranks."""
    n, m = inputs.whole("dp"), inputs.whole("microbatches")
    size = inputs.number("params") * inputs.number("wire-bytes")
    strategy, deepspeed = inputs.text("strategy"), inputs.text("impl") == "deepspeed"
    reduce = "all-reduce" if deepspeed or strategy == "ddp" else "reduce-scatter"
    plan = {
        "ddp": [(reduce, 1)],
        "zero1": [(reduce, 1), ("all-gather", 1)],
        "zero2": [(reduce, m), ("all-gather", 1)],
        "zero3": [("all-gather", 2 * m), ("reduce-scatter", m)],
    }[strategy]
    return [_group(op, n, size, fabric, times) for op, times in plan]


def _replicas(inputs: Inputs) -> int:
    """HSDP's R: given, or one replica per node (shard inside the node)."""
    chosen = inputs["replicas"]
    if chosen is not None:
        return inputs.whole("replicas")
    return max(1, inputs.whole("dp") // inputs.whole("gpus-per-node"))


def _hsdp(inputs: Inputs, fabric: Fabric) -> tuple[Collectives, Collectives]:
    """(the shard group's all-gathers and reduce-scatters, the replicas' all-reduce)."""
    n, m, r = inputs.whole("dp"), inputs.whole("microbatches"), _replicas(inputs)
    shards = n // r
    size = inputs.number("params") * inputs.number("wire-bytes")
    gather = _group("all-gather", shards, size, fabric, 3 * m)  # AG, AG, RS: same cost
    per_node = max(1, fabric.gpus_per_node // shards)  # one replica rank per shard group
    cost = ring("all-reduce", r, size / shards, fabric, per_node)
    across = Collectives(cost, 1, crossing(r, per_node, cost.moved, fabric))
    return gather, across


def _dp_comm(inputs: Inputs) -> dict[str, float]:
    fabric = Fabric.of(inputs)
    if inputs.text("strategy") == "hsdp":
        inside, across = _hsdp(inputs, fabric)
        groups = [inside, across]
        t_in, t_across = inside.cost.seconds, across.cost.seconds
        if inputs.text("overlap") == "on":  # the all-reduce runs beside the last backward
            seconds = (inside.times - 2) * t_in + max(2 * t_in, t_across)
        else:
            seconds = inside.times * t_in + t_across
    else:
        groups = _flat(inputs, fabric)
        seconds = sum(g.times * g.cost.seconds for g in groups)
    return {
        "time_ms": seconds * 1e3,
        "per_rank_gb": sum(g.times * g.cost.moved for g in groups) / GB,
        "inter_node_gb": sum(g.times * g.crossing for g in groups) / GB,
    }


def _rules(inputs: Inputs) -> None:
    n, per_node = inputs.whole("dp"), inputs.whole("gpus-per-node")
    check_nodes("dp", n, per_node)
    hsdp = inputs.text("strategy") == "hsdp"
    for flag in ("replicas", "overlap"):
        if flag in inputs.given and not hsdp:
            raise reject(flag, "applies to --strategy hsdp only")
    if "impl" in inputs.given and inputs.text("strategy") not in ("zero1", "zero2"):
        raise reject("impl", "applies to --strategy zero1 and zero2 only")
    r = _replicas(inputs)
    if n % r:
        raise reject("replicas", f"must divide --dp ({n})")
    shards = n // r
    if (shards < per_node and per_node % shards) or (shards > per_node and shards % per_node):
        raise reject(
            "replicas",
            f"--dp / --replicas ({shards}) must divide --gpus-per-node ({per_node}) or be a "
            "multiple of it",
        )


DP_COMM = Model(
    name="dp-comm",
    title="Data-parallel communication per optimizer step",
    help=(
        "Ring collectives per step, S = Ψ·b: ddp AR(S); zero1 RS + AG; zero2 m·RS + AG; zero3 "
        "(FSDP FULL_SHARD) m·(AG + AG + RS); --impl deepspeed reduces with AR; hsdp m·(AG + "
        "AG + RS) over N_d/R ranks plus one AR of S/(N_d/R) over R ranks. A ring spanning "
        "nodes runs at min(NVLink, NIC bandwidth per rank); HSDP's replicas share each node's "
        "NICs. inter_node_gb counts the bytes that leave each node."
    ),
    sources=(
        "Rajbhandari et al. 2020, ZeRO, §7 communication analysis "
        "(https://arxiv.org/abs/1910.02054)",
        "deepspeedai/DeepSpeed PR #4695: ZeRO-1/2 gradients by bucketed all-reduce "
        "(https://github.com/deepspeedai/DeepSpeed/pull/4695)",
        "pytorch/pytorch PR #126166: HSDP all-reduce once per step under accumulation "
        "(https://github.com/pytorch/pytorch/pull/126166)",
    ),
    params=(
        PARAMS,
        replace(DP, required=True, default=None),
        Param(
            "strategy",
            "",
            "ddp; zero1; zero2 (FSDP SHARD_GRAD_OP); zero3 (FSDP FULL_SHARD); hsdp",
            kind="choice",
            default="ddp",
            choices=("ddp", "zero1", "zero2", "zero3", "hsdp"),
        ),
        Param(
            "impl",
            "",
            "paper (ZeRO's reduce-scatter) or deepspeed (all-reduce, its default since 2023)",
            kind="choice",
            default="paper",
            choices=("paper", "deepspeed"),
        ),
        Param(
            "wire-bytes",
            "",
            "bytes per element on the wire (bf16: 2; fp32 gradients: 4)",
            unit="B",
            default=2.0,
            low=0.5,
            high=8,
        ),
        replace(MICROBATCHES, help="micro-batches per optimizer step (gradient accumulation)"),
        Param(
            "replicas",
            "R",
            "HSDP replicas (default: one per node, sharding inside each node)",
            kind="int",
            low=1,
            high=10_000_000,
        ),
        Param(
            "overlap",
            "",
            "HSDP: run the replicas' all-reduce beside the last backward's intra-group "
            "all-gather and reduce-scatter (it uses the NICs, they use NVLink)",
            kind="choice",
            default="off",
            choices=("off", "on"),
        ),
        ALPHA,
        replace(GPUS_PER_NODE, help="data-parallel ranks per node"),
        NVLINK,
        NIC,
        NICS,
    ),
    outputs=(
        Output("time_ms", "ms", "communication time per step, none of it hidden by compute"),
        Output("per_rank_gb", "GB", "bytes each rank sends per step"),
        Output("inter_node_gb", "GB", "bytes leaving each node per step"),
    ),
    formula=_dp_comm,
    rules=_rules,
)
