"""exp, expm1, log, log1p as inline, vectorizable LLVM IR.

exp/expm1 share one reduction: k = rint(x/ln2), r = x - k*ln2 (two fma steps, |r| <= ln2/2),
expm1(r) = r + r^2*P(r).  f32 uses the Cephes expf minimax P; f64 uses the Taylor series to
r^13 (truncation < 2^-56).  exp = (1 + expm1(r)) * 2^k, scaled in two steps so overflow and
gradual underflow round once.  expm1 = (2^k - 1) + 2^k*expm1(r) while 2^k - 1 is exact, with
|x| < 0.75 left unreduced (a longer Taylor polynomial) so that 1 + 2*expm1(r) never cancels.

log: x = 2^e * m, m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), result e*ln2 (hi/lo split)
+ log(1+f).  f32 uses the Cephes logf minimax polynomial, log(1+f) = f - f^2/2 + f^3*P(f) (no
division, which matters on the GPU); f64 follows fdlibm's e_log: s = f/(2+f),
log(1+f) = f - f^2/2 + s*(f^2/2 + R(s^2)) with R the atanh series 2z/3 + 2z^2/5 + ... to
z^10.  Denormals are scaled up first (no flush).  log1p adds the rounding error of u = 1 + x
back as err/u.
"""
from __future__ import annotations

from math import factorial, sqrt

from llvmlite import ir

from .mathlib_common import (clamp, const, fconst, fcmp, fma, fmt_of, horner, int_type_for,
                             is_f32, isnan, ldexp_exact, mad, pow2i, rint, select, to_int, fabs)

LOG2E = float.fromhex("0x1.71547652b82fep+0")
# ln2 = HI + LO; HI has trailing zero bits so k*HI is exact for the k that occur.
LN2_HI_F64 = float.fromhex("0x1.62e42fee00000p-1")
LN2_LO_F64 = float.fromhex("0x1.a39ef35793c76p-33")
LN2_HI_F32 = float.fromhex("0x1.62ep-1")
LN2_LO_F32 = float.fromhex("0x1.0bfbe8p-15")

# Cephes expf: exp(r) = 1 + r + r^2 * P(r), coefficients from the constant term up.
EXPM1_P_F32 = (5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2, 8.3334519073e-3,
               1.3981999507e-3, 1.9875691500e-4)
EXPM1_P_F64 = tuple(1.0 / factorial(j + 2) for j in range(12))

# expm1 on |r| < EXPM1_DIRECT: Taylor to r^10 (f32, truncation < 2^-28) and r^17 (f64, < 2^-58).
EXPM1_DIRECT = 0.75
EXPM1_WIDE_F32 = tuple(1.0 / factorial(j + 2) for j in range(9))
EXPM1_WIDE_F64 = tuple(1.0 / factorial(j + 2) for j in range(16))

# exp argument clamps: beyond them the result is inf or 0 (and 2^k stays representable).
EXP_RANGE = {"f32": (-104.0, 89.0), "f64": (-746.0, 710.0)}
# expm1 below these is -1 to the last bit; 2^k stays normal.
EXPM1_LO = {"f32": -30.0, "f64": -45.0}

# Cephes logf: log(1+f) = f - f^2/2 + f^3 * P(f), constant term first.
LOG_P_F32 = (3.3333331174e-1, -2.4999993993e-1, 2.0000714765e-1, -1.6668057665e-1,
             1.4249322787e-1, -1.2420140846e-1, 1.1676998740e-1, -1.1514610310e-1,
             7.0376836292e-2)
LOG_R_TERMS_F64 = 10


def _key(ty: ir.Type) -> str:
    return "f32" if is_f32(ty) else "f64"


def ln2_parts(ty: ir.Type) -> tuple[float, float]:
    return (LN2_HI_F32, LN2_LO_F32) if is_f32(ty) else (LN2_HI_F64, LN2_LO_F64)


def expm1_poly(b: ir.IRBuilder, r: ir.Value) -> ir.Value:
    """expm1(r) for |r| <= ln2/2."""
    coeffs = EXPM1_P_F32 if is_f32(r.type) else EXPM1_P_F64
    return mad(b, b.fmul(r, r), horner(b, r, coeffs), r)


def exp_reduce(b: ir.IRBuilder, x: ir.Value, lo: float, hi: float,
               xlo: ir.Value | None = None) -> tuple[ir.Value, ir.Value]:
    """(k, r) with x + xlo = k*ln2 + r; x clamped to [lo, hi], NaN mapped to 0 (for fptosi)."""
    ty = x.type
    xc = clamp(b, x, lo, hi)
    xc = select(b, isnan(b, xc), fconst(ty, 0.0), xc)
    kf = rint(b, b.fmul(xc, fconst(ty, LOG2E)))
    ln2_hi, ln2_lo = ln2_parts(ty)
    r = fma(b, kf, fconst(ty, -ln2_hi), xc)
    r = fma(b, kf, fconst(ty, -ln2_lo), r)
    if xlo is not None:  # the low part of a double-word argument (pow); dropped when clamped
        inside = b.and_(fcmp(b, "==", xc, x), b.fcmp_ordered("ord", xlo, xlo))
        r = b.fadd(r, select(b, inside, xlo, fconst(ty, 0.0)))
    return to_int(b, kf), r


def exp_finite(b: ir.IRBuilder, x: ir.Value, xlo: ir.Value | None = None) -> ir.Value:
    """exp(x [+ xlo]) without the NaN fix-up (NaN inputs give a garbage finite result)."""
    lo, hi = EXP_RANGE[_key(x.type)]
    k, r = exp_reduce(b, x, lo, hi, xlo)
    y = b.fadd(expm1_poly(b, r), fconst(x.type, 1.0))
    return ldexp_exact(b, y, k)


def emit_exp(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """exp(x): overflow -> inf, underflow -> 0 through correctly rounded denormals, NaN -> NaN."""
    return select(b, isnan(b, x), x, exp_finite(b, x))


def emit_expm1(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """expm1(x): exact for tiny x and +-0, -1 for very negative x, inf on overflow.

    |x| < 0.75 is not reduced (k = 0, r = x, a longer Taylor polynomial): with the usual
    reduction, x just above ln2/2 gives k = 1 and 1 + 2*expm1(r) cancels (1.7 ulp)."""
    ty = x.type
    f = fmt_of(ty)
    key = _key(ty)
    k, r = exp_reduce(b, x, EXPM1_LO[key], EXP_RANGE[key][1])
    near0 = fcmp(b, "<", fabs(b, x), fconst(ty, EXPM1_DIRECT))
    k = select(b, near0, const(k.type, 0), k)
    r = select(b, near0, x, r)
    coeffs = EXPM1_WIDE_F32 if is_f32(ty) else EXPM1_WIDE_F64
    p = mad(b, b.fmul(r, r), horner(b, r, coeffs), r)
    ity = int_type_for(ty)
    thr = const(ity, f.mant + 1)
    big = b.icmp_signed(">", k, thr)
    t = pow2i(b, select(b, big, thr, k), ty)
    small_res = mad(b, t, p, b.fsub(t, fconst(ty, 1.0)))
    big_res = b.fsub(ldexp_exact(b, b.fadd(p, fconst(ty, 1.0)), k), fconst(ty, 1.0))
    res = select(b, big, big_res, small_res)
    zero_or_nan = b.fcmp_unordered("ueq", x, fconst(ty, 0.0))
    return select(b, zero_or_nan, x, res)


def log_reduce(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(e, f) as floats with x = 2^e * (1 + f), 1 + f in [sqrt(1/2), sqrt(2)), f exact;
    x positive and finite (denormals are scaled up first)."""
    ty = x.type
    f = fmt_of(ty)
    ity = int_type_for(ty)
    min_normal = 2.0 ** (1 - f.bias)
    den = fcmp(b, "<", x, fconst(ty, min_normal))
    x = select(b, den, b.fmul(x, fconst(ty, 2.0 ** (f.mant + 2))), x)
    e_adj = select(b, den, const(ity, -(f.mant + 2)), const(ity, 0))
    bits = b.bitcast(x, ity)
    e = b.add(b.sub(b.lshr(bits, const(ity, f.mant)), const(ity, f.bias)), e_adj)
    mbits = b.or_(b.and_(bits, const(ity, (1 << f.mant) - 1)), const(ity, f.bias << f.mant))
    m = b.bitcast(mbits, ty)
    up = fcmp(b, ">", m, fconst(ty, sqrt(2.0)))
    m = select(b, up, b.fmul(m, fconst(ty, 0.5)), m)
    e = b.add(e, select(b, up, const(ity, 1), const(ity, 0)))
    return b.sitofp(e, ty), b.fsub(m, fconst(ty, 1.0))


def log_finite(b: ir.IRBuilder, x: ir.Value, corr: ir.Value | None = None) -> ir.Value:
    """log(x) [+ corr] for positive finite x (denormals included); a small correction ``corr``
    joins the low-order terms, so the sum is rounded once."""
    ty = x.type
    ef, fr = log_reduce(b, x)
    ln2_hi, ln2_lo = ln2_parts(ty)
    low = b.fmul(ef, fconst(ty, ln2_lo))
    if corr is not None:
        low = b.fadd(low, corr)
    if is_f32(ty):
        z = b.fmul(fr, fr)
        y = b.fmul(b.fmul(fr, z), horner(b, fr, LOG_P_F32))
        y = b.fadd(y, low)
        y = mad(b, z, fconst(ty, -0.5), y)
        return mad(b, ef, fconst(ty, ln2_hi), b.fadd(fr, y))
    s = b.fdiv(fr, b.fadd(fr, fconst(ty, 2.0)))
    z = b.fmul(s, s)
    terms = [2.0 / (2 * j + 3) for j in range(LOG_R_TERMS_F64)]
    big_r = b.fmul(z, horner(b, z, terms))
    hfsq = b.fmul(fconst(ty, 0.5), b.fmul(fr, fr))
    inner = mad(b, s, b.fadd(hfsq, big_r), low)
    tail = b.fsub(b.fsub(hfsq, inner), fr)
    return b.fsub(b.fmul(ef, fconst(ty, ln2_hi)), tail)


def _log_specials(b: ir.IRBuilder, x: ir.Value, res: ir.Value, zero_at: float) -> ir.Value:
    """Fix-ups for log-like functions whose pole is at ``zero_at`` (0 for log, -1 for log1p)."""
    ty = x.type
    inf = float("inf")
    res = select(b, fcmp(b, "==", x, fconst(ty, inf)), fconst(ty, inf), res)
    res = select(b, fcmp(b, "==", x, fconst(ty, zero_at)), fconst(ty, -inf), res)
    res = select(b, fcmp(b, "<", x, fconst(ty, zero_at)), fconst(ty, float("nan")), res)
    return select(b, isnan(b, x), x, res)


def _positive_finite_or_one(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    ty = x.type
    ok = b.and_(fcmp(b, ">", x, fconst(ty, 0.0)), fcmp(b, "<", x, fconst(ty, float("inf"))))
    return select(b, ok, x, fconst(ty, 1.0))


def emit_log(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log(x): log(0) = -inf, log(x<0) = NaN, log(inf) = inf, denormals exact-range."""
    res = log_finite(b, _positive_finite_or_one(b, x))
    return _log_specials(b, x, res, 0.0)


def emit_log1p(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log1p(x) = log(u) + err/u with u = 1 + x rounded and err its rounding error."""
    ty = x.type
    one = fconst(ty, 1.0)
    u = b.fadd(one, x)
    small = fcmp(b, "<=", fabs(b, x), one)
    err = select(b, small, b.fsub(x, b.fsub(u, one)), b.fsub(one, b.fsub(u, x)))
    us = _positive_finite_or_one(b, u)
    res = log_finite(b, us, b.fdiv(err, us))
    res = _log_specials(b, x, res, -1.0)
    return select(b, fcmp(b, "==", x, fconst(ty, 0.0)), x, res)
