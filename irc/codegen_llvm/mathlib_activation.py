"""tanh, sigmoid, softplus, built on the inline exp so they stay vectorizable.

Each is written in a form that cannot overflow or cancel, with one division at most:
  tanh(x)     = sign(x) * (|x| < 0.55 ? a + a^3 P(a^2) : 1 - 2/(e^2a + 1)), a = min(|x|, sat)
  sigmoid(x)  = x >= 0 ? q : e - e*q,  q = num/(1 + e), num = (x >= 0 ? 1 : e), e = exp(-|x|)
  softplus(x) = log1p(exp(-|x|)) + max(x, 0), log1p on [0, 1] by a polynomial (f32)
These loops are limited by their number of vector instructions and the length of their
dependency chain (docs/mathlib.md, "What costs time"): the exp inside skips the over/underflow
handling its argument range does not need, and one vdivps beats a Newton reciprocal.
"""
from __future__ import annotations

from llvmlite import ir

from .mathlib_common import (copysign, fabs, fconst, fcmp, fma, fmt_of, horner, is_f32, mad,
                             select)
from .mathlib_exp_log import EXP_RANGE, EXP_SCALE_BIAS, exp_parts, ln2_parts, pow2_from_shift


def _hex(*values: str) -> tuple[float, ...]:
    return tuple(float.fromhex(v) for v in values)


# Minimax coefficients for relative error, rounded to the format, from
# ``python -m irc.codegen_llvm.mathlib_remez`` (the fitted error in brackets).
# tanh(a) rounds to 1 beyond TANH_SATURATE (tanh(9.1) = 1 - 2.5e-8 in f32; 19.1 in f64);
# below TANH_SMALL, tanh(a) = a + a^3 P(a^2) [f32 2^-29.7, f64 2^-60.6].
TANH_SATURATE = {"f32": 9.5, "f64": 19.5}
TANH_SMALL = 0.55
TANH_P = {
    "f32": _hex("-0x1.55554ap-2", "0x1.110ceep-3", "-0x1.b91e7ep-5", "0x1.58e518p-6",
                "-0x1.9921a2p-8"),
    "f64": _hex("-0x1.555555555554fp-2", "0x1.1111111110790p-3", "-0x1.ba1ba1b97cb41p-5",
                "0x1.664f485941090p-6", "-0x1.226e2f0e679c3p-7", "0x1.d6d29aa2d2875p-9",
                "-0x1.7d8fc77e51812p-10", "0x1.34834b3301df4p-11", "-0x1.e96bdc2b2336bp-13",
                "0x1.5d693dde02ca4p-14", "-0x1.46f5da3f3fa3bp-16"),
}
# f32: log1p(f) = f + f^2 Q(f) on [-1/4, 1/2] [2^-27.6].  f64: 2 atanh(s) = 2s + s R(s^2),
# R = sum c_j s^2j on |s| <= 0.2 [2^-62.7].
LOG1P_Q_F32 = _hex("-0x1.000000p-1", "0x1.5555a4p-2", "-0x1.00004ap-2", "0x1.99699ep-3",
                   "-0x1.54ed96p-3", "0x1.28807ap-3", "-0x1.0d98f0p-3", "0x1.acf4aap-4",
                   "-0x1.71e334p-5")
LOG1P_R_F64 = _hex("0x1.555555555554fp-1", "0x1.999999999c179p-2", "0x1.24924921e457ep-2",
                   "0x1.c71c748fb08e8p-3", "0x1.745c4adfff537p-3", "0x1.3b35c025b1cbdp-3",
                   "0x1.0dcba2411a039p-3", "0x1.1b81306b9798ap-3")


def _key(ty: ir.Type) -> str:
    return "f32" if is_f32(ty) else "f64"


def emit_tanh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """tanh(x); tanh(+-0) = +-0, tanh(+-inf) = +-1, NaN -> NaN.

    |x| < TANH_SMALL: the odd polynomial.  Above: 1 - 2/(e^2a + 1) with e^2a <= e^19 (f32),
    so one scaling step and no overflow; the division's error is damped by 2/(e^2a + 1) <= 1/2."""
    ty = x.type
    key = _key(ty)
    f = fmt_of(ty)
    a = fabs(b, x)
    z = b.fmul(a, a)
    small = mad(b, b.fmul(a, z), horner(b, z, TANH_P[key]), a)
    hi = fconst(ty, TANH_SATURATE[key])
    ac = select(b, fcmp(b, ">", a, hi), hi, a)  # NaN stays NaN
    p, t = exp_parts(b, ac, scale=2.0)
    e = b.fmul(p, pow2_from_shift(b, t, f.bias << f.mant))
    one = fconst(ty, 1.0)
    big = b.fsub(one, b.fdiv(fconst(ty, 2.0), b.fadd(e, one)))
    res = select(b, fcmp(b, "<", a, fconst(ty, TANH_SMALL)), small, big)
    return copysign(b, res, x)


def exp_neg(b: ir.IRBuilder, a: ir.Value) -> ir.Value:
    """exp(-a) for a >= 0 (or NaN), denormal results rounded once: like ``exp_finite`` but
    with k <= 0 known, the scale factors are 2^(k + B) and the constant 2^-B (no selects)."""
    ty = a.type
    f = fmt_of(ty)
    key = _key(ty)
    lim = fconst(ty, -EXP_RANGE[key][0])
    p, t = exp_parts(b, select(b, fcmp(b, ">", a, lim), lim, a), scale=-1.0)
    bias = EXP_SCALE_BIAS[key]
    s1 = pow2_from_shift(b, t, (f.bias + bias) << f.mant)
    return b.fmul(b.fmul(p, s1), fconst(ty, 2.0 ** -bias))


def emit_sigmoid(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """1/(1+exp(-x)) without overflow; denormal results for very negative x, NaN -> NaN.

    q = num/(1 + e) carries the rounding error of 1 + e (up to 1 ulp of q when q sits low in
    its binade); for x < 0 the result is taken as e - e*q (= e/(1 + e)), which damps that error
    by e/(1 + e) at the cost of one fma."""
    ty = x.type
    e = exp_neg(b, fabs(b, x))
    neg = fcmp(b, "<", x, fconst(ty, 0.0))
    one = fconst(ty, 1.0)
    q = b.fdiv(select(b, neg, e, one), b.fadd(one, e))
    return select(b, neg, fma(b, b.fneg(e), q, e), q)


def log1p_unit(b: ir.IRBuilder, e: ir.Value) -> ir.Value:
    """log1p(e) for e in [0, 1] (or NaN), without special cases.

    f = e (e <= 1/2) or (e - 1)/2 with n = 1 (both exact), log1p(e) = n*ln2 + log1p(f),
    f in [-1/4, 1/2].  f32: log1p(f) = f + f^2 Q(f) (no division).  f64: fdlibm's
    f - (f^2/2 - s (f^2/2 + R(s^2))), s = f/(2 + f)."""
    ty = e.type
    half = fconst(ty, 0.5)
    big = fcmp(b, ">", e, half)
    f = select(b, big, fma(b, e, half, fconst(ty, -0.5)), e)
    n = select(b, big, fconst(ty, 1.0), fconst(ty, 0.0))
    ln2_hi, ln2_lo = ln2_parts(ty)
    low = b.fmul(n, fconst(ty, ln2_lo))
    if is_f32(ty):
        t = b.fmul(f, horner(b, f, LOG1P_Q_F32))
        return mad(b, n, fconst(ty, ln2_hi), b.fadd(f, mad(b, f, t, low)))
    s = b.fdiv(f, b.fadd(f, fconst(ty, 2.0)))
    z = b.fmul(s, s)
    big_r = b.fmul(z, horner(b, z, LOG1P_R_F64))
    hfsq = b.fmul(half, b.fmul(f, f))
    inner = mad(b, s, b.fadd(hfsq, big_r), low)
    return mad(b, n, fconst(ty, ln2_hi), b.fsub(f, b.fsub(hfsq, inner)))


def emit_softplus(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)) without overflow: x for large x,
    exp(x) for very negative x, NaN -> NaN (through e; max(NaN, 0) is 0 here)."""
    ty = x.type
    e = exp_neg(b, fabs(b, x))
    pos = select(b, fcmp(b, ">", x, fconst(ty, 0.0)), x, fconst(ty, 0.0))
    return b.fadd(log1p_unit(b, e), pos)
