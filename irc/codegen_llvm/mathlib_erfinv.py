"""erfinv as inline, vectorizable LLVM IR.

a = |x|, w = -log(1 - a^2) = -(log1p(-a) + log1p(a)) (1 - a is exact for a >= 1/2, so w keeps
its accuracy as a -> 1). float32 (Giles' form, our fits): erfinv(x) = x P(w - 2.5) for w < 5
and x Q(sqrt(w) - 3) up to the last float below 1, P and Q minimax for relative error
(`python -m irc.codegen_llvm.mathlib_remez --erfinv`). float64: that estimate (beyond the f32
range of Q, the asymptotic x^2 = L - log(pi L)/2, L = -log(1 - a)), then three Newton steps on
erf(x) = a (a <= 1/2) or on erfc(x) = 1 - a (exact) with the inline erf/erfc, so the tail keeps
its relative accuracy. erfinv(+-1) = +-inf, |x| > 1 and NaN -> NaN, erfinv(+-0) = +-0.
"""
from __future__ import annotations

from math import pi, sqrt

from llvmlite import ir

from .mathlib_common import copysign, fabs, fcmp, fconst, horner, intrinsic, is_f32, select
from .mathlib_erf import emit_erf, emit_erfc
from .mathlib_exp_log import emit_exp, emit_log, emit_log1p


def _hex(*values: str) -> tuple[float, ...]:
    return tuple(float.fromhex(v) for v in values)


Q_LIMIT = 4.1  # sqrt(w) at the last float32 below 1 is 3.99
# erfinv(x)/x = P(w - 2.5), w in [0, 5] [2^-24.6 relative, rounded to float32]
ERFINV_P = _hex("0x1.805c5ep+0", "0x1.f91e8ap-3", "-0x1.11c9a8p-8", "-0x1.486702p-10", "0x1.ca6440p-13",
                "-0x1.4bbff2p-18", "-0x1.d8f958p-19", "0x1.eddb2cp-22", "0x1.e4af94p-26", "-0x1.1af94ap-27")
# erfinv(x)/x = Q(sqrt(w) - 3), sqrt(w) in [sqrt(5), 4.1] [2^-26.3 relative, rounded to float32]
ERFINV_Q = _hex("0x1.6a9efcp+1", "0x1.006dc6p+0", "0x1.357cf0p-7", "-0x1.f48d36p-8", "0x1.74df4ep-8",
                "-0x1.d768d4p-9", "0x1.83cd3cp-10", "-0x1.d16aacp-15", "-0x1.400238p-12", "0x1.db0460p-14")
NEWTON_STEPS_F64 = 3


def _estimate(b: ir.IRBuilder, a: ir.Value, w: ir.Value) -> ir.Value:
    """erfinv(a)/a from the float32 fits (evaluated in the value's type)."""
    ty = a.type
    central = horner(b, b.fsub(w, fconst(ty, 2.5)), ERFINV_P)
    tail = horner(b, b.fsub(intrinsic(b, "sqrt", [w]), fconst(ty, 3.0)), ERFINV_Q)
    return select(b, fcmp(b, "<", w, fconst(ty, 5.0)), central, tail)


def _newton(b: ir.IRBuilder, a: ir.Value, x: ir.Value) -> ir.Value:
    """One Newton step towards erf(x) = a (a <= 1/2) or erfc(x) = 1 - a (a > 1/2)."""
    ty = a.type
    one = fconst(ty, 1.0)
    slope = b.fmul(fconst(ty, 2 / sqrt(pi)), emit_exp(b, b.fneg(b.fmul(x, x))))
    near = b.fsub(emit_erf(b, x), a)                     # erf(x) - a
    far = b.fsub(b.fsub(one, a), emit_erfc(b, x))        # (1 - a) - erfc(x) = erf(x) - a, exactly
    residual = select(b, fcmp(b, "<=", a, fconst(ty, 0.5)), near, far)
    return b.fsub(x, b.fdiv(residual, slope))


def emit_erfinv(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    ty = x.type
    a = fabs(b, x)
    w = b.fneg(b.fadd(emit_log1p(b, b.fneg(a)), emit_log1p(b, a)))
    value = b.fmul(_estimate(b, a, w), a)
    if not is_f32(ty):
        big_l = b.fneg(emit_log1p(b, b.fneg(a)))                             # -log(1 - a)
        asym = intrinsic(b, "sqrt", [b.fsub(big_l, b.fmul(fconst(ty, 0.5),
                                                           emit_log(b, b.fmul(fconst(ty, pi), big_l))))])
        beyond = fcmp(b, ">", intrinsic(b, "sqrt", [w]), fconst(ty, Q_LIMIT))
        value = select(b, beyond, asym, value)
        for _ in range(NEWTON_STEPS_F64):
            value = _newton(b, a, value)
    value = copysign(b, value, x)
    return select(b, fcmp(b, "==", a, fconst(ty, 1.0)), copysign(b, fconst(ty, float("inf")), x), value)
