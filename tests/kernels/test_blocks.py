"""Every kernel block of the deck is checked, and every CUDA block compiles as its card says."""

from __future__ import annotations

import importlib
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.kernels.toolchain import nvcc
from tools.kernels.blocks import KernelBlock, kernel_blocks, nvshmem_home
from tools.kernels.gpu import HARNESSES, Built, build, harness_for

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


def test_every_cuda_block_has_a_gpu_harness_and_every_harness_a_block() -> None:
    harnesses = {p.name for p in HARNESSES.glob("*_main.cu")}
    assert harnesses == {harness_for(b).name for b in CUDA_BLOCKS}


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Future[Built]]:
    """All harness builds at once, two at a time (nvcc is single-threaded)."""
    nvcc()
    out = tmp_path_factory.mktemp("kernels")
    pool = ThreadPoolExecutor(max_workers=2)
    return {b.name: pool.submit(build, b, out) for b in CUDA_BLOCKS}


@pytest.mark.parametrize("kernel", CUDA_BLOCKS, ids=lambda b: b.name)
def test_cuda_block_compiles_and_links_in_its_harness_with_the_line_it_prints(
    kernel: KernelBlock, builds: dict[str, Future[Built]]
) -> None:
    """The harness includes the block first, so the block compiles on its own includes.

    The flags are the card's first line (``nvcc -arch=sm_90 ...``); the harness instantiates
    the templates and adds only its main() and its link flags (NVSHMEM's for q25).
    """
    if "$NVSHMEM_HOME" in kernel.compile_line() and nvshmem_home() is None:
        pytest.skip("NVSHMEM is not installed (pip install -e '.[kernels]' brings it)")
    built = builds[kernel.name].result()
    assert built.ok, built.log
    assert built.executable.is_file()
