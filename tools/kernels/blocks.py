"""The hand-written kernels of the Module 03 answers, as the tests and the GPU script see them.

A kernel is a fenced block whose language is ``cuda`` or ``triton`` (Triton is Python; the
fence says ``triton`` so that it is found here and not executed as a plain Python block).
Every CUDA block starts with the line that compiles it, ``// nvcc -arch=sm_90 ... name.cu``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from infracards.services.publish import load_source

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "deck" / "source" / "module03"
# A fenced block: its indent, its language, its text (the closing fence has the same indent).
FENCE = re.compile(r"^( *)```(\w*)[^\n]*\n(.*?)^\1```\s*$", re.M | re.S)
KERNEL_LANGUAGES = ("cuda", "triton")
_CUDA_KERNEL = re.compile(
    r"__global__\s+(?:void\s+)?(?:__launch_bounds__\([^)]*\)\s+)?(?:void\s+)?(\w+)\s*\("
)
_TRITON_KERNEL = re.compile(r"@triton\.jit[^\n]*\n\s*def\s+(\w+)\s*\(")


@dataclass(frozen=True)
class KernelBlock:
    """One ``cuda`` or ``triton`` block of one answer."""

    card_id: str
    language: str
    code: str
    kernels: tuple[str, ...]  # the __global__ / @triton.jit functions it defines, in order

    @property
    def name(self) -> str:
        """``q25/one_shot_allreduce``: the card and the block's first kernel."""
        return f"{self.card_id}/{self.kernels[0]}"

    @property
    def file_stem(self) -> str:
        return f"{self.card_id}_{self.kernels[0]}"

    def compile_line(self) -> str:
        """The block's first line without ``//``: ``nvcc -arch=sm_90 ... name.cu``."""
        first = self.code.splitlines()[0].strip()
        if self.language != "cuda" or not re.fullmatch(r"//\s*nvcc\s.*\.cu\b.*", first):
            raise ValueError(f"{self.name}: a CUDA block starts with '// nvcc ... file.cu'")
        return first.removeprefix("//").strip()

    def nvcc_flags(self, env: Mapping[str, str]) -> list[str]:
        """The compile line's flags, without ``nvcc``, ``-c`` and the source file.

        ``$VARS`` come from ``env`` (see ``toolchain_env``), so that the tests and the GPU script
        run the very command the card prints.
        """

        def expand(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            if name not in env:
                raise ValueError(f"{self.name}: the compile line needs ${name}")
            return env[name]

        line = re.sub(r"\$(?:\{(\w+)\}|(\w+))", expand, self.compile_line())
        words = shlex.split(line)[1:]
        return [w for w in words if not w.endswith(".cu") and w != "-c"]


def kernel_blocks(source: Path = SOURCE) -> list[KernelBlock]:
    """Every kernel block of the deck, in card order."""
    blocks = []
    for card in load_source(source).cards:
        for _indent, language, code in FENCE.findall(card.answer):
            if language not in KERNEL_LANGUAGES:
                continue
            pattern = _CUDA_KERNEL if language == "cuda" else _TRITON_KERNEL
            names = tuple(pattern.findall(code))
            if not names:
                raise ValueError(f"{card.card_id}: a {language} block that defines no kernel")
            blocks.append(KernelBlock(card.card_id, language, textwrap.dedent(code), names))
    return blocks


def toolchain_env() -> dict[str, str]:
    """The environment the cards' compile lines expect: ``$NVSHMEM_HOME`` for NVSHMEM code."""
    env = dict(os.environ)
    home = nvshmem_home()
    if home is not None:
        env["NVSHMEM_HOME"] = home
    return env


def nvshmem_home() -> str | None:
    """``$NVSHMEM_HOME``, else the NVSHMEM that pip installed (``nvidia-nvshmem-cu13``)."""
    if os.environ.get("NVSHMEM_HOME"):
        return os.environ["NVSHMEM_HOME"]
    try:
        spec = importlib.util.find_spec("nvidia.nvshmem")
    except ModuleNotFoundError:
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return str(Path(next(iter(spec.submodule_search_locations))))
