"""erfinv as inline, vectorizable LLVM IR.

a = |x|, w = -log(1 - a^2) = -(log1p(-a) + log1p(a)) (1 - a is exact for a >= 1/2, so w keeps
its accuracy as a -> 1). float32 (Giles' form, our fits): erfinv(x) = x P(w - 2.5) for w < 5
and x Q(sqrt(w) - 3) up to the last float below 1, P and Q minimax for relative error
(`python -m irc.codegen_llvm.mathlib_remez --erfinv`). float64: that estimate (beyond the f32
range of Q, the asymptotic x^2 = L - log(pi L)/2, L = -log(1 - a)), then three Newton steps on
erf(x) = a (a <= 1/2) or on erfc(x) = 1 - a (exact) with the inline erf/erfc, so the tail keeps
its relative accuracy. erfinv(+-1) = +-inf, |x| > 1 and NaN -> NaN, erfinv(+-0) = +-0.

erfcinv(x) = erfinv(1 - x) without forming 1 - x where it is inexact: by symmetry on t = x or
2 - x (exact for x >= 1), so t <= 1; w = -log(t (2 - t)); the same estimate, or the asymptotic
form from L = -log t; then Newton steps on erf(r) = 1 - t (t >= 1/2, exact) or erfc(r) = t —
below 2^-1000, where erfc and its slope leave the normal range, on log erfc(r) = log t with
log erfc(r) = -r^2 - log(r sqrt(pi)) + log(1 - 1/(2r^2) + 3/(4r^4) - ...). float32 computes in
float64 and rounds once. erfcinv(0) = +inf, erfcinv(2) = -inf, x outside [0, 2] and NaN -> NaN.
"""
from __future__ import annotations

from math import pi, sqrt

from llvmlite import ir

from .mathlib_common import copysign, fabs, fcmp, fconst, horner, intrinsic, is_f32, select, with_elem
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


def _asymptotic(b: ir.IRBuilder, big_l: ir.Value, w: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(the asymptotic start sqrt(L - log(pi L)/2), whether it replaces the fits' estimate:
    beyond the f32 range of Q) for L = -log(1 - a)."""
    ty = big_l.type
    log_term = b.fmul(fconst(ty, 0.5), emit_log(b, b.fmul(fconst(ty, pi), big_l)))
    asym = intrinsic(b, "sqrt", [b.fsub(big_l, log_term)])
    return asym, fcmp(b, ">", intrinsic(b, "sqrt", [w]), fconst(ty, Q_LIMIT))


def _erf_slope(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """erf'(x) = 2/sqrt(pi) e^(-x^2), the Newton steps' divisor."""
    return b.fmul(fconst(x.type, 2 / sqrt(pi)), emit_exp(b, b.fneg(b.fmul(x, x))))


def _newton(b: ir.IRBuilder, a: ir.Value, x: ir.Value) -> ir.Value:
    """One Newton step towards erf(x) = a (a <= 1/2) or erfc(x) = 1 - a (a > 1/2)."""
    ty = a.type
    one = fconst(ty, 1.0)
    slope = _erf_slope(b, x)
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
        asym, beyond = _asymptotic(b, b.fneg(emit_log1p(b, b.fneg(a))), w)  # L = -log(1 - a)
        value = select(b, beyond, asym, value)
        for _ in range(NEWTON_STEPS_F64):
            value = _newton(b, a, value)
    value = copysign(b, value, x)
    return select(b, fcmp(b, "==", a, fconst(ty, 1.0)), copysign(b, fconst(ty, float("inf")), x), value)


TAIL_T = 2.0 ** -1000
# log of the asymptotic series of erfc(r) r sqrt(pi) e^(r^2) = 1 - 1/(2r^2) + 3/(4r^4) - ...,
# as a polynomial in u = 1/(2 r^2): sum (-1)^k (2k-1)!! u^k
ERFC_ASYMPTOTIC = (1.0, -1.0, 3.0, -15.0, 105.0, -945.0, 10395.0, -135135.0)


def _erfcinv_f64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    ty = x.type
    one, two = fconst(ty, 1.0), fconst(ty, 2.0)
    upper = fcmp(b, ">", x, one)
    t = select(b, upper, b.fsub(two, x), x)                # in [0, 1], exact
    y = b.fsub(one, t)                                      # erfinv's argument, >= 0
    w = b.fneg(emit_log(b, b.fmul(t, b.fsub(two, t))))
    big_l = b.fneg(emit_log(b, t))
    asym, beyond = _asymptotic(b, big_l, w)
    r = select(b, beyond, asym, b.fmul(_estimate(b, y, w), y))
    log_t = b.fneg(big_l)
    for _ in range(NEWTON_STEPS_F64):
        slope = _erf_slope(b, r)
        near = b.fsub(emit_erf(b, r), y)                      # erf(r) - (1 - t)
        far = b.fsub(t, emit_erfc(b, r))                       # = erf(r) - (1 - t)
        normal = b.fsub(r, b.fdiv(select(b, fcmp(b, ">=", t, fconst(ty, 0.5)), near, far), slope))
        # the far tail in logs: f(r) = log erfc(r) - log t, f'(r) = -(2r + 1/r) to first order
        u = b.fdiv(fconst(ty, 0.5), b.fmul(r, r))
        log_erfc = b.fsub(b.fsub(emit_log(b, horner(b, u, ERFC_ASYMPTOTIC)), b.fmul(r, r)),
                          emit_log(b, b.fmul(r, fconst(ty, sqrt(pi)))))
        tail = b.fadd(r, b.fdiv(b.fsub(log_erfc, log_t), b.fadd(b.fmul(two, r), b.fdiv(one, r))))
        r = select(b, fcmp(b, "<", t, fconst(ty, TAIL_T)), tail, normal)
    r = select(b, upper, b.fneg(r), r)
    r = select(b, fcmp(b, "==", t, fconst(ty, 0.0)), copysign(b, fconst(ty, float("inf")), b.fsub(one, x)), r)
    ok = b.and_(fcmp(b, ">=", x, fconst(ty, 0.0)), fcmp(b, "<=", x, two))
    return select(b, ok, r, b.fadd(x, fconst(ty, float("nan"))))  # a NaN input passes through


def emit_erfcinv(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """erfcinv(x) = erfinv(1 - x) on [0, 2] (see the module's docstring)."""
    ty = x.type
    if not is_f32(ty):
        return _erfcinv_f64(b, x)
    wide = with_elem(ty, ir.DoubleType())
    return b.fptrunc(_erfcinv_f64(b, b.fpext(x, wide)), ty)
