"""exp, expm1, log, log1p as inline, vectorizable LLVM IR.

exp: t = fma(x, log2e, 1.5*2^p) holds k = rint(x*log2e) in its low mantissa bits (no fptosi,
so NaN flows through to the result instead of making poison), r = x - k*ln2 in two fma steps
(|r| <= ln2/2), exp(r) = 1 + r + c2 r^2 + ... by Horner (minimax: f32 degree 6, f64 degree 11,
fitted by ``mathlib_remez``), then 2^k applied as 2^(k -+ B) * 2^(+-B) with B by the sign
of x, so that overflow gives inf and gradual underflow rounds once.  Callers whose argument
range is known (tanh, sigmoid, softplus) take ``exp_parts`` and scale in one step.

expm1: k = rint(x/ln2) reduction, (2^k - 1) + 2^k*expm1(r) while 2^k - 1 is exact, with
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

# exp(r) = 1 + r + c2 r^2 + ... on |r| <= ln2/2, minimax for relative error with the
# coefficients rounded to the format (``python -m irc.codegen_llvm.mathlib_remez``):
# f32 degree 6 (2^-28.2), f64 degree 11 (2^-57.9).
EXP_P = {
    "f32": tuple(float.fromhex(h) for h in (
        "0x1.fffffcp-2", "0x1.555492p-3", "0x1.5558b4p-5", "0x1.123998p-7", "0x1.6a48bcp-10")),
    "f64": tuple(float.fromhex(h) for h in (
        "0x1.000000000000ap-1", "0x1.5555555555508p-3", "0x1.555555555074ep-5",
        "0x1.11111111253d9p-7", "0x1.6c16c184532bfp-10", "0x1.a01a013496c52p-13",
        "0x1.a01999b829b8ap-16", "0x1.71df130fa3b6fp-19", "0x1.28adb64847c1ap-22",
        "0x1.ad9782e1ca2adp-26")),
}
# fma(x, log2e, SHIFT) rounds x*log2e to an integer k held in the low mantissa bits.
EXP_SHIFT = {"f32": 1.5 * 2.0 ** 23, "f64": 1.5 * 2.0 ** 52}
# 2^k is applied as 2^(k -+ B) * 2^(+-B): B keeps both factors normal for every clamped k.
EXP_SCALE_BIAS = {"f32": 64, "f64": 512}

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


def exp_reduce(b: ir.IRBuilder, x: ir.Value, lo: float, hi: float) -> tuple[ir.Value, ir.Value]:
    """(k, r) with x = k*ln2 + r as an integer k; x clamped to [lo, hi], NaN mapped to 0 (for
    fptosi).  Used by expm1, which needs k as an integer."""
    ty = x.type
    xc = clamp(b, x, lo, hi)
    xc = select(b, isnan(b, xc), fconst(ty, 0.0), xc)
    kf = rint(b, b.fmul(xc, fconst(ty, LOG2E)))
    ln2_hi, ln2_lo = ln2_parts(ty)
    r = fma(b, kf, fconst(ty, -ln2_hi), xc)
    r = fma(b, kf, fconst(ty, -ln2_lo), r)
    return to_int(b, kf), r


def exp_parts(b: ir.IRBuilder, x: ir.Value, xlo: ir.Value | None = None, scale: float = 1.0
              ) -> tuple[ir.Value, ir.Value]:
    """(p, t) with exp(scale*x [+ xlo]) = p * 2^k, p = exp(r) in [0.7, 1.42], for scale*x in
    the exp range (NaN allowed: it flows into p).  k sits in the low bits of t
    (``pow2_from_shift``); no fptosi, so NaN makes no poison.  ``scale`` (a power of two,
    maybe negative) is folded into the constants: r = scale*(x - k*ln2/scale) and the
    polynomial in x - k*ln2/scale has coefficients c_j*scale^j, all exact.  ``xlo`` (a low
    part of the argument, pow) needs scale 1."""
    if xlo is not None and scale != 1.0:
        raise ValueError("exp_parts: xlo needs scale 1")
    ty = x.type
    key = _key(ty)
    shift = fconst(ty, EXP_SHIFT[key])
    t = fma(b, x, fconst(ty, LOG2E * scale), shift)  # k + shift: rint(scale*x*log2e)
    kf = b.fsub(t, shift)
    ln2_hi, ln2_lo = ln2_parts(ty)
    r = fma(b, kf, fconst(ty, -ln2_hi / scale), x)
    r = fma(b, kf, fconst(ty, -ln2_lo / scale), r)
    if xlo is not None:
        r = b.fadd(r, xlo)
    coeffs = (1.0, 1.0) + EXP_P[key]
    return horner(b, r, [c * scale ** j for j, c in enumerate(coeffs)]), t


def pow2_from_shift(b: ir.IRBuilder, t: ir.Value, exp_bits: ir.Value | int) -> ir.Value:
    """2^(k + e) from t of ``exp_parts`` and the biased exponent offset ``exp_bits`` =
    (bias + e) << mant (an int constant or value); k + e must be in the normal range."""
    ty = t.type
    f = fmt_of(ty)
    ity = int_type_for(ty)
    if isinstance(exp_bits, int):
        exp_bits = const(ity, exp_bits)
    kbits = b.shl(b.bitcast(t, ity), const(ity, f.mant))  # k << mant, modulo the width
    return b.bitcast(b.add(kbits, exp_bits), ty)


def exp_finite(b: ir.IRBuilder, x: ir.Value, xlo: ir.Value | None = None) -> ir.Value:
    """exp(x [+ xlo]) for any x: overflow -> inf, underflow -> correctly rounded denormals,
    NaN -> NaN (it flows through the arithmetic)."""
    ty = x.type
    f = fmt_of(ty)
    ity = int_type_for(ty)
    key = _key(ty)
    lo, hi = EXP_RANGE[key]
    xc = clamp(b, x, lo, hi)
    if xlo is not None:  # the low part of a double-word argument (pow); dropped when clamped
        inside = b.and_(fcmp(b, "==", xc, x), b.fcmp_ordered("ord", xlo, xlo))
        xlo = select(b, inside, xlo, fconst(ty, 0.0))
    p, t = exp_parts(b, xc, xlo)
    # 2^k = 2^(k -+ B) * 2^(+-B) (B by the sign of x): both factors normal over the clamped
    # range, so p * 2^(k -+ B) is exact and the second product rounds once (denormals too).
    neg = fcmp(b, "<", x, fconst(ty, 0.0))
    bias = EXP_SCALE_BIAS[key]
    e1 = select(b, neg, const(ity, (f.bias + bias) << f.mant),
                const(ity, (f.bias - bias) << f.mant))
    s2 = select(b, neg, fconst(ty, 2.0 ** -bias), fconst(ty, 2.0 ** bias))
    return b.fmul(b.fmul(p, pow2_from_shift(b, t, e1)), s2)


def emit_exp(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """exp(x): overflow -> inf, underflow -> 0 through correctly rounded denormals, NaN -> NaN."""
    return exp_finite(b, x)


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
    """(e, f) as floats with x = 2^e * (1 + f), 1 + f in [sqrt(1/2), sqrt(2)), f exact, for
    positive finite x (denormals are scaled up first).  Zero, negative, inf and NaN give
    finite garbage (no poison) that the caller replaces: screening them out beforehand costs
    instructions, and its integer compare made LLVM's code 4x slower on znver (vpternlogd
    materializing all-ones is no dependency breaker there)."""
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
    """log(x) [+ corr] for positive finite x (denormals included; other x: garbage, see
    ``log_reduce``); a small correction ``corr`` joins the low-order terms, so the sum is
    rounded once."""
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


def emit_log(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log(x): log(0) = -inf, log(x<0) = NaN, log(inf) = inf, denormals exact-range."""
    return _log_specials(b, x, log_finite(b, x), 0.0)


def emit_log1p(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log1p(x) = log(u) + err/u with u = 1 + x rounded and err its rounding error."""
    ty = x.type
    one = fconst(ty, 1.0)
    u = b.fadd(one, x)
    small = fcmp(b, "<=", fabs(b, x), one)
    err = select(b, small, b.fsub(x, b.fsub(u, one)), b.fsub(one, b.fsub(u, x)))
    res = log_finite(b, u, b.fdiv(err, u))
    res = _log_specials(b, x, res, -1.0)
    return select(b, fcmp(b, "==", x, fconst(ty, 0.0)), x, res)
