"""How the kernel tests reach a block: Triton blocks imported as modules, CUDA blocks compiled.

Tests skip (with the reason printed by ``-ra``) only when a tool is really missing: no torch or
triton for the Triton blocks and the ports, no ``nvcc`` for compiling.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tools.kernels.blocks import KernelBlock, kernel_blocks

_BUILD = Path(tempfile.mkdtemp(prefix="infracards-kernels-"))
atexit.register(shutil.rmtree, _BUILD, ignore_errors=True)


@functools.cache
def blocks_by_name() -> dict[str, KernelBlock]:
    return {block.name: block for block in kernel_blocks()}


def block(name: str) -> KernelBlock:
    return blocks_by_name()[name]


def triton_module(name: str) -> ModuleType:
    """Import a ``triton`` block from a file: ``@triton.jit`` reads its function's source."""
    pytest.importorskip(
        "torch", reason="the Triton blocks need torch (pip install -e '.[kernels]')"
    )
    pytest.importorskip(
        "triton", reason="the Triton blocks need triton (pip install -e '.[kernels]')"
    )
    assert os.environ.get("TRITON_INTERPRET") == "1"
    _fix_interpreter()
    return _import(block(name))


@functools.cache
def _fix_interpreter() -> None:
    """Two bugs of Triton 3.9's interpreter that are not our kernels' (the GPU has neither).

    - It keeps bf16 as raw uint16 and ``tl.dot`` multiplies those bits. The patched dot widens
      bf16 operands to fp32 first, which is what tensor cores compute (exact bf16 products,
      fp32 accumulation).
    - Its fp32 -> fp8 e4m3 cast loses the carry when rounding up crosses a power of two
      (124.7 becomes 64, not 128). The patched cast rounds as the GPU's cvt.rn.satfinite does,
      through torch's float8_e4m3fn.
    Every other dtype and cast goes through unchanged. (Its fp32 -> bf16 cast truncates where
    the GPU rounds to nearest: that one is kept, and the bf16 checks allow for it.)
    """
    import numpy as np
    import torch
    import triton.language as tl  # type: ignore[import-untyped]
    from triton.runtime import interpreter  # type: ignore[import-untyped]

    builder = interpreter.InterpreterBuilder
    original = builder.create_dot
    original_fp_to_fp = builder.create_fp_to_fp

    def create_fp_to_fp(self: Any, src: Any, dst_type: Any, rounding_mode: Any) -> Any:
        if dst_type.scalar != tl.float8e4nv or src.dtype.scalar != tl.float32:
            return original_fp_to_fp(self, src, dst_type, rounding_mode)
        wide = torch.from_numpy(np.ascontiguousarray(src.data, dtype=np.float32))
        bits = wide.to(torch.float8_e4m3fn).view(torch.uint8).numpy()
        return interpreter.TensorHandle(bits, tl.float8e4nv)

    builder.create_fp_to_fp = create_fp_to_fp  # type: ignore[method-assign]

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
