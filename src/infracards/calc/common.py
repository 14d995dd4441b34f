"""Parameters several models share: one flag, one symbol, one range wherever they appear.

Symbols follow the deck's notation page. Ranges reject nonsense early ("1e30 parameters") and
keep every output finite; a model that needs a different default or help uses
``dataclasses.replace`` on these.
"""

from __future__ import annotations

from infracards.calc.spec import Param

GB = 1e9
"""Outputs are in GB = 10⁹ bytes, as the papers' figures are (GiB = 2³⁰ B is never used)."""

PARAMS = Param(
    "params",
    "Ψ",
    "model parameters, all of them, before any split",
    required=True,
    low=1,
    high=1e15,
)
TP = Param("tp", "t", "tensor-parallel size", kind="int", default=1, low=1, high=1024)
PP = Param("pp", "p", "pipeline-parallel stages", kind="int", default=1, low=1, high=4096)
VIRTUAL = Param(
    "virtual",
    "v",
    "model chunks per pipeline rank (interleaved 1F1B)",
    kind="int",
    default=1,
    low=1,
    high=1024,
)
DP = Param("dp", "N_d", "data-parallel degree", kind="int", default=1, low=1, high=10_000_000)
MICROBATCHES = Param(
    "microbatches",
    "m",
    "micro-batches per optimizer step (per pipeline)",
    kind="int",
    default=1,
    low=1,
    high=1_000_000,
)
LAYERS = Param("layers", "L", "transformer layers", kind="int", required=True, low=1, high=100_000)
SEQ = Param("seq", "s", "sequence length (tokens)", kind="int", required=True, low=1, high=1e8)
HIDDEN = Param("hidden", "h", "hidden size", kind="int", required=True, low=1, high=1_000_000)
RECOMPUTE = Param(
    "recompute",
    "",
    "activation recomputation: none; selective (the attention core only, Korthikanti et "
    "al. 2022); full (every layer from its input)",
    kind="choice",
    default="none",
    choices=("none", "selective", "full"),
)

# The fabric a collective runs on (defaults: H100/H200 nodes of 8 GPUs and 8 × 400 Gb/s NICs).
ALPHA = Param(
    "alpha",
    "α",
    "latency per step of a collective (per message), microseconds; 0 keeps only the bandwidth term",
    unit="µs",
    default=0.0,
    low=0,
    high=1e6,
)
GPUS_PER_NODE = Param(
    "gpus-per-node",
    "G",
    "ranks of the collective on one node; all of a node's GPUs run collectives of this shape "
    "at once, so they share its NICs",
    kind="int",
    default=8,
    low=1,
    high=1024,
)
NVLINK = Param(
    "nvlink",
    "β⁻¹ (NVLink)",
    "per-GPU bandwidth inside a node, one direction (H100 NVLink4: 450 line rate; the deck's "
    "all-reduce busbw 360, nccl-tests issue #212 measures about 370)",
    unit="GB/s",
    default=360.0,
    low=1e-3,
    high=1e5,
)
NIC = Param(
    "nic",
    "β⁻¹ (NIC)",
    "bandwidth of one NIC, one direction (400 Gb/s NDR: 50 line rate, 46–48 measured, "
    "nccl-tests issue #290)",
    unit="GB/s",
    default=45.0,
    low=1e-3,
    high=1e5,
)
NICS = Param("nics", "", "NICs per node", kind="int", default=8, low=1, high=1024)
