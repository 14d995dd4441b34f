"""Collective time under the α-β model, on nodes of G GPUs joined by NICs.

A collective of n ranks costs steps·α + bytes·β. Ring all-reduce takes 2(n−1) steps and moves
2(n−1)/n of the buffer per rank; reduce-scatter and all-gather half of that (nccl-tests,
PERFORMANCE.md). Inside a node the bytes go over NVLink. A ring that spans nodes crosses each
node boundary once per channel, so the node's NICs together carry one rank's share: the ring
runs at min(NVLink, the NIC bandwidth left to it) (NCCL issues #530, #687). nccl-tests reports
busbw = algbw × 2(n−1)/n for all-reduce, × (n−1)/n for the others; for a ring busbw equals
the bandwidth the ring ran at.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from infracards.calc.common import ALPHA, GB, GPUS_PER_NODE, NIC, NICS, NVLINK
from infracards.calc.spec import Inputs, Model, Output, Param, reject

ALGORITHMS = {
    "all-reduce": ("ring", "tree", "rhd", "one-shot", "two-shot"),
    "reduce-scatter": ("ring", "rhd"),
    "all-gather": ("ring", "rhd"),
    "all-to-all": ("pairwise", "bruck"),
}
"""The algorithms each operation can use; the first is the default."""


@dataclass(frozen=True, slots=True)
class Fabric:
    """Per-GPU NVLink, each node's NICs, the latency per step; all GPUs of a node communicate
    at once in collectives of the same shape, so they share the NICs."""

    gpus_per_node: int
    nvlink: float
    """Bytes/s one GPU sends inside its node."""
    nics: float
    """Bytes/s all of a node's NICs send together."""
    alpha: float
    """Seconds per step."""

    @classmethod
    def of(cls, inputs: Inputs) -> Fabric:
        return cls(
            gpus_per_node=inputs.whole("gpus-per-node"),
            nvlink=inputs.number("nvlink") * GB,
            nics=inputs.whole("nics") * inputs.number("nic") * GB,
            alpha=inputs.number("alpha") * 1e-6,
        )

    def nic_share(self, per_node: int) -> float:
        """Bytes/s of NIC a collective with ``per_node`` ranks on each node gets."""
        return self.nics * per_node / self.gpus_per_node

    def ring_bandwidth(self, ranks: int, per_node: int) -> float:
        if ranks <= per_node:
            return self.nvlink
        return min(self.nvlink, self.nic_share(per_node))


@dataclass(frozen=True, slots=True)
class Cost:
    """One collective: latency and transfer seconds, bytes each rank sends (or reads)."""

    latency: float
    transfer: float
    moved: float

    @property
    def seconds(self) -> float:
        return self.latency + self.transfer


def ring(op: str, ranks: int, size: float, fabric: Fabric, per_node: int) -> Cost:
    """Ring all-reduce, reduce-scatter or all-gather of ``size`` bytes (nccl-tests' size)."""
    rounds = 2 if op == "all-reduce" else 1
    moved = rounds * (ranks - 1) / ranks * size
    return Cost(
        latency=rounds * (ranks - 1) * fabric.alpha,
        transfer=moved / fabric.ring_bandwidth(ranks, per_node),
        moved=moved,
    )


def crossing(ranks: int, per_node: int, moved: float, fabric: Fabric) -> float:
    """Bytes leaving each node for ring collectives of this shape (one per GPU group)."""
    if ranks <= per_node:
        return 0.0
    return moved * fabric.gpus_per_node / per_node


def _bruck_bytes(ranks: int, size: float) -> float:
    """Bruck sends, at the step for bit 2^k, every block whose index (0..n−1) has that bit."""
    blocks = 0
    for k in range(math.ceil(math.log2(ranks))):
        bit = 1 << k
        blocks += ranks // (2 * bit) * bit + max(0, ranks % (2 * bit) - bit)
    return blocks * size / ranks


def collective(op: str, algo: str, ranks: int, size: float, fabric: Fabric) -> Cost:
    """One ``op`` of ``size`` bytes over ``ranks`` ranks that fill nodes of the fabric."""
    per_node = min(ranks, fabric.gpus_per_node)
    bandwidth = fabric.ring_bandwidth(ranks, per_node)
    log_steps = math.ceil(math.log2(ranks))
    if algo == "ring":
        return ring(op, ranks, size, fabric, per_node)
    if algo == "rhd":  # recursive halving (and doubling): log2 n steps a phase, same bytes
        rounds = 2 if op == "all-reduce" else 1
        moved = rounds * (ranks - 1) / ranks * size
        return Cost(rounds * log_steps * fabric.alpha, moved / bandwidth, moved)
    if algo == "tree":  # pipelined double binary tree: reduce up, broadcast down
        return Cost(2 * log_steps * fabric.alpha, 2 * size / bandwidth, 2 * size)
    if algo == "one-shot":  # one barrier, then read every peer's whole buffer over NVLink
        moved = (ranks - 1) * size
        return Cost(fabric.alpha, moved / fabric.nvlink, moved)
    if algo == "two-shot":  # direct-read reduce-scatter, then direct-read all-gather
        moved = 2 * (ranks - 1) / ranks * size
        return Cost(2 * fabric.alpha, moved / fabric.nvlink, moved)
    if algo == "bruck":
        moved = _bruck_bytes(ranks, size)
        slowest = fabric.nvlink if ranks <= per_node else min(fabric.nvlink, fabric.nic_share(1))
        return Cost(log_steps * fabric.alpha, moved / slowest, moved)
    # pairwise all-to-all: n−1 exchanges; blocks for other nodes go through the NICs
    local = (per_node - 1) / ranks * size
    remote = (ranks - per_node) / ranks * size
    transfer = max(local / fabric.nvlink, remote / fabric.nic_share(1) if remote else 0.0)
    return Cost((ranks - 1) * fabric.alpha, transfer, local + remote)


BUSBW_FACTOR = {
    "all-reduce": lambda n: 2 * (n - 1) / n,
    "reduce-scatter": lambda n: (n - 1) / n,
    "all-gather": lambda n: (n - 1) / n,
    "all-to-all": lambda n: (n - 1) / n,
}
"""nccl-tests' busbw = algbw × factor (doc/PERFORMANCE.md, Summary)."""


def _algorithm(inputs: Inputs) -> str:
    chosen = inputs["algo"]
    return ALGORITHMS[inputs.text("op")][0] if chosen is None else inputs.text("algo")


def _collective(inputs: Inputs) -> dict[str, float]:
    op, ranks, size = inputs.text("op"), inputs.whole("ranks"), inputs.number("bytes")
    cost = collective(op, _algorithm(inputs), ranks, size, Fabric.of(inputs))
    count = inputs.whole("count")
    algbw = size / cost.seconds
    return {
        "time_ms": count * cost.seconds * 1e3,
        "latency_ms": count * cost.latency * 1e3,
        "transfer_ms": count * cost.transfer * 1e3,
        "per_rank_gb": count * cost.moved / GB,
        "algbw_gbs": algbw / GB,
        "busbw_gbs": algbw * BUSBW_FACTOR[op](ranks) / GB,
    }


def check_nodes(flag: str, ranks: int, gpus_per_node: int) -> None:
    """Ranks fill whole nodes, or fit in one."""
    if ranks > gpus_per_node and ranks % gpus_per_node:
        raise reject(flag, f"must be at most --gpus-per-node ({gpus_per_node}) or a multiple")


def _rules(inputs: Inputs) -> None:
    op, ranks = inputs.text("op"), inputs.whole("ranks")
    check_nodes("ranks", ranks, inputs.whole("gpus-per-node"))
    algo = _algorithm(inputs)
    if algo not in ALGORITHMS[op]:
        raise reject("algo", f"{algo} does not do {op}; use one of {', '.join(ALGORITHMS[op])}")
    if algo == "rhd" and ranks & (ranks - 1):
        raise reject("ranks", "must be a power of two for --algo rhd")
    if algo in ("one-shot", "two-shot") and ranks > inputs.whole("gpus-per-node"):
        raise reject("algo", f"{algo} reads peers' memory over NVLink: ranks must share a node")


COLLECTIVE = Model(
    name="collective",
    title="Time of one collective (α-β model)",
    help=(
        "steps·α + bytes·β for ring, tree, recursive halving-doubling (rhd), one-shot and "
        "two-shot all-reduce, ring or rhd reduce-scatter and all-gather, pairwise or Bruck "
        "all-to-all. --bytes is nccl-tests' size: the all-reduce buffer, reduce-scatter's whole "
        "input (n × its output), all-gather's whole output, all-to-all's send buffer. algbw = "
        "size / time; busbw = algbw × 2(n−1)/n (all-reduce) or (n−1)/n."
    ),
    sources=(
        "NVIDIA/nccl-tests doc/PERFORMANCE.md: algbw, busbw and their factors "
        "(https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)",
        "Thakur, Rabenseifner, Gropp 2005, Optimization of Collective Communication "
        "Operations in MPICH (https://doi.org/10.1177/1094342005051521)",
    ),
    params=(
        Param(
            "op",
            "",
            "the collective",
            kind="choice",
            default="all-reduce",
            choices=tuple(ALGORITHMS),
        ),
        Param(
            "algo",
            "",
            "algorithm (default: ring; pairwise for all-to-all)",
            kind="choice",
            choices=tuple(dict.fromkeys(a for algos in ALGORITHMS.values() for a in algos)),
        ),
        Param("ranks", "n", "ranks in the collective", kind="int", required=True, low=2, high=1e7),
        Param(
            "bytes",
            "M",
            "message size per rank in bytes, as nccl-tests' size",
            unit="B",
            required=True,
            low=1,
            high=1e15,
        ),
        Param(
            "count",
            "",
            "collectives of this size run one after another (4 all-reduces a TP layer)",
            kind="int",
            default=1,
            low=1,
            high=1_000_000,
        ),
        ALPHA,
        GPUS_PER_NODE,
        NVLINK,
        NIC,
        NICS,
    ),
    outputs=(
        Output("time_ms", "ms", "time of --count collectives"),
        Output("latency_ms", "ms", "the α part of it"),
        Output("transfer_ms", "ms", "the bandwidth part of it"),
        Output("per_rank_gb", "GB", "bytes each rank sends (one-shot: reads)"),
        Output("algbw_gbs", "GB/s", "algorithm bandwidth of one: size / time"),
        Output("busbw_gbs", "GB/s", "nccl-tests' bus bandwidth of one"),
    ),
    formula=_collective,
    rules=_rules,
)
