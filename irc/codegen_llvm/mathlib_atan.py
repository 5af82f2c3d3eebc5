"""arctan, arctan2, arcsin and arccos as inline, vectorizable LLVM IR: one arctan kernel.

The kernel takes q >= 0 and picks one of five intervals of q (breaks at 7/16, 11/16, 19/16,
39/16), where arctan(q) = B + arctan(t) with a base B in two parts (hi + lo) and a reduced
argument t = num/den, |t| <= 7/16, found with one division whose numerator is exact:
q, (2q - 1)/(q + 2), (q - 1)/(q + 1), (q - 3/2)/(1 + 3q/2), -1/q (B = 0, arctan 1/2, pi/4,
arctan 3/2, pi/2). arctan(t) = t + t z P(z), z = t^2, minimax (`mathlib_remez --atan`: f32
5 terms, 2^-29.6; f64 11 terms, 2^-57.7). The sum B_hi + ((t z P + B_lo) + t) is rounded once
at the end, and the larger the base the more the rounding error of t is damped. With `flip`,
the kernel returns pi - arctan(q) from a second table of bases (pi - B in two parts) and the
reduced part negated: rounded once too, with no cancellation (arctan2 for x < 0, arccos for
x < 0). No branches: every interval's constants are selected, one division and one polynomial.

* arctan(x) = sign(x) kernel(|x|).
* arctan2(y, x) = sign(y) kernel(|y|/|x|, flip = signbit(x)), with |y|/|x| taken as 0 when
  both are 0 and 1 when both are infinite (the quadrant results of C99 Annex F: signed zeros,
  +-pi, +-pi/4, +-3pi/4). An overflowing ratio gives pi/2, which is arctan's rounded value
  there; an underflowing one gives the ratio itself, correctly rounded.
* arcsin(x) = sign(x) kernel(|x|/d), arccos(x) = kernel(d/|x|, flip = signbit(x)), where
  d = sqrt(1 - x^2) is computed from one fma: 1 - a^2 for a = |x| <= 1/2, (1 - a) a + (1 - a)
  above (1 - a is exact there), so there is no cancellation near +-1. |x| > 1 gives NaN.
"""
from __future__ import annotations

from llvmlite import ir

from .mathlib_common import copysign, fabs, fcmp, fconst, fma, horner, intrinsic, is_f32, select


def _hex(*values: str) -> tuple[float, ...]:
    return tuple(float.fromhex(v) for v in values)


# arctan(t) = t + t z P(z), z = t^2, |t| <= 7/16 (coefficients of z^0.. in P)
ATAN_P = {
    "f32": _hex("-0x1.555542p-2", "0x1.998df8p-3", "-0x1.236f16p-3", "0x1.add6b4p-4", "-0x1.dd3c82p-5"),
    "f64": _hex("-0x1.555555555550bp-2", "0x1.999999998e7ecp-3", "-0x1.2492491ff378cp-3",
                "0x1.c71c6fdb3227fp-4", "-0x1.745cdba6e7049p-4", "0x1.3b0f2082c0ea4p-4",
                "-0x1.10d6030d31098p-4", "0x1.ddddc08180ea1p-5", "-0x1.97a0cebcabd93p-5",
                "0x1.2b184fcfe8eb1p-5", "-0x1.0a7fdf96595f0p-6"),
}
BREAKS = (7 / 16, 11 / 16, 19 / 16, 39 / 16)
# the bases 0, arctan 1/2, pi/4, arctan 3/2, pi/2 (hi, lo) and pi minus each of them
ATAN_BASE = {
    "f32": (_hex("0x0p+0", "0x0p+0"), _hex("0x1.dac670p-2", "0x1.586ed4p-28"),
            _hex("0x1.921fb6p-1", "-0x1.777a5cp-26"), _hex("0x1.f730bep-1", "-0x1.afc12cp-26"),
            _hex("0x1.921fb6p+0", "-0x1.777a5cp-25")),
    "f64": (_hex("0x0p+0", "0x0p+0"), _hex("0x1.dac670561bb4fp-2", "0x1.a2b7f222f65e2p-56"),
            _hex("0x1.921fb54442d18p-1", "0x1.1a62633145c07p-55"),
            _hex("0x1.f730bd281f69bp-1", "0x1.007887af0cbbdp-56"),
            _hex("0x1.921fb54442d18p+0", "0x1.1a62633145c07p-54")),
}
PI_MINUS_BASE = {
    "f32": (_hex("0x1.921fb6p+1", "-0x1.777a5cp-24"), _hex("0x1.56c6e8p+1", "-0x1.8d014ap-24"),
            _hex("0x1.2d97c8p+1", "-0x1.99bc5cp-28"), _hex("0x1.145386p+1", "-0x1.71423ap-29"),
            _hex("0x1.921fb6p+0", "-0x1.777a5cp-25")),
    "f64": (_hex("0x1.921fb54442d18p+1", "0x1.1a62633145c07p-53"),
            _hex("0x1.56c6e7397f5aep+1", "0x1.660b64ece6f4bp-53"),
            _hex("0x1.2d97c7f3321d2p+1", "0x1.a79394c9e8a0ap-54"),
            _hex("0x1.145385fa3af71p+1", "0x1.fa53523b6428fp-53"),
            _hex("0x1.921fb54442d18p+0", "0x1.1a62633145c07p-54")),
}


def _key(ty: ir.Type) -> str:
    return "f32" if is_f32(ty) else "f64"


def _by_interval(b: ir.IRBuilder, q: ir.Value, values: list[ir.Value]) -> ir.Value:
    """values[k] where q lies in the k-th interval; the last one for q past 39/16 and NaN."""
    out = values[-1]
    for brk, value in zip(reversed(BREAKS), reversed(values[:-1])):
        out = select(b, fcmp(b, "<", q, fconst(q.type, brk)), value, out)
    return out


def atan_kernel(b: ir.IRBuilder, q: ir.Value, flip: ir.Value | None = None,
                q_lo: ir.Value | None = None) -> ir.Value:
    """arctan(q + q_lo) for q >= 0 (NaN -> NaN), or pi - arctan(q + q_lo) where `flip` (an i1
    of q's shape). `q_lo`, the rounding error of a computed q, enters to first order, as
    q_lo / (1 + q^2) (dropped where that is not finite: q = inf or q_lo = NaN)."""
    ty = q.type
    key = _key(ty)
    one = fconst(ty, 1.0)
    num = _by_interval(b, q, [q, fma(b, q, fconst(ty, 2.0), fconst(ty, -1.0)), b.fsub(q, one),
                              b.fsub(q, fconst(ty, 1.5)), fconst(ty, -1.0)])
    den = _by_interval(b, q, [one, b.fadd(q, fconst(ty, 2.0)), b.fadd(q, one),
                              fma(b, q, fconst(ty, 1.5), one), q])
    t = b.fdiv(num, den)
    tail = b.fmul(t, b.fmul(b.fmul(t, t), horner(b, b.fmul(t, t), ATAN_P[key])))  # t z P(z)
    if q_lo is not None:
        slope = b.fdiv(q_lo, fma(b, q, q, one))
        tail = b.fadd(tail, select(b, fcmp(b, "<", fabs(b, slope), fconst(ty, float("inf"))),
                                   slope, fconst(ty, 0.0)))
    bases = [(fconst(ty, hi), fconst(ty, lo)) for hi, lo in ATAN_BASE[key]]
    if flip is not None:
        flipped = [(fconst(ty, hi), fconst(ty, lo)) for hi, lo in PI_MINUS_BASE[key]]
        bases = [(select(b, flip, fh, bh), select(b, flip, fl, bl)) for (bh, bl), (fh, fl) in zip(bases, flipped)]
        t = select(b, flip, b.fneg(t), t)
        tail = select(b, flip, b.fneg(tail), tail)
    hi = _by_interval(b, q, [h for h, _ in bases])
    lo = _by_interval(b, q, [lo for _, lo in bases])
    return b.fadd(hi, b.fadd(b.fadd(tail, lo), t))


def _sign_bit(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """True where x has its sign bit set (-0.0 and -inf included, NaN by its bit)."""
    return fcmp(b, "<", copysign(b, fconst(x.type, 1.0), x), fconst(x.type, 0.0))


def emit_arctan(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """arctan(x); +-0 -> +-0, +-inf -> +-pi/2 (rounded), NaN -> NaN."""
    return copysign(b, atan_kernel(b, fabs(b, x)), x)


def emit_arctan2(b: ir.IRBuilder, y: ir.Value, x: ir.Value) -> ir.Value:
    """arctan2(y, x), the angle of the point (x, y), in [-pi, pi]; C99 Annex F special values."""
    ty = y.type
    ay, ax = fabs(b, y), fabs(b, x)
    equal = fcmp(b, "==", ay, ax)  # both 0 (ratio 0) or both inf (ratio 1): 0/0 and inf/inf
    tied = select(b, fcmp(b, "==", ay, fconst(ty, 0.0)), fconst(ty, 0.0), fconst(ty, 1.0))
    ratio = b.fdiv(ay, ax)
    q = select(b, equal, tied, ratio)
    q_lo = b.fdiv(fma(b, b.fneg(ratio), ax, ay), ax)  # ay = ratio ax + remainder, exactly
    return copysign(b, atan_kernel(b, q, _sign_bit(b, x), q_lo), y)


def _sqrt_one_minus_square(b: ir.IRBuilder, a: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(d, d_lo): sqrt(1 - a^2) for a = |x| as a rounded value and its error to first order
    (NaN for a > 1). The radicand comes from one fma, 1 - a^2 for a <= 1/2 and (1 - a) a +
    (1 - a) above, 1 - a exact there, and its own rounding error is recovered exactly."""
    ty = a.type
    one = fconst(ty, 1.0)
    low = fcmp(b, "<=", a, fconst(ty, 0.5))
    small = fma(b, b.fneg(a), a, one)
    square = b.fmul(a, a)
    small_err = b.fsub(b.fsub(b.fsub(one, small), square), fma(b, a, a, b.fneg(square)))
    c = b.fsub(one, a)
    large = fma(b, c, a, c)
    large_err = fma(b, c, a, b.fsub(c, large))
    radicand = select(b, low, small, large)
    error = select(b, low, small_err, large_err)  # exact radicand = radicand + error
    d = intrinsic(b, "sqrt", [radicand])
    d_lo = b.fdiv(b.fadd(fma(b, b.fneg(d), d, radicand), error), b.fadd(d, d))
    return d, d_lo


def emit_arcsin(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """arcsin(x) = arctan(x / sqrt(1 - x^2)); +-1 -> +-pi/2, |x| > 1 -> NaN."""
    a = fabs(b, x)
    d, d_lo = _sqrt_one_minus_square(b, a)
    q = b.fdiv(a, d)
    q_lo = b.fdiv(b.fsub(fma(b, b.fneg(q), d, a), b.fmul(q, d_lo)), d)  # a / (d + d_lo) - q
    return copysign(b, atan_kernel(b, q, None, q_lo), x)


def emit_arccos(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """arccos(x) = arctan2(sqrt(1 - x^2), x); 1 -> +0, -1 -> pi, |x| > 1 -> NaN."""
    a = fabs(b, x)
    d, d_lo = _sqrt_one_minus_square(b, a)
    q = b.fdiv(d, a)
    q_lo = b.fdiv(b.fadd(fma(b, b.fneg(q), a, d), d_lo), a)  # (d + d_lo) / a - q
    return atan_kernel(b, q, _sign_bit(b, x), q_lo)
