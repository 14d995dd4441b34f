"""How the kernel tests reach a block: Triton blocks imported as modules, CUDA blocks compiled.

Tests skip (with the reason printed by ``-ra``) only when a tool is really missing: no torch or
triton for the Triton blocks and the ports, no ``nvcc`` for compiling.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tools.kernels.blocks import KernelBlock, kernel_blocks, toolchain_env

_BUILD = Path(tempfile.mkdtemp(prefix="infracards-kernels-"))


@functools.cache
def blocks_by_name() -> dict[str, KernelBlock]:
    return {block.name: block for block in kernel_blocks()}


def block(name: str) -> KernelBlock:
    return blocks_by_name()[name]


def triton_module(name: str) -> ModuleType:
    """Import a ``triton`` block from a file: ``@triton.jit`` reads its function's source."""
    pytest.importorskip("torch", reason="the Triton blocks need torch (pip install -e '.[kernels]')")
    pytest.importorskip("triton", reason="the Triton blocks need triton (pip install -e '.[kernels]')")
    assert os.environ.get("TRITON_INTERPRET") == "1"
    _fix_interpreter_bf16_dot()
    return _import(block(name))


@functools.cache
def _fix_interpreter_bf16_dot() -> None:
    """Triton 3.9's interpreter keeps bf16 as raw uint16 and ``tl.dot`` multiplies those bits.

    The patched dot widens bf16 operands to fp32 first, which is what tensor cores compute
    (exact bf16 products, fp32 accumulation); every other dtype goes through unchanged.
    """
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    original = builder.create_dot

    def widen(handle: Any) -> Any:
        if handle.dtype.scalar != tl.bfloat16:
            return handle
        data = interpreter._convert_float(handle.data, tl.bfloat16, tl.float32, None)
        return interpreter.TensorHandle(data.view(np.float32), tl.float32)

    def create_dot(self: Any, a: Any, b: Any, d: Any, *args: Any) -> Any:
        return original(self, widen(a), widen(b), d, *args)

    builder.create_dot = create_dot  # type: ignore[method-assign]


@functools.cache
def _import(kernel: KernelBlock) -> ModuleType:
    path = _BUILD / f"{kernel.file_stem}.py"
    path.write_text(kernel.code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"answer_{kernel.file_stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def nvcc() -> str:
    found = shutil.which("nvcc")
    if found is None:
        pytest.skip("nvcc is not installed: the CUDA blocks are not compiled")
    return found


def run_nvcc(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [nvcc(), *args], capture_output=True, text=True, env=toolchain_env(), cwd=_BUILD, check=False
    )


def write_block(kernel: KernelBlock) -> Path:
    """The block as ``<card>_<kernel>.cu`` in the build folder (harnesses include it by that name)."""
    path = _BUILD / f"{kernel.file_stem}.cu"
    path.write_text(kernel.code, encoding="utf-8")
    return path
