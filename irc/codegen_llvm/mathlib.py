"""The inline math library: one emitter per elementwise math op, by op name.

An emitter is ``emit(builder, x) -> value`` (``emit(builder, x, y)`` for ``pow``, ``arctan2``); ``x`` may be
``float``, ``double`` or ``<N x float/double>``; the result has the same type (``half`` is
computed in float and rounded once).  Emitters only use arithmetic, fcmp/select, bitcasts and
intrinsics that the CPU and NVPTX lower natively, so the loop vectorizer widens them and the
GPU backend can reuse them unchanged.  Accuracy and special values: docs/mathlib.md.
"""
from __future__ import annotations

import functools
from typing import Callable

from llvmlite import ir

from .mathlib_activation import emit_sigmoid, emit_softplus, emit_tanh
from .mathlib_bessel import emit_i0, emit_i1, emit_iv, emit_j0, emit_j1, emit_jv
from .mathlib_chi2sf import emit_chi2sf
from .mathlib_atan import emit_arccos, emit_arcsin, emit_arctan, emit_arctan2
from .mathlib_common import elem_type, intrinsic, with_elem
from .mathlib_erf import emit_erf, emit_erfc
from .mathlib_erfcx import emit_erfcx
from .mathlib_trigamma import emit_trigamma
from .mathlib_erfinv import emit_erfcinv, emit_erfinv
from .mathlib_gamma import emit_gamma, emit_lgamma, emit_psi
from .mathlib_exp_log import emit_exp, emit_expm1, emit_log, emit_log1p
from .mathlib_pow import emit_pow
from .mathlib_trig import emit_cos, emit_sin


def emit_sqrt(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """sqrt(x) via ``llvm.sqrt`` (a native instruction: vsqrtps/sqrt.rn, IEEE-exact)."""
    return intrinsic(b, "sqrt", [x])


def half_via_float(emit: Callable[..., ir.Value]) -> Callable[..., ir.Value]:
    """Let ``emit`` take half (or <N x half>) by computing in float and rounding once."""

    @functools.wraps(emit)
    def wrapper(b: ir.IRBuilder, *args: ir.Value) -> ir.Value:
        ty = args[0].type
        if not isinstance(elem_type(ty), ir.HalfType):
            return emit(b, *args)
        fty = with_elem(ty, ir.FloatType())
        return b.fptrunc(emit(b, *[b.fpext(a, fty) for a in args]), ty)

    return wrapper


MATH_EMITTERS: dict[str, Callable[..., ir.Value]] = {
    name: half_via_float(fn) for name, fn in (
        ("exp", emit_exp),
        ("log", emit_log),
        ("log1p", emit_log1p),
        ("expm1", emit_expm1),
        ("tanh", emit_tanh),
        ("sigmoid", emit_sigmoid),
        ("softplus", emit_softplus),
        ("sin", emit_sin),
        ("cos", emit_cos),
        ("pow", emit_pow),
        ("sqrt", emit_sqrt),
        ("erf", emit_erf),
        ("erfc", emit_erfc),
        ("gammaln", emit_lgamma),
        ("psi", emit_psi),
        ("erfinv", emit_erfinv),
        ("erfcinv", emit_erfcinv),
        ("gamma", emit_gamma),
        ("arctan", emit_arctan),
        ("arctan2", emit_arctan2),
        ("arcsin", emit_arcsin),
        ("arccos", emit_arccos),
        ("erfcx", emit_erfcx),
        ("tri_gamma", emit_trigamma),
        ("j0", emit_j0),
        ("j1", emit_j1),
        ("jv", emit_jv),
        ("i0", emit_i0),
        ("i1", emit_i1),
        ("iv", emit_iv),
        ("chi2sf", emit_chi2sf),
    )
}

ARITY: dict[str, int] = {name: 2 if name in ("pow", "arctan2", "jv", "iv", "chi2sf") else 1
                         for name in MATH_EMITTERS}

__all__ = ["MATH_EMITTERS", "ARITY", "emit_exp", "emit_log", "emit_log1p", "emit_expm1",
           "emit_tanh", "emit_sigmoid", "emit_softplus", "emit_sin", "emit_cos", "emit_pow",
           "emit_sqrt", "emit_erf", "emit_erfc", "emit_lgamma", "emit_psi", "emit_erfinv", "emit_erfcinv",
           "emit_gamma", "emit_arctan", "emit_arctan2", "emit_arcsin", "emit_arccos",
           "emit_erfcx", "emit_trigamma", "emit_j0", "emit_j1", "emit_jv", "emit_i0", "emit_i1", "emit_iv",
           "emit_chi2sf"]
