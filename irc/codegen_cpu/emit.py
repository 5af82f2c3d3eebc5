"""Text outputs for `irc-opt -t llvm` / `-t asm`: a module (tensor- or loop-level) lowered to
loops if needed, converted to LLVM IR and optimized at O2 for the host (`-t asm-tier0`: the
quick code a first compile runs until its optimized code is ready, `config.compile_tiers`)."""
from __future__ import annotations

from ..base.compile_stages import LLVM_IR, LOWER, timed
from ..dialects.builtin import ModuleOp
from ..dialects.func import FuncOp
from ..ir.diagnostics import UnsupportedError
from ..conversion.tensor_to_loop.lower_to_loops import is_tensor_function, lower_function
from .convert_to_llvm import convert_to_llvm
from .target import emit_assembly, parse_and_optimize, tier0_assembly


def _loop_module(module: ModuleOp) -> ModuleOp:
    with timed(LOWER):
        return _lowered(module)


def _lowered(module: ModuleOp) -> ModuleOp:
    funcs = []
    for op in module.body.ops:
        if not isinstance(op, FuncOp):
            continue
        if not is_tensor_function(op):
            funcs.append(op.clone())
            continue
        try:
            funcs.append(lower_function(op))
        except ValueError as e:  # what lower-to-loops reports as a pass error
            raise UnsupportedError(str(e), op.location) from None
    return ModuleOp.create(funcs)


def _llvm_ir(loop_module: ModuleOp):
    with timed(LLVM_IR):
        return convert_to_llvm(loop_module)


def optimized_module(module: ModuleOp):
    return parse_and_optimize(_llvm_ir(_loop_module(module)))


def emit_llvm_ir(module: ModuleOp) -> str:
    """LLVM IR after the O2 pipeline (what the object code is made from)."""
    return str(optimized_module(module))


def emit_llvm_ir_unoptimized(module: ModuleOp) -> str:
    return str(_llvm_ir(_loop_module(module)))


def emit_asm(module: ModuleOp) -> str:
    """Host assembly."""
    return emit_assembly(optimized_module(module))


def emit_asm_tier0(module: ModuleOp) -> str:
    """Host assembly of the tier-0 code (no passes, FastISel)."""
    return tier0_assembly(_llvm_ir(_loop_module(module)))
