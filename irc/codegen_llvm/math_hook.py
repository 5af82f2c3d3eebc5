"""Where transcendental functions come from: the inline mathlib's `MATH_EMITTERS`.

Every emitter is `emit(builder, x) -> value` (or `(builder, x, y)` for binary ones), working on
scalars and vectors alike, so LLVM's vectorizers can widen it. Never an `llvm.exp.*` or
`llvm.log.*` call: those become one scalar libm call per lane on the CPU.
"""
from __future__ import annotations

from typing import Callable

from llvmlite import ir

from .mathlib import MATH_EMITTERS
from .mathlib_common import intrinsic


def math_emitters() -> dict[str, Callable]:
    """The mathlib's registry (a copy: a target may add to or override its own)."""
    return dict(MATH_EMITTERS)


def sqrt(builder: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """`llvm.sqrt` is a single vectorizable instruction (sqrtps), not a libcall: safe to use."""
    return intrinsic(builder, "sqrt", [x])
