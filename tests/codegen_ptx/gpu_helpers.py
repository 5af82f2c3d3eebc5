"""Shared by the GPU-level tests: modules built from MLIR text, lowered for the GPU, their PTX
assembled by ptxas, and their functions run in the kernel emulator."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from irc.codegen_ptx.convert_to_nvvm import convert_to_nvvm
from irc.codegen_ptx.pipeline import lower_for_gpu
from irc.codegen_ptx.target import emit_ptx
from irc.ir.parser import parse_module

ARCHS = ("sm_80", "sm_90")
needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (CUDA) is not on PATH")


def gpu_module(text: str):
    return lower_for_gpu(parse_module(text))


def assemble(ptx: str, arch: str) -> None:
    """ptxas must accept the PTX (the proof that it is valid without a GPU). At -O0: ptxas still
    parses and checks every instruction, allocates registers and writes the machine code; its
    optimizer, which the check does not need, was a sixth of these tests' CPU time."""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d, "k.ptx")
        src.write_text(ptx)
        r = subprocess.run(["ptxas", "-O0", f"-arch={arch}", str(src), "-o", str(Path(d, "k.cubin"))],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[:2000]


def check_ptx(module) -> dict[str, str]:
    """Assemble the module's kernels for every arch; the PTX per arch (`compile_kernels` for
    each, its NVVM IR converted once: the conversion does not depend on the arch)."""
    nvvm = convert_to_nvvm(module)
    out = {}
    for arch in ARCHS:
        out[arch] = emit_ptx(nvvm, arch)
        assemble(out[arch], arch)
    return out
