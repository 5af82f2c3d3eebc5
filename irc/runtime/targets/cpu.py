"""The `cpu` target: tensors on the host, native code through `codegen_cpu` and llvmlite.

llvmlite is imported when the target first compiles or renders, not with the table, so that
`irc-opt` and the frontend start without it."""
from __future__ import annotations

from typing import Any

from ...base.device import CPU
from ...ir.core import Operation
from ...ir.pass_base import Pass
from .base import Stage, Target, registered_pass


def compile_for_cpu(module: Any, func: Any, config: Any, profiling: bool) -> tuple[Any, Any]:
    from ..cpu_compile import compile_for_cpu as compile_native  # llvmlite
    return compile_native(module, func, config, profiling)


def loop_passes() -> list[Pass]:
    return [registered_pass("lower-to-loops")]


def render_llvm(module: Operation) -> str:
    from ...codegen_cpu.emit import emit_llvm_ir  # llvmlite
    return emit_llvm_ir(module)


def render_llvm_raw(module: Operation) -> str:
    from ...codegen_cpu.emit import emit_llvm_ir_unoptimized  # llvmlite
    return emit_llvm_ir_unoptimized(module)


def render_asm(module: Operation) -> str:
    from ...codegen_cpu.emit import emit_asm  # llvmlite
    return emit_asm(module)


def render_asm_tier0(module: Operation) -> str:
    from ...codegen_cpu.emit import emit_asm_tier0  # llvmlite
    return emit_asm_tier0(module)


CPU_TARGET = Target(
    name=CPU, placement=None, summary="the host CPU: native code through LLVM (device=cpu)",
    compile=compile_for_cpu, loop_passes=loop_passes,
    stages={s.name: s for s in (
        Stage("llvm", "LLVM IR for the host CPU, optimized at O2", render_llvm),
        Stage("llvm-raw", "LLVM IR for the host CPU as generated, before optimization", render_llvm_raw),
        Stage("asm", "host assembly (x86-64, AArch64, ...)", render_asm),
        Stage("asm-tier0", "host assembly of the quick code a first compile runs until its optimized "
              "code is ready (no LLVM passes, FastISel: config.compile_tiers)", render_asm_tier0))},
    dump_stages=("llvm-raw", "llvm"))
