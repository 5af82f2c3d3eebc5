"""pow(x, y) = exp(y * log|x|) with a double-word log, plus C99/IEEE special cases.

exp(y*log x) loses |y log x| ulps if log x is rounded, so log|x| is computed as hi + lo in f64
(accurate to ~2^-66 absolute) and the low part of y*log|x| is fed into the exp reduction.
f32 pow runs the same f64 code on extended inputs and rounds once at the end (f64 arithmetic
is native on the CPU and on NVPTX).

Special cases (C99 Annex F): pow(x, +-0) = 1 and pow(1, y) = 1 even for NaN; pow(-1, +-inf) = 1;
otherwise NaN in -> NaN; finite x < 0 with finite non-integer y -> NaN; negative x with an odd integer
y gives a negative result (including -0 and -inf); pow(+-0, y<0) = inf (signed for odd y);
pow(+-0, y>0) = 0 (signed for odd y); |x| < 1 or > 1 with y = +-inf gives 0 or inf;
pow(+-inf, y) follows the same rules; overflow -> inf, underflow -> 0 (denormals rounded once).
"""
from __future__ import annotations

from fractions import Fraction

from llvmlite import ir

from .mathlib_common import (const, fabs, fconst, fcmp, fma, horner, is_f32, isnan, select, trunc,
                             two_sum, with_elem)
from .mathlib_exp_log import LN2_HI_F64, LN2_LO_F64, exp_finite, log_reduce

TWO_THIRDS_HI = 2.0 / 3.0
TWO_THIRDS_LO = float(Fraction(2, 3) - Fraction(TWO_THIRDS_HI))
# log1p(f) = 2s + (2/3)s^3 + s^5 * Q(s^2), Q = 2/5 + 2z/7 + ...; truncation below 2^-70.
LOG_Q = tuple(2.0 / (2 * j + 5) for j in range(11))


def log_dd(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """log(x) = hi + lo for positive finite f64 x."""
    ty = x.type

    def k(v: float) -> ir.Value:
        return fconst(ty, v)

    ef, f = log_reduce(b, x)
    # s = f / (2 + f) as s_hi + s_lo
    d_hi = b.fadd(k(2.0), f)
    d_lo = b.fsub(f, b.fsub(d_hi, k(2.0)))
    s_hi = b.fdiv(f, d_hi)
    rem = b.fsub(fma(b, b.fneg(s_hi), d_hi, f), b.fmul(s_hi, d_lo))
    s_lo = b.fdiv(rem, d_hi)
    # (2/3) s^3 as t_hi + t_lo
    z = b.fmul(s_hi, s_hi)
    z_lo = fma(b, s_hi, s_hi, b.fneg(z))
    c_hi = b.fmul(z, s_hi)
    c_lo = fma(b, z, s_hi, b.fneg(c_hi))
    c_lo = fma(b, z_lo, s_hi, c_lo)
    t_hi = b.fmul(c_hi, k(TWO_THIRDS_HI))
    t_lo = fma(b, c_hi, k(TWO_THIRDS_HI), b.fneg(t_hi))
    t_lo = fma(b, c_lo, k(TWO_THIRDS_HI), t_lo)
    t_lo = fma(b, c_hi, k(TWO_THIRDS_LO), t_lo)
    # s^5 Q(z), and d/ds of the odd series (~2z) times s_lo
    s5 = b.fmul(c_hi, z)
    tail = b.fmul(s5, horner(b, z, LOG_Q))
    tail = fma(b, b.fmul(k(2.0), z), s_lo, tail)
    tail = fma(b, k(2.0), s_lo, tail)
    tail = fma(b, ef, k(LN2_LO_F64), tail)
    tail = b.fadd(tail, t_lo)
    h1, l1 = two_sum(b, b.fmul(ef, k(LN2_HI_F64)), b.fmul(k(2.0), s_hi))
    h2, l2 = two_sum(b, h1, t_hi)
    lo = b.fadd(b.fadd(l1, l2), tail)
    hi = b.fadd(h2, lo)
    return hi, b.fsub(lo, b.fsub(hi, h2))


def _pow_f64(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    ty = x.type

    def k(v: float) -> ir.Value:
        return fconst(ty, v)

    inf = float("inf")
    ax = fabs(b, x)
    ay = fabs(b, y)
    # |x| = 0, inf or NaN gives a garbage (finite) log that the selects below replace
    l_hi, l_lo = log_dd(b, ax)
    p_hi = b.fmul(y, l_hi)
    p_lo = fma(b, y, l_lo, fma(b, y, l_hi, b.fneg(p_hi)))
    mag = exp_finite(b, p_hi, p_lo)

    y_neg = fcmp(b, "<", y, k(0.0))
    zero_inf = select(b, y_neg, k(inf), k(0.0))  # |x| = 0
    inf_zero = select(b, y_neg, k(0.0), k(inf))  # |x| = inf
    mag = select(b, fcmp(b, "==", ax, k(0.0)), zero_inf, mag)
    mag = select(b, fcmp(b, "==", ax, k(inf)), inf_zero, mag)
    # y = +-inf: 1 at |x| = 1, else inf when (|x| < 1) == (y < 0), else 0
    grows = b.icmp_unsigned("==", fcmp(b, "<", ax, k(1.0)), y_neg)
    at_inf = select(b, fcmp(b, "==", ax, k(1.0)), k(1.0), select(b, grows, k(inf), k(0.0)))
    mag = select(b, fcmp(b, "==", ay, k(inf)), at_inf, mag)

    y_int = fcmp(b, "==", trunc(b, y), y)  # true for +-inf
    half = b.fmul(y, k(0.5))
    y_odd = b.and_(y_int, fcmp(b, "!=", trunc(b, half), half))
    ity = with_elem(ty, ir.IntType(64))
    x_signed = b.icmp_signed("<", b.bitcast(x, ity), const(ity, 0))  # sign bit, -0 included
    res = select(b, b.and_(x_signed, y_odd), b.fneg(mag), mag)
    x_neg_finite = b.and_(fcmp(b, "<", x, k(0.0)), fcmp(b, ">", x, k(-inf)))
    bad = b.and_(x_neg_finite, b.and_(b.not_(y_int), fcmp(b, "<", ay, k(inf))))
    res = select(b, bad, k(float("nan")), res)
    res = select(b, b.or_(isnan(b, x), isnan(b, y)), b.fadd(x, y), res)
    one = b.or_(fcmp(b, "==", y, k(0.0)), fcmp(b, "==", x, k(1.0)))
    return select(b, one, k(1.0), res)


def emit_pow(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """x ** y elementwise (same type for x and y); see the module docstring for special cases."""
    ty = x.type
    if not is_f32(ty):
        return _pow_f64(b, x, y)
    dty = with_elem(ty, ir.DoubleType())
    r = _pow_f64(b, b.fpext(x, dty), b.fpext(y, dty))
    return b.fptrunc(r, ty)
