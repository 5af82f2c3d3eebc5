"""The host CPU as an LLVM target: target machine (CPU name and features), the O3 pipeline of
the new pass manager with loop and SLP vectorization, and object code / assembly emission.

`codegen_identity()` is what a cached object depends on besides the IR: the triple, the CPU
name and features, the llvmlite/LLVM versions and the code generator's own sources.
"""
from __future__ import annotations

import functools

import llvmlite
import llvmlite.binding as llvm
from llvmlite import ir


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
                     host_features(), llvmlite.__version__,
                     ".".join(map(str, llvm.llvm_version_info))))


@functools.lru_cache(maxsize=None)
def codegen_identity() -> str:
    """`host_identity()` plus a hash of the sources that turn loop IR into LLVM IR (this
    package, the shared LLVM layer, and the elementwise table whose expansions `scalar_emit`
    emits): a cached object built by other code generation must not be loaded."""
    import hashlib
    from pathlib import Path
    here = Path(__file__).parent
    h = hashlib.sha256()
    sources = sorted(here.glob("*.py")) + sorted((here.parent / "codegen_llvm").glob("*.py"))
    for path in sources + [here.parent / "dialects" / "elementwise.py"]:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return host_identity() + "|" + h.hexdigest()[:16]


def parse_and_optimize(module: ir.Module) -> "llvm.ModuleRef":
    """Parse the llvmlite module and run the O3 pipeline (with both vectorizers) over it."""
    tm = host_target_machine()
    mod = llvm.parse_assembly(str(module))
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    mod.verify()
    pto = llvm.create_pipeline_tuning_options()
    pto.speed_level = 3
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return mod


def emit_object(mod: "llvm.ModuleRef") -> bytes:
    return host_target_machine().emit_object(mod)


def emit_assembly(mod: "llvm.ModuleRef") -> str:
    return host_target_machine().emit_assembly(mod)
