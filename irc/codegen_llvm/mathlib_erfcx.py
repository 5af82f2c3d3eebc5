"""erfcx, the scaled complementary error function exp(x^2) erfc(x), as inline LLVM IR.

It never overflows for large x (it decays like 1/(x sqrt(pi))), which is why it exists: erfc
alone underflows past x = 10 (f32) / 27 (f64). For a = |x|:
* a < 0.75: 1 + a P(a), minimax (`mathlib_remez --erfcx`: f32 8 terms, 2^-27.5; f64 15 terms, 2^-54.9).
* 0.75 <= a < ERFC_ZERO: erfc's own scaled pieces (`mathlib_erf.erfcx_large`).
* beyond: the asymptotic series (1/(a sqrt(pi))) sum_k (-1)^k (2k-1)!!/(2a^2)^k to k = 6
  (the next term is below 2^-56 there), with 1/sqrt(pi) in two parts and the division's
  remainder carried, so the leading quotient is rounded once; inf -> 0.
x <= -0.75: 2 exp(x^2) - erfcx(-x), with x^2 = hi + lo exactly (one fma) through exp's low
part; erfcx(-x) is at most a sixth of the result there, so there is no cancellation, and it
overflows to inf where 2 exp(x^2) does (x below -9.38 in f32, -26.6 in f64). -0.75 < x < 0:
1 + (2 expm1(x^2) - a P(a)), the small terms summed before the 1. NaN -> NaN.
Every piece is computed and one selected (no branches).
"""
from __future__ import annotations

from llvmlite import ir

from .mathlib_common import fabs, fcmp, fconst, fma, horner, is_f32, select
from .mathlib_erf import ERF_SMALL, ERFC_ZERO, erfcx_large
from .mathlib_exp_log import emit_expm1, exp_finite


def _hex(*values: str) -> tuple[float, ...]:
    return tuple(float.fromhex(v) for v in values)


# erfcx(a) = 1 + a P(a) on [0, 0.75]; coefficients of a^0.. in P
ERFCX_NEAR = {
    "f32": _hex("-0x1.20dd74p+0", "0x1.fffec6p-1", "-0x1.810deep-1", "0x1.fe4dbcp-2", "-0x1.2c6eb0p-2",
                "0x1.2ca95ap-3", "-0x1.bb7bb2p-5", "0x1.55c188p-7"),  # [2^-27.5]
    "f64": _hex("-0x1.20dd750429b6ap+0", "0x1.ffffffffff4e2p-1", "-0x1.812746b00222cp-1", "0x1.fffffff2d72c1p-2",
                "-0x1.341f6adef8b40p-2", "0x1.5555429e66197p-3", "-0x1.6022ddf13b774p-4", "0x1.554ae4ecc1234p-5",
                "-0x1.38b7fe524e1dep-6", "0x1.0f806ecf3539bp-7", "-0x1.bb03279999017p-9", "0x1.48822408145dep-10",
                "-0x1.994d4934ec580p-12", "0x1.703301156424fp-14", "-0x1.58a69dc155a89p-17"),  # [2^-54.9]
}
# (1/sqrt(pi)) in two parts, and the series sum_k (-1)^k (2k-1)!!/2^k u^k, u = 1/a^2, k = 1..6
INV_SQRT_PI = {"f32": _hex("0x1.20dd76p-1", "-0x1.f7ac92p-26"),
               "f64": _hex("0x1.20dd750429b6dp-1", "0x1.1ae3a914fed80p-57")}
ASYMPTOTIC = (-0.5, 0.75, -1.875, 6.5625, -29.53125, 162.421875)


def _key(ty: ir.Type) -> str:
    return "f32" if is_f32(ty) else "f64"


def _asymptotic(b: ir.IRBuilder, a: ir.Value) -> ir.Value:
    """erfcx(a) for a >= ERFC_ZERO: (c_hi + c_lo)/a times 1 + u S(u), u = 1/a^2."""
    ty = a.type
    c_hi, c_lo = INV_SQRT_PI[_key(ty)]
    q = b.fdiv(fconst(ty, c_hi), a)
    q_lo = b.fdiv(fma(b, b.fneg(q), a, fconst(ty, c_hi)), a)  # (c_hi - q a)/a, the remainder exact
    q_lo = b.fadd(q_lo, b.fdiv(fconst(ty, c_lo), a))
    inv = b.fdiv(fconst(ty, 1.0), a)
    u = b.fmul(inv, inv)
    series = b.fmul(u, horner(b, u, ASYMPTOTIC))
    value = b.fadd(q, fma(b, q, series, q_lo))
    return select(b, fcmp(b, "==", a, fconst(ty, float("inf"))), fconst(ty, 0.0), value)  # 0·inf


def emit_erfcx(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """exp(x^2) erfc(x); erfcx(+-0) = 1, erfcx(inf) = 0, erfcx(-inf) = inf, NaN -> NaN."""
    ty = x.type
    key = _key(ty)
    one = fconst(ty, 1.0)
    a = fabs(b, x)
    small = fcmp(b, "<", a, fconst(ty, ERF_SMALL))
    tail = b.fmul(a, horner(b, a, ERFCX_NEAR[key]))  # erfcx(a) - 1 for a < ERF_SMALL
    far = select(b, fcmp(b, "<", a, fconst(ty, ERFC_ZERO[key])), erfcx_large(b, a, divide=True),
                 _asymptotic(b, a))
    positive = select(b, small, b.fadd(one, tail), far)
    hi = b.fmul(a, a)
    lo = fma(b, a, a, b.fneg(hi))  # x^2 = hi + lo exactly
    twice = b.fmul(exp_finite(b, hi, lo), fconst(ty, 2.0))
    # -0.75 < x < 0: 1 + (2 expm1(x^2) - tail), the small terms summed first (2 e^(x^2) - erfcx(a)
    # would carry the error of a number twice the result's size)
    twice_m1 = b.fmul(fma(b, lo, b.fadd(hi, one), emit_expm1(b, hi)), fconst(ty, 2.0))
    near_negative = b.fadd(one, b.fsub(twice_m1, tail))
    negative = select(b, small, near_negative, b.fsub(twice, positive))
    return select(b, fcmp(b, "<", x, fconst(ty, 0.0)), negative, positive)
