"""The `cpu` target: native code through `codegen_cpu` (per-op timers compiled in when
profiling), the reference executor only for ops with no lowering (with a warning)."""
from __future__ import annotations

from typing import Any

from ..codegen_cpu.emit import emit_asm, emit_llvm_ir, emit_llvm_ir_unoptimized
from .native_executor import make_cpu_executor
from .profile_native import make_profiled_cpu_executor
from .targets import Target, register_target


def compile_for_cpu(module: Any, func: Any, config: Any, profiling: bool) -> tuple[Any, Any]:
    if profiling:
        return make_profiled_cpu_executor(module, func, config.allow_gc)
    return make_cpu_executor(module, func, config.allow_gc)


CPU = Target("cpu", None, compile_for_cpu,
             stages={"llvm-raw": emit_llvm_ir_unoptimized, "llvm": emit_llvm_ir, "asm": emit_asm},
             dump_stages=("llvm-raw", "llvm"))
register_target(CPU)
