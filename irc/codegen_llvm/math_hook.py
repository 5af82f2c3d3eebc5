"""Where transcendental functions come from: the inline mathlib's `MATH_EMITTERS`.

Every emitter is `emit(builder, x) -> value` (or `(builder, x, y)` for binary ones), working on
scalars and vectors alike, so LLVM's vectorizers can widen it. Never an `llvm.exp.*` or
`llvm.log.*` call: those become one scalar libm call per lane on the CPU.
"""
from __future__ import annotations

from typing import Callable

from llvmlite import ir


_CACHE: dict[str, Callable] | None = None


def math_emitters() -> dict[str, Callable]:
    """The mathlib's registry; while `mathlib.py` (with `MATH_EMITTERS`) is not there yet, the
    `emit_<fn>` functions of whatever `mathlib_*.py` modules exist."""
    global _CACHE
    if _CACHE is None:
        try:
            from .mathlib import MATH_EMITTERS
            _CACHE = dict(MATH_EMITTERS)
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.mathlib":
                raise
            _CACHE = _scan_modules()
    return _CACHE


def _scan_modules() -> dict[str, Callable]:
    import importlib
    import pkgutil
    import sys
    found: dict[str, Callable] = {}
    pkg = sys.modules[__package__]
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("mathlib_"):
            mod = importlib.import_module(f"{__package__}.{info.name}")
            for attr, fn in vars(mod).items():
                if attr.startswith("emit_") and callable(fn):
                    found[attr[len("emit_"):]] = fn
    return found


def sqrt(builder: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """`llvm.sqrt` is a single vectorizable instruction (sqrtps), not a libcall: safe to use."""
    from .mathlib_common import intrinsic
    return intrinsic(builder, "sqrt", [x])
