"""Every kernel block of the deck is checked, and every CUDA block compiles as its card says."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tests.kernels.toolchain import run_nvcc, write_block
from tools.kernels.blocks import kernel_blocks, toolchain_env

CHECK_MODULES = sorted(p.stem for p in Path(__file__).parent.glob("test_q*.py"))
CUDA_BLOCKS = [b for b in kernel_blocks() if b.language == "cuda"]


def claimed_blocks() -> list[str]:
    """The blocks the check modules say they test (their ``CHECKS``)."""
    names: list[str] = []
    for stem in CHECK_MODULES:
        names.extend(importlib.import_module(f"tests.kernels.{stem}").CHECKS)
    return names


def test_every_kernel_block_has_exactly_one_check() -> None:
    """A block added to an answer fails here until a test checks it; a renamed one too."""
    blocks = {b.name for b in kernel_blocks()}
    claimed = claimed_blocks()
    assert sorted(blocks - set(claimed)) == [], "kernel blocks that no test checks"
    assert sorted(set(claimed) - blocks) == [], "checks of blocks that no answer has"
    assert len(claimed) == len(set(claimed)), "a block claimed twice"


@pytest.mark.parametrize("kernel", CUDA_BLOCKS, ids=lambda b: b.name)
def test_cuda_block_compiles_with_the_line_it_prints(kernel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source = write_block(kernel)
    flags = kernel.nvcc_flags(toolchain_env())
    result = run_nvcc([*flags, "-c", str(source), "-o", str(tmp_path / "block.o")])
    assert result.returncode == 0, f"{kernel.compile_line()}\n{result.stderr}"
