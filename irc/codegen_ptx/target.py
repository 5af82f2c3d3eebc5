"""NVPTX as an LLVM target: a target machine for `sm_XX` at O3, PTX text, the guard against
intrinsics that crash the backend, and the key a PTX cache files its entries under.

The NVPTX backend *aborts the whole process* ("no libcall available") on `llvm.exp.*`,
`llvm.log.*` and the other libm intrinsics: `check_intrinsics` refuses such a module with a
clear error before LLVM sees it, so a code-generation mistake can never kill the interpreter.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import llvmlite.binding as llvm
from llvmlite import ir

from ..codegen_llvm.identity import llvm_versions, sources_hash
from ..codegen_llvm.optimize import parse_and_optimize as parse_and_optimize_llvm
from . import dependent_launch

# libm-style intrinsics NVPTX has no lowering for (it aborts instead of failing)
FORBIDDEN_PREFIXES = ("llvm.exp.", "llvm.exp10.", "llvm.log.", "llvm.log2.", "llvm.log10.",
                      "llvm.pow.", "llvm.powi.", "llvm.sin.", "llvm.cos.", "llvm.tan.",
                      "llvm.asin.", "llvm.acos.", "llvm.atan.", "llvm.sinh.", "llvm.cosh.",
                      "llvm.tanh.", "llvm.ldexp.", "llvm.frexp.")


class ForbiddenIntrinsicError(RuntimeError):
    """The module calls something the NVPTX backend cannot lower (and would abort on)."""


@functools.lru_cache(maxsize=None)
def _init() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


@functools.lru_cache(maxsize=None)
def target_machine(arch: str) -> "llvm.TargetMachine":
    """The NVPTX target machine for `arch` ("sm_80", "sm_90", ...) at O3."""
    _init()
    if not arch.startswith("sm_") or not arch[3:].rstrip("a").isdigit():
        raise ValueError(f"unknown CUDA architecture '{arch}' (expected e.g. 'sm_80' or 'sm_90')")
    return llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(cpu=arch, opt=3)


def check_intrinsics(module: ir.Module) -> None:
    """Refuse a module that declares a function NVPTX cannot lower: a forbidden libm
    intrinsic, or any external non-intrinsic function (there is no libm on the device)."""
    for g in module.globals.values():
        if not isinstance(g, ir.Function) or g.blocks:
            continue
        name = g.name
        if name.startswith(FORBIDDEN_PREFIXES) or not name.startswith("llvm."):
            raise ForbiddenIntrinsicError(
                f"convert-to-nvvm emitted a call to '{name}', which the NVPTX backend cannot lower "
                f"(it would abort the process); this is a code generator bug: the math must come "
                f"from irc.codegen_ptx.mathlib_nvptx")


def optimize(module: ir.Module, arch: str) -> "llvm.ModuleRef":
    """Parse and run the O3 pipeline (after the intrinsic guard)."""
    check_intrinsics(module)
    return parse_and_optimize_llvm(module, target_machine(arch), speed_level=3)


class UnsupportedLLVMError(RuntimeError):
    """The installed llvmlite's LLVM does not know an NVVM intrinsic irc emits."""


def emit_ptx(module: ir.Module, arch: str) -> str:
    """PTX text of `module` for `arch`, its kernels launchable as dependents on sm_90+. An
    NVVM intrinsic this LLVM does not know comes out as an external function the PTX
    assembler rejects: refused here with the reason."""
    ptx = target_machine(arch).emit_assembly(optimize(module, arch))
    for line in ptx.splitlines():
        if line.startswith(".extern .func") and "llvm.nvvm." in line:
            name = line[line.index("llvm.nvvm."):].split()[0]
            raise UnsupportedLLVMError(
                f"the LLVM of llvmlite {llvm_versions()} does not know the intrinsic '{name}' "
                f"(the PTX would not assemble); the GPU backend needs llvmlite >= 0.50 - note that "
                f"numba pins older versions")
    return dependent_launch.add_prologue(ptx) if dependent_launch.supports(arch) else ptx


@functools.lru_cache(maxsize=None)
def codegen_identity() -> str:
    """What a cached PTX depends on besides the kernel IR and the arch: the llvmlite/LLVM
    versions and a hash of the sources that turn kernel IR into PTX."""
    return llvm_versions() + "|" + sources_hash(Path(__file__).parent)


def ptx_cache_key(kernel_ir: str, arch: str) -> str:
    """A stable key for the PTX of `kernel_ir` (the kernels' MLIR text) on `arch`."""
    h = hashlib.sha256()
    for part in (kernel_ir, arch, codegen_identity()):
        h.update(part.encode() + b"\0")
    return h.hexdigest()
