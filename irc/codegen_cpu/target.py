"""The host CPU as an LLVM target: target machine (CPU name and features), the O2 pipeline of
the new pass manager with loop and SLP vectorization, and object code / assembly emission.

`codegen_identity()` is what a cached object depends on besides the IR: the triple, the CPU
name and features, the llvmlite/LLVM versions and the code generator's own sources.
"""
from __future__ import annotations

import functools
from pathlib import Path

import llvmlite.binding as llvm
from llvmlite import ir

from ..base.compile_stages import LLVM_OPT, LLVM_TIER0, MACHINE_CODE, timed
from ..codegen_llvm.identity import llvm_versions, sources_hash
from ..codegen_llvm import optimize as llvm_optimize
from .speed_level import HOST_SPEED_LEVEL, SPEED_LEVEL_VARIABLE, speed_level  # noqa: F401  (re-exported)

# A function's launch code (its loops are kernels compiled apart) gets two passes and O1 code
# generation: the O2 pipeline took 0.73 s over a training step's ~5,000 lines of it (work
# estimates, clamps, context stores), these 0.11 s; its object is smaller (23 KB against 27)
# and no step slower (the MLP step of examples/dlt_programs.py: 14.0 µs on one thread either
# way). Unoptimized it took 0.02 s, but that step then ran 1.8 µs (13%) slower.
GLUE_PASSES = ("instruction_combine", "simplify_cfg")
GLUE_CODEGEN_LEVEL = 1
# Tier 0 (`config.compile_tiers`): the IR as it is, FastISel and the fast register allocator.
# Session 12, a first call with empty cache: the DLT MLP step's modules 1.7 s of LLVM -> 0.15 s
# (its step then runs 26 µs instead of 16 until the optimized code replaces it); instcombine
# and simplifycfg before codegen level 1 took 0.55 s and ran at 18 µs: not a tier 0.
TIER0_CODEGEN_LEVEL = 0


@functools.lru_cache(maxsize=None)
def _init() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


@functools.lru_cache(maxsize=None)
def host_target_machine() -> "llvm.TargetMachine":
    """The shared target machine for optimizing and emitting code (never give it to an engine:
    MCJIT takes ownership of its target machine; use `new_target_machine` there)."""
    return new_target_machine()


def new_target_machine() -> "llvm.TargetMachine":
    _init()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(), features=host_features(),
                                        opt=3, jit=True)


def host_features() -> str:
    """The host's features, with full-width vectors where it has AVX-512: LLVM's tuning for
    most AVX-512 cores prefers 256-bit vectors (older parts slowed their clock for 512-bit
    code), which halves the peak of the product kernels and leaves their 24 sums of a tile
    without registers (16 of 32 ymm per 8 lanes instead of 16 lanes per zmm)."""
    features = llvm.get_host_cpu_features()
    flat = features.flatten()
    return flat + ",-prefer-256-bit" if features.get("avx512f") else flat


@functools.lru_cache(maxsize=None)
def host_identity() -> str:
    """Everything besides the IR that changes the machine code."""
    _init()
    return "|".join((llvm.get_process_triple(), llvm.get_host_cpu_name(),
                     host_features(), llvm_versions()))


def codegen_identity() -> str:
    """`host_identity()`, a hash of the sources that turn loop IR into LLVM IR, and the
    optimization level."""
    return f"{_sources_identity()}|O{speed_level()}"


@functools.lru_cache(maxsize=None)
def _sources_identity() -> str:
    return host_identity() + "|" + sources_hash(Path(__file__).parent)


def parse_and_optimize(module: ir.Module | str) -> "llvm.ModuleRef":
    """Parse the llvmlite module (or its text) and run the O2 pipeline (with both vectorizers) over it."""
    with timed(LLVM_OPT):
        return llvm_optimize.parse_and_optimize(module, host_target_machine(), speed_level(),
                                                vectorize=True)


@functools.lru_cache(maxsize=None)
def jit_target_machine(codegen_level: int) -> "llvm.TargetMachine":
    """The host's target machine at a machine-code level: launch code (`glue_object`) and
    tier-0 code (`tier0_object`) have their own."""
    _init()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(), features=host_features(),
                                        opt=codegen_level, jit=True)


def glue_object(module: ir.Module | str) -> bytes:
    """Object code for a function's own module once its loops are kernels of their own
    (`kernel_split.py`): allocation, checks, the kernels' launches and their work estimates,
    run once per call; `GLUE_PASSES` instead of the O2 pipeline (see there)."""
    tm = jit_target_machine(GLUE_CODEGEN_LEVEL)
    with timed(LLVM_OPT):
        mod = llvm.parse_assembly(str(module))
        mod.triple = tm.triple
        mod.data_layout = str(tm.target_data)
        mod.verify()
        pm = llvm.create_new_module_pass_manager()
        for name in GLUE_PASSES:
            getattr(pm, f"add_{name}_pass")()
        pm.run(mod, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options()))
    with timed(MACHINE_CODE):
        return tm.emit_object(mod)


def tier0_object(module: ir.Module | str) -> bytes:
    """Object code for a module compiled as cheaply as LLVM can (no passes, FastISel): what a
    function runs until its optimized code is ready. Never cached: the cache holds optimized
    code only."""
    return _tier0(module, assembly=False)


def tier0_assembly(module: ir.Module | str) -> str:
    """The assembly of `tier0_object`'s code (`irc-opt -t asm-tier0`)."""
    return _tier0(module, assembly=True)


def _tier0(module: ir.Module | str, assembly: bool):
    tm = jit_target_machine(TIER0_CODEGEN_LEVEL)
    with timed(LLVM_TIER0):
        mod = llvm.parse_assembly(str(module))
        mod.triple = tm.triple
        mod.data_layout = str(tm.target_data)
        return tm.emit_assembly(mod) if assembly else tm.emit_object(mod)


def emit_object(mod: "llvm.ModuleRef") -> bytes:
    with timed(MACHINE_CODE):
        return host_target_machine().emit_object(mod)


def emit_assembly(mod: "llvm.ModuleRef") -> str:
    with timed(MACHINE_CODE):
        return host_target_machine().emit_assembly(mod)
