"""Bessel functions of the first kind J_v(x) and modified I_v(x) of real order v, as inline,
vectorizable LLVM IR (Theano's j0, j1, jv, i0, i1, iv).

Computed in float64 (float32 extends and rounds once). For a = |x|:
* J, a < J_SERIES_END: the power series (a/2)^v / Gamma(v + 1) sum_k (-a^2/4)^k / (k! (v+1)_k);
* J, J_SERIES_END <= a < ASYMPTOTIC_START: Miller's backward recurrence J_{n-1} = (2n/a) J_n -
  J_{n+1} from order nu + MILLER_N down (nu = v - floor v), continued below nu for negative v,
  normalized by (a/2)^nu / Gamma(nu + 1) = sum_k d_k J_{nu+2k} (d_0 = 1, d_k = (nu + 2k)
  (nu+1)_{k-1} / k!);
* J, a >= ASYMPTOTIC_START: Hankel's expansion sqrt(2/(pi a)) (P cos chi - Q sin chi), chi = a -
  (v/2 + 1/4) pi, with cos chi and sin chi from sin a, cos a and sin/cos(pi (v/2 + 1/4)), so that
  no rounding of chi is amplified by a;
* I, a < ASYMPTOTIC_START: the same power series with +a^2/4 (no cancellation for v > -1);
* I, a >= ASYMPTOTIC_START: e^a / sqrt(2 pi a) sum_k (-1)^k a_k(v) / a^k, e^(a/2) applied twice
  so that it overflows only where I does.
Orders: every real |v| <= V_MAX (NaN beyond: documented in docs/mathlib.md); a negative
integer order is reflected first (J_{-n} = (-1)^n J_n, I_{-n} = I_n); x < 0 is defined for integer
orders only ((-1)^n J_n(|x|), the same for I), NaN otherwise, as scipy. x = +inf: J -> 0,
I -> inf; x = 0: the series' values (inf for negative non-integer orders, with the sign of
1/Gamma(v + 1)). Every piece is computed and one selected (no branches).
Accuracy (docs/mathlib.md, tests/codegen_cpu/test_mathlib_bessel.py): ulps of max(|f|, the
oscillation's envelope sqrt(2/(pi a)) where a > |v|) — near J's zeros the error is absolute.
"""
from __future__ import annotations

from math import pi

from llvmlite import ir

from .mathlib_common import (fabs, fcmp, fconst, fma, intrinsic, is_f32, isnan, product_series, rint, select, trunc,
                             with_elem)
from .mathlib_exp_log import emit_exp
from .mathlib_gamma import emit_gamma, sin_cos_pi
from .mathlib_pow import emit_pow
from .mathlib_trig import emit_cos, emit_sin

V_MAX = 10.0
J_SERIES_END = 2.0
ASYMPTOTIC_START = 25.0
J_SERIES_TERMS = 20          # a < 2: the 20th term is below 2^-60 of the sum
I_SERIES_TERMS = 50          # a < 25: (a^2/4)^k / (k!)^2 past its peak at k ~ 12 down to 2^-60
MILLER_N = 64                # even; J_64(25) / J_0(25) is below 2^-60 (verified for |v| <= 10)
ASYMPTOTIC_TERMS = 20


def _series_sum(b: ir.IRBuilder, v: ir.Value, a: ir.Value, sign: float, terms: int) -> ir.Value:
    """sum_k (sign a^2/4)^k / (k! (v+1)_k), k < terms."""
    ty = a.type
    q = b.fmul(b.fmul(a, a), fconst(ty, 0.25 * sign))
    dens = [b.fmul(fconst(ty, float(k)), b.fadd(v, fconst(ty, float(k)))) for k in range(1, terms)]
    return product_series(b, [q] * (terms - 1), dens)


def _power_over_gamma(b: ir.IRBuilder, a: ir.Value, e: ir.Value) -> ir.Value:
    """(a/2)^e / Gamma(e + 1): the series' leading factor (e = v) and Miller's normalization
    (e = nu), one call of pow and of gamma for both."""
    return b.fdiv(emit_pow(b, b.fmul(a, fconst(a.type, 0.5)), e), _gamma_plus_one(b, e))


def _gamma_plus_one(b: ir.IRBuilder, v: ir.Value) -> ir.Value:
    """Gamma(v + 1) as v Gamma(v) (1 at v = 0): rounding v + 1 would cost ~psi(v) ulp."""
    ty = v.type
    return select(b, fcmp(b, "==", v, fconst(ty, 0.0)), fconst(ty, 1.0), b.fmul(v, emit_gamma(b, v)))


def _miller_j(b: ir.IRBuilder, v: ir.Value, a: ir.Value, m: ir.Value, nu: ir.Value) -> ir.Value:
    """J_v(a) / ((a/2)^nu / Gamma(nu + 1)) by the backward recurrence (module docstring), for
    2 <= a < 25, |v| <= V_MAX, v = m + nu."""
    ty = a.type
    d = [fconst(ty, 1.0)]                   # d_k, the weights of J_{nu+2k} in the normalization
    rising = fconst(ty, 1.0)                # (nu+1)_{k-1} / k!: 1 at k = 1
    for k in range(1, MILLER_N // 2 + 1):
        if k > 1:
            rising = b.fmul(rising, b.fmul(b.fadd(nu, fconst(ty, float(k - 1))), fconst(ty, 1.0 / k)))
        d.append(b.fmul(b.fadd(nu, fconst(ty, 2.0 * k)), rising))
    two_over_a = b.fdiv(fconst(ty, 2.0), a)
    zero = fconst(ty, 0.0)
    after, f = zero, fconst(ty, 1.0)        # orders nu + N + 1, nu + N
    total = b.fmul(d[MILLER_N // 2], f)
    out = zero
    for n in range(MILLER_N, -int(V_MAX), -1):
        below = fma(b, b.fmul(b.fadd(nu, fconst(ty, float(n))), two_over_a), f, b.fneg(after))
        after, f = f, below                 # f: order nu + n - 1
        order = n - 1
        if order >= 0 and order % 2 == 0:
            total = fma(b, d[order // 2], f, total)
        out = select(b, fcmp(b, "==", m, fconst(ty, float(order))), f, out)
    return b.fdiv(out, total)


def _asymptotic_terms(b: ir.IRBuilder, v: ir.Value, a: ir.Value) -> list[ir.Value]:
    """a_k(v) / a^k for k = 0..ASYMPTOTIC_TERMS-1: prod_{j<=k} (4v^2 - (2j-1)^2) / (k! (8a)^k)."""
    ty = a.type
    mu = b.fmul(fconst(ty, 4.0), b.fmul(v, v))
    inv8a = b.fdiv(fconst(ty, 0.125), a)
    terms = [fconst(ty, 1.0)]
    for k in range(1, ASYMPTOTIC_TERMS):
        step = b.fmul(b.fsub(mu, fconst(ty, float((2 * k - 1) ** 2))), b.fmul(inv8a, fconst(ty, 1.0 / k)))
        terms.append(b.fmul(terms[-1], step))
    return terms


def _hankel_j(b: ir.IRBuilder, v: ir.Value, a: ir.Value) -> ir.Value:
    ty = a.type
    terms = _asymptotic_terms(b, v, a)
    p, q = fconst(ty, 0.0), fconst(ty, 0.0)
    for k in reversed(range(ASYMPTOTIC_TERMS)):  # P = sum (-1)^j t_2j, Q = sum (-1)^j t_(2j+1)
        t = terms[k] if k % 4 < 2 else b.fneg(terms[k])
        p, q = (b.fadd(p, t), q) if k % 2 == 0 else (p, b.fadd(q, t))
    s_phase, c_phase = sin_cos_pi(b, b.fadd(b.fmul(v, fconst(ty, 0.5)), fconst(ty, 0.25)))
    sa, ca = emit_sin(b, a), emit_cos(b, a)
    cos_chi = fma(b, ca, c_phase, b.fmul(sa, s_phase))
    sin_chi = fma(b, sa, c_phase, b.fneg(b.fmul(ca, s_phase)))
    amp = intrinsic(b, "sqrt", [b.fdiv(fconst(ty, 2.0 / pi), a)])
    return b.fmul(amp, fma(b, p, cos_chi, b.fneg(b.fmul(q, sin_chi))))


def _asymptotic_i(b: ir.IRBuilder, v: ir.Value, a: ir.Value) -> ir.Value:
    ty = a.type
    terms = _asymptotic_terms(b, v, a)
    s = fconst(ty, 0.0)
    for k in reversed(range(ASYMPTOTIC_TERMS)):
        s = b.fadd(s, terms[k] if k % 2 == 0 else b.fneg(terms[k]))
    half = emit_exp(b, b.fmul(a, fconst(ty, 0.5)))
    scaled = b.fmul(half, b.fdiv(s, intrinsic(b, "sqrt", [b.fmul(a, fconst(ty, 2.0 * pi))])))
    return b.fmul(half, scaled)


def _bessel_f64(b: ir.IRBuilder, v: ir.Value, x: ir.Value, kind: str) -> ir.Value:
    """J_v(x) (kind "J") or I_v(x) (kind "I") on double or <N x double>."""
    ty = x.type
    zero, inf, nan = fconst(ty, 0.0), fconst(ty, float("inf")), fconst(ty, float("nan"))
    integer = fcmp(b, "==", rint(b, v), v)
    negative_integer = b.and_(integer, fcmp(b, "<", v, zero))
    order = select(b, negative_integer, b.fneg(v), v)
    half = b.fmul(order, fconst(ty, 0.5))
    odd = b.and_(integer, fcmp(b, "!=", trunc(b, half), half))
    a = fabs(b, x)
    if kind == "J":
        nearest = rint(b, order)
        m = select(b, fcmp(b, ">", nearest, order), b.fsub(nearest, fconst(ty, 1.0)), nearest)  # floor
        nu = b.fsub(order, m)
        in_series = fcmp(b, "<", a, fconst(ty, J_SERIES_END))
        lead = _power_over_gamma(b, a, select(b, in_series, order, nu))
        near = _series_sum(b, order, a, -1.0, J_SERIES_TERMS)
        middle = _miller_j(b, order, a, m, nu)
        far = select(b, fcmp(b, "==", a, inf), zero, _hankel_j(b, order, a))
        value = select(b, in_series, b.fmul(lead, near),
                       select(b, fcmp(b, "<", a, fconst(ty, ASYMPTOTIC_START)), b.fmul(lead, middle), far))
        flip = b.xor(negative_integer, fcmp(b, "<", x, zero))
    else:
        near = b.fmul(_power_over_gamma(b, a, order), _series_sum(b, order, a, 1.0, I_SERIES_TERMS))
        far = select(b, fcmp(b, "==", a, inf), inf, _asymptotic_i(b, order, a))
        value = select(b, fcmp(b, "<", a, fconst(ty, ASYMPTOTIC_START)), near, far)
        flip = fcmp(b, "<", x, zero)
    value = select(b, b.and_(odd, flip), b.fneg(value), value)
    undefined = b.or_(b.and_(fcmp(b, "<", x, zero), b.not_(integer)),
                      b.or_(b.not_(fcmp(b, "<=", fabs(b, v), fconst(ty, V_MAX))), isnan(b, x)))
    return select(b, undefined, nan, value)


def _in_f64(b: ir.IRBuilder, v: ir.Value, x: ir.Value, kind: str) -> ir.Value:
    ty = x.type
    if not is_f32(ty):
        return _bessel_f64(b, v, x, kind)
    dty = with_elem(ty, ir.DoubleType())
    return b.fptrunc(_bessel_f64(b, b.fpext(v, dty), b.fpext(x, dty), kind), ty)


def emit_jv(b: ir.IRBuilder, v: ir.Value, x: ir.Value) -> ir.Value:
    """J_v(x), the Bessel function of the first kind of real order v."""
    return _in_f64(b, v, x, "J")


def emit_iv(b: ir.IRBuilder, v: ir.Value, x: ir.Value) -> ir.Value:
    """I_v(x), the modified Bessel function of the first kind of real order v."""
    return _in_f64(b, v, x, "I")


def emit_j0(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return emit_jv(b, fconst(x.type, 0.0), x)


def emit_j1(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return emit_jv(b, fconst(x.type, 1.0), x)


def emit_i0(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return emit_iv(b, fconst(x.type, 0.0), x)


def emit_i1(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return emit_iv(b, fconst(x.type, 1.0), x)

