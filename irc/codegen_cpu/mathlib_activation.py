"""tanh, sigmoid, softplus, built on the inline exp/expm1/log1p so they stay vectorizable.

Each is written in the form that cannot overflow or cancel:
  tanh(x)     = sign(x) * e/(e + 2),        e = expm1(2|x|), |x| clamped where tanh == 1
  sigmoid(x)  = (x >= 0 ? 1 : e) / (1 + e), e = exp(-|x|)
  softplus(x) = log1p(exp(-|x|)) + max(x, 0)
Both divisions correct the rounding error of their denominator (``div_by_sum``).
"""
from __future__ import annotations

from llvmlite import ir

from .mathlib_common import copysign, fabs, fconst, fcmp, fma, is_f32, select
from .mathlib_exp_log import emit_expm1, emit_log1p, exp_finite

# tanh(x) rounds to 1 beyond these (tanh(9.1) = 1 - 2.5e-8 in f32; 19.1 in f64).
TANH_SATURATE = {"f32": 9.5, "f64": 19.5}


def div_by_sum(b: ir.IRBuilder, num: ir.Value, u: ir.Value, v: ir.Value) -> ir.Value:
    """num / (u + v) for u, v >= 0, with the rounding error of u + v corrected: that error
    alone costs up to 1 ulp when the quotient sits low in its binade."""
    d = b.fadd(u, v)
    u_big = fcmp(b, ">", u, v)
    d_lo = select(b, u_big, b.fadd(b.fsub(u, d), v), b.fadd(b.fsub(v, d), u))  # Fast2Sum
    q = b.fdiv(num, d)
    return fma(b, b.fneg(q), b.fdiv(d_lo, d), q)


def emit_tanh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """tanh(x); tanh(+-0) = +-0, tanh(+-inf) = +-1, NaN -> NaN."""
    ty = x.type
    a = fabs(b, x)
    hi = TANH_SATURATE["f32" if is_f32(ty) else "f64"]
    a = select(b, fcmp(b, ">", a, fconst(ty, hi)), fconst(ty, hi), a)
    e = emit_expm1(b, b.fadd(a, a))
    return copysign(b, div_by_sum(b, e, e, fconst(ty, 2.0)), x)


def emit_sigmoid(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """1/(1+exp(-x)) without overflow; denormal results for very negative x, NaN -> NaN."""
    ty = x.type
    e = exp_finite(b, b.fneg(fabs(b, x)))
    num = select(b, fcmp(b, ">=", x, fconst(ty, 0.0)), fconst(ty, 1.0), e)
    res = div_by_sum(b, num, e, fconst(ty, 1.0))
    return select(b, b.fcmp_unordered("uno", x, x), x, res)


def emit_softplus(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log(1 + exp(x)) without overflow: x for large x, exp(x) for very negative x."""
    ty = x.type
    e = exp_finite(b, b.fneg(fabs(b, x)))
    pos = select(b, fcmp(b, ">", x, fconst(ty, 0.0)), x, fconst(ty, 0.0))
    res = b.fadd(emit_log1p(b, e), pos)
    return select(b, b.fcmp_unordered("uno", x, x), x, res)
