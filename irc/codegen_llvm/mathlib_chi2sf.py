"""chi2sf(x, k), the chi-squared distribution's survival function (Theano's chi2sf), as inline,
vectorizable LLVM IR: the regularized upper incomplete gamma function Q(a, z), a = k/2, z = x/2.

Computed in float64 (float32 extends and rounds once). The common factor z^a e^-z / Gamma(a + 1)
takes a log z - z as a double word (log_dd, the exact product and sum) into exp's low part, so
its error does not grow with z (it would be ~z ulp otherwise), and Gamma(a + 1) as a Gamma(a)
(the math library's gamma at the exact a: rounding a + 1 would cost ~psi(a) ulp):
* z < a + 1: Q = 1 - P, P = z^a e^-z / Gamma(a+1) sum_n z^n / (a+1)_n (SERIES_TERMS terms: the
  last below 2^-60 of the sum for a <= A_MAX). For a < 1 (k < 2) 1 - P cancels where Q is small
  (Q(0.05, 1) = 0.01: ~100 ulp); the fraction converges too slowly below z = 1;
* z >= a + 1: the continued fraction Q = z^a e^-z / Gamma(a) / (z + 1 - a - 1(1 - a)/(z + 3 - a -
  2(2 - a)/(z + 5 - a - ...))), FRACTION_DEPTH levels evaluated from the bottom up.
Domain: 0 < k <= 2 A_MAX (NaN beyond, and for NaN); x <= 0 -> 1, x/2 >= Z_ZERO -> 0 (+inf too;
scipy's chi2.sf). Every piece is computed and one selected (no branches). No gradient (as Theano).
"""
from __future__ import annotations

from llvmlite import ir

from .mathlib_common import fcmp, fconst, fma, is_f32, isnan, product_series, select, two_sum, with_elem
from .mathlib_exp_log import exp_finite
from .mathlib_gamma import emit_gamma
from .mathlib_pow import log_dd

A_MAX = 50.0
SERIES_TERMS = 96
FRACTION_DEPTH = 96             # converges to 2^-60 from z = 1.09 (~exp(-4 sqrt(depth z)))
Z_ZERO = 1000.0                 # Q(a <= A_MAX, z >= Z_ZERO) < e^-806: 0 in float64
GROUP = 8                      # levels (and series terms) per division


def _scaled_power(b: ir.IRBuilder, a: ir.Value, z: ir.Value) -> ir.Value:
    """z^a e^-z / Gamma(a + 1) for z > 0 finite, a in (0, A_MAX]."""
    log_hi, log_lo = log_dd(b, z)
    p_hi = b.fmul(a, log_hi)
    p_lo = fma(b, a, log_lo, fma(b, a, log_hi, b.fneg(p_hi)))
    s_hi, s_lo = two_sum(b, p_hi, b.fneg(z))
    power = exp_finite(b, s_hi, b.fadd(s_lo, p_lo))
    return b.fdiv(power, b.fmul(a, emit_gamma(b, a)))   # a Gamma(a): a + 1 would round (by ~psi(a) ulp)


def _fraction(b: ir.IRBuilder, a: ir.Value, z: ir.Value) -> ir.Value:
    """z + 1 - a - 1(1 - a)/(z + 3 - a - 2(2 - a)/(...)), FRACTION_DEPTH levels from the bottom
    up, each level f = base + num/g kept as p/q = (base p_g + num q_g)/p_g and divided out every
    GROUP levels (one division each: see mathlib_common.product_series)."""
    ty = z.type
    zma = b.fsub(z, a)
    p, q = b.fadd(zma, fconst(ty, 2.0 * FRACTION_DEPTH + 1.0)), None
    for i in range(FRACTION_DEPTH, 0, -1):
        numerator = b.fmul(fconst(ty, float(-i)), b.fsub(fconst(ty, float(i)), a))
        base = b.fadd(zma, fconst(ty, 2.0 * i - 1.0))
        if q is None:
            p, q = b.fadd(b.fmul(base, p), numerator), p
        else:
            p, q = fma(b, base, p, b.fmul(numerator, q)), p
        if i % GROUP == 1:
            p, q = b.fdiv(p, q), None
    return p


def _upper_gamma_q(b: ir.IRBuilder, a: ir.Value, z: ir.Value) -> ir.Value:
    ty = z.type
    one = fconst(ty, 1.0)
    scaled = _scaled_power(b, a, z)
    dens = [b.fadd(a, fconst(ty, float(n))) for n in range(1, SERIES_TERMS)]
    from_series = b.fsub(one, b.fmul(scaled, product_series(b, [z] * (SERIES_TERMS - 1), dens)))
    from_fraction = b.fdiv(b.fmul(scaled, a), _fraction(b, a, z))   # 1/Gamma(a) = a/Gamma(a + 1)
    return select(b, fcmp(b, "<", z, b.fadd(a, one)), from_series, from_fraction)


def _chi2sf_f64(b: ir.IRBuilder, x: ir.Value, k: ir.Value) -> ir.Value:
    ty = x.type
    half = fconst(ty, 0.5)
    zero = fconst(ty, 0.0)
    a, z = b.fmul(k, half), b.fmul(x, half)
    inside = b.and_(fcmp(b, ">", z, zero), fcmp(b, "<", z, fconst(ty, Z_ZERO)))
    safe_z = select(b, inside, z, fconst(ty, 1.0))
    q = _upper_gamma_q(b, a, safe_z)
    q = select(b, inside, q, select(b, fcmp(b, ">=", z, fconst(ty, Z_ZERO)), zero, fconst(ty, 1.0)))
    valid = b.and_(fcmp(b, ">", a, zero), fcmp(b, "<=", a, fconst(ty, A_MAX)))
    return select(b, b.and_(valid, b.not_(isnan(b, x))), q, fconst(ty, float("nan")))


def emit_chi2sf(b: ir.IRBuilder, x: ir.Value, k: ir.Value) -> ir.Value:
    """P(X > x) for X chi-squared with k degrees of freedom."""
    ty = x.type
    if not is_f32(ty):
        return _chi2sf_f64(b, x, k)
    dty = with_elem(ty, ir.DoubleType())
    return b.fptrunc(_chi2sf_f64(b, b.fpext(x, dty), b.fpext(k, dty)), ty)
