"""Build the answers' kernels with their GPU harnesses; on a GPU, run, time and sanitize them.

``tools/kernels-on-gpu`` is the command; the test suite calls ``build`` to prove, without a
GPU, that every CUDA block compiles and links inside its harness with the card's own flags.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tools.kernels.blocks import ROOT, KernelBlock, kernel_blocks, toolchain_env

HARNESSES = Path(__file__).resolve().parent
BUILD = ROOT / "build" / "kernels"
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck")


@dataclass(frozen=True)
class Built:
    kernel: KernelBlock
    executable: Path
    ok: bool
    log: str


def harness_for(kernel: KernelBlock) -> Path:
    return HARNESSES / f"{kernel.file_stem}_main.cu"


def link_flags(harness: Path, env: dict[str, str]) -> list[str]:
    """The harness's ``// link: ...`` first line, with ``$VARS`` from ``env``."""
    first = harness.read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith("// link:"):
        return []

    def expand(match: re.Match[str]) -> str:
        if match.group(1) not in env:
            raise ValueError(f"{harness.name} links with ${match.group(1)}, which is not set")
        return env[match.group(1)]

    return shlex.split(re.sub(r"\$(\w+)", expand, first.removeprefix("// link:")))


def build(kernel: KernelBlock, out: Path = BUILD) -> Built:
    """Compile and link the block's harness with the flags of the block's first line."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise RuntimeError("nvcc is not installed")
    env = toolchain_env()
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{kernel.file_stem}.cu").write_text(kernel.code, encoding="utf-8")
    harness = harness_for(kernel)
    executable = out / kernel.file_stem
    command = [
        nvcc,
        *kernel.nvcc_flags(env),
        f"-I{out}",
        f"-I{HARNESSES}",
        str(harness),
        "-o",
        str(executable),
        *link_flags(harness, env),
    ]
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    log = shlex.join(command) + "\n" + result.stdout + result.stderr
    return Built(kernel, executable, result.returncode == 0, log)


def run(command: list[str], timeout: int) -> tuple[bool, str]:
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout} s (a barrier that never met?)"
    return result.returncode == 0, (result.stdout + result.stderr).strip()


def run_triton(timeout: int) -> bool:
    """The Triton blocks on the GPU against torch, with timings (tools/kernels/triton_gpu.py)."""
    ok, output = run([sys.executable, str(HARNESSES / "triton_gpu.py")], timeout)
    print(output)
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/kernels-on-gpu", description=__doc__)
    parser.add_argument("--build-only", action="store_true", help="compile and link, run nothing")
    parser.add_argument("--no-sanitizer", action="store_true", help="skip compute-sanitizer")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per run (default 300)")
    parser.add_argument("names", nargs="*", help="only these blocks, e.g. q19/ring_collective")
    args = parser.parse_args(argv)
    cuda = [b for b in kernel_blocks() if b.language == "cuda"]
    cuda = [b for b in cuda if not args.names or b.name in args.names]
    failed: list[str] = []
    for kernel in cuda:
        try:
            built = build(kernel)
        except (RuntimeError, ValueError) as error:  # no nvcc, no $NVSHMEM_HOME
            print(f"== {kernel.name}: cannot build: {error}")
            failed.append(f"{kernel.name} build")
            continue
        print(f"== {kernel.name}: {'built' if built.ok else 'BUILD FAILED'} ({built.executable})")
        if not built.ok:
            print(built.log)
            failed.append(f"{kernel.name} build")
            continue
        if args.build_only:
            continue
        ok, output = run([str(built.executable)], args.timeout)
        print(output)
        if not ok:
            failed.append(f"{kernel.name} run")
        if args.no_sanitizer:
            continue
        for tool in SANITIZER_TOOLS:
            command = ["compute-sanitizer", "--tool", tool, "--error-exitcode", "3"]
            ok, output = run([*command, str(built.executable), "--sanitize"], args.timeout)
            print(f"   compute-sanitizer {tool}: {'clean' if ok else 'ERRORS'}")
            if not ok:
                print(output[-4000:])
                failed.append(f"{kernel.name} {tool}")
    if not args.build_only and not args.names and not run_triton(args.timeout):
        failed.append("triton kernels")
    print("failed: " + ", ".join(failed) if failed else "all kernels passed")
    return 1 if failed else 0
