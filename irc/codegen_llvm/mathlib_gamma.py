"""lgamma (log |Gamma|, Theano's gammaln), Gamma itself and digamma (psi) as inline,
vectorizable LLVM IR.

For z > 0 every lane is moved to one of two kernels and corrected:
  z >= BIG: the asymptotic series (Stirling for lgamma: (z - 1/2) log z - z + log(2 pi)/2 +
            z^-1 S(z^-2); psi: log z - 1/(2z) - z^-2 T(z^-2), Bernoulli coefficients);
  otherwise the kernel interval [1.5, 2.5) (lgamma: v P(v), v = z - 2, exact, so the root at 2
            is exact) or [1, 2) (psi: v P(v), v = z - x0 with the root x0 = 1.4616... in two
            parts), reached by the recurrences, downward with a product (lgamma: + log of
            (z-1)...(z-n)) or a sum (psi: + 1/(z-1) + ... + 1/(z-n)), upward by one or two steps
            (lgamma: - log z - log1p(z); psi: - 1/z ...). The rounding error of the upward shift
            z + m is carried (Fast2Sum) and added to first order with the kernel's slope.
For z <= 0 the reflection formulas: lgamma(z) = log(pi / |sin(pi z)|) - lgamma(1 - z),
psi(z) = psi(1 - z) - pi / tan(pi z), with sin/cos of pi r, r = z - rint(z) exact.
Poles: lgamma = +inf at 0 and the negative integers; psi = -inf at +0 (+inf at -0), NaN at
the negative integers (scipy's conventions; lgamma(-inf) = -inf as scipy's gammaln). Near the roots of the results (lgamma at 1 and 2 aside, which
are exact) the error is small in absolute terms, not in ulps (see docs/mathlib.md).
Gamma(z) for z > 0 reuses the lgamma kernel: exp(v P(v)) on [1.5, 2.5) (an exponent below 0.33
in magnitude, so exp keeps its ulp), times (z-1)...(z-n) going down or divided by z (z + 1)
going up; from BIG on Stirling split so that nothing overflows early: sqrt(2 pi) v (v e^-z)
e^(z^-1 S(z^-2)) with v = z^(z/2 - 1/4); +inf past the overflow threshold. For z < 0 the
reflection Gamma(z) = pi / (sin(pi z) Gamma(1 - z)), which underflows to +-0 once Gamma(1 - z)
overflows (z < -170.6 in float64, -34.0 in float32: the true values there are below 1e-306,
resp. 1e-37); NaN at the negative integers and -inf, +-inf at +-0.
Kernel coefficients: `python -m irc.codegen_llvm.mathlib_remez --gamma`.
"""
from __future__ import annotations

from math import log, pi

from llvmlite import ir

from .mathlib_activation import log1p_unit
from .mathlib_common import copysign, fabs, fcmp, fconst, fma, horner, is_f32, rint, select, trunc, two_sum
from .mathlib_exp_log import emit_exp, emit_log
from .mathlib_pow import emit_pow
from .mathlib_trig import emit_sin


def _hex(*values: str) -> tuple[float, ...]:
    return tuple(float.fromhex(v) for v in values)


BIG = {"f32": 10.0, "f64": 12.0}
# lgamma(2 + v) = v P(v), |v| <= 1/2 [f32 2^-25.9, f64 2^-56.2 relative]
LGAMMA_P = {
    "f32": _hex("0x1.b0ee60p-2", "0x1.4a34ccp-2", "-0x1.13df1cp-4", "0x1.5134bcp-6", "-0x1.e5279ap-8",
                "0x1.793dd4p-9", "-0x1.1adf6ep-10", "0x1.3470b2p-11", "-0x1.e9f584p-12", "-0x1.aaba52p-15"),
    "f64": _hex("0x1.b0ee6072093cep-2", "0x1.4a34cc4a60fa6p-2", "-0x1.13e001a557522p-4", "0x1.51322ac7d8a19p-6",
                "-0x1.e404fc21edca4p-8", "0x1.7add6eacc7d1bp-9", "-0x1.38ac5befe5320p-10", "0x1.0b36b00f8de57p-11",
                "-0x1.d3fd72bb37c68p-13", "0x1.a1275e37e15d4p-14", "-0x1.78d7864f99e72p-15", "0x1.581c2372fcf46p-16",
                "-0x1.3d737a802c6b6p-17", "0x1.241cc14cd410ap-18", "-0x1.06a3994677b63p-19", "0x1.17785821feeccp-20",
                "-0x1.4bc2662771acfp-21", "0x1.eedce974ab3dap-26", "0x1.15becbe93e168p-25", "0x1.d099ba1930954p-23"),
}
# psi(x0 + v) = v P(v), x0 + v in [1, 2] [f32 2^-24.4, f64 2^-54.7 relative]
PSI_P = {
    "f32": _hex("0x1.ef72bep-1", "-0x1.c563b6p-2", "0x1.08b238p-2", "-0x1.4fbfdep-3", "0x1.ba7c76p-4",
                "-0x1.2803f0p-4", "0x1.7f53aep-5", "-0x1.096924p-5", "0x1.f7c2bep-6", "-0x1.3dff92p-6"),
    "f64": _hex("0x1.ef72bc8ee38acp-1", "-0x1.c563b54aa1a36p-2", "0x1.08b4294d501b3p-2", "-0x1.4fc1317257d08p-3",
                "0x1.b9a5b63748075p-4", "-0x1.27baba260aff8p-4", "0x1.8fce029bfd6aap-5", "-0x1.0fa7ec470ea15p-5",
                "0x1.723d6ca3fffd3p-6", "-0x1.f9704689ec686p-7", "0x1.5955352b90134p-7", "-0x1.d8298d3964c0dp-8",
                "0x1.42ee38d0c656fp-8", "-0x1.b98e94d99f5ebp-9", "0x1.2d69c9cb61b75p-9", "-0x1.9f01c5075c85fp-10",
                "0x1.2222854e004fap-10", "-0x1.782061efe55bfp-11", "0x1.b17aa7d01f9b5p-12", "-0x1.84838d0d184edp-12",
                "0x1.a8abfad76bb15p-12", "-0x1.99094d220d2cbp-13"),
}
PSI_ROOT = (float.fromhex("0x1.762d86356be3fp+0"), float.fromhex("0x1.b86a722197829p-54"))
PSI_ROOT_F32 = (float.fromhex("0x1.762d86p+0"), 1.2438149938918909e-08)
# Stirling: lgamma(z) ~ (z - 1/2) log z - z + log(2 pi)/2 + sum B_2k / (2k (2k-1) z^(2k-1))
STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)
# psi(z) ~ log z - 1/(2z) - sum B_2k / (2k z^2k)
PSI_ASYMPTOTIC = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12, -3617 / 8160)
HALF_LOG_2PI = 0.5 * log(2 * pi)
TRIGAMMA_1, TRIGAMMA_2 = pi * pi / 6, pi * pi / 6 - 1  # slopes of psi at 1 and 2
PSI_1, PSI_2 = -0.5772156649015329, 0.42278433509846713  # slopes of lgamma at 1 and 2


def _key(ty: ir.Type) -> str:
    return "f32" if is_f32(ty) else "f64"


def _fast_two_sum(b: ir.IRBuilder, a: ir.Value, c: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(s, e) with s = fl(a + c) and a + c = s + e exactly, for |a| >= |c|."""
    s = b.fadd(a, c)
    return s, b.fsub(c, b.fsub(s, a))


def _shift_up(b: ir.IRBuilder, z: ir.Value, lo: float, hi: float) -> tuple[ir.Value, ir.Value, ir.Value]:
    """For z < hi: (m, z + m rounded, its rounding error) with m = 1 or 2 so that z + m lands
    in [lo + 1, ...); m = 0 (and no error) for z >= hi."""
    ty = z.type
    zero = fconst(ty, 0.0)
    m = select(b, fcmp(b, "<", z, fconst(ty, lo)), fconst(ty, 2.0),
               select(b, fcmp(b, "<", z, fconst(ty, hi)), fconst(ty, 1.0), zero))
    s, e = _fast_two_sum(b, m, z)  # m >= z whenever m > 0
    return m, s, select(b, fcmp(b, ">", m, zero), e, zero)


def _down_steps(b: ir.IRBuilder, z: ir.Value, floor_at: float, steps: int):
    """(n, z - n) with n = trunc(z - floor_at) clamped to [0, steps] (exact subtraction)."""
    ty = z.type
    n = trunc(b, b.fsub(z, fconst(ty, floor_at)))
    n = select(b, fcmp(b, ">", n, fconst(ty, steps)), fconst(ty, steps), n)
    n = select(b, fcmp(b, "<", n, fconst(ty, 0.0)), fconst(ty, 0.0), n)
    return n, b.fsub(z, n)


def _reduced(b: ir.IRBuilder, z: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(prod, lgamma(zr)) for z > 0 below Stirling's range: zr is z moved into [1.5, 2.5)
    (up by one or two steps for z < 1.5, down by n for z >= 2.5, with prod = (z-1)...(z-n)),
    lgamma(zr) the kernel's, corrected for the rounding of the upward shift."""
    ty = z.type
    key = _key(ty)
    one = fconst(ty, 1.0)
    m, up, err = _shift_up(b, z, 0.5, 1.5)
    steps = int(BIG[key]) - 2
    n, down = _down_steps(b, z, 1.5, steps)
    prod = one
    for k in range(1, steps + 1):
        use = fcmp(b, "<=", fconst(ty, k), n)
        prod = b.fmul(prod, select(b, use, b.fsub(z, fconst(ty, k)), one))
    zr = select(b, fcmp(b, ">", m, fconst(ty, 0.0)), up, down)
    v = b.fsub(zr, fconst(ty, 2.0))
    kernel = b.fmul(v, horner(b, v, LGAMMA_P[key]))
    return prod, fma(b, err, fma(b, v, fconst(ty, TRIGAMMA_2), fconst(ty, PSI_2)), kernel)  # + err * psi(zr)


def _lgamma_positive(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """lgamma(z) for z > 0 (z >= BIG by Stirling, else via the kernel on [1.5, 2.5))."""
    ty = z.type
    key = _key(ty)
    one = fconst(ty, 1.0)
    prod, kernel = _reduced(b, z)
    log_z = emit_log(b, z)
    lifted = select(b, fcmp(b, "<", z, fconst(ty, 0.5)), b.fadd(log_z, log1p_unit(b, z)), log_z)
    small = b.fsub(kernel, lifted)
    middle = b.fadd(kernel, emit_log(b, prod))
    # Stirling
    r = b.fdiv(one, z)
    series = b.fmul(r, horner(b, b.fmul(r, r), STIRLING))
    big = b.fadd(fma(b, b.fsub(z, fconst(ty, 0.5)), log_z, b.fsub(fconst(ty, HALF_LOG_2PI), z)), series)
    out = select(b, fcmp(b, "<", z, fconst(ty, 1.5)), small, middle)
    return select(b, fcmp(b, "<", z, fconst(ty, BIG[key])), out, big)


def sin_cos_pi(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """sin(pi x), cos(pi x) through r = x - rint(x) (exact, |r| <= 1/2), with the sign of the
    period; cos(pi r) as sin(pi (1/2 - |r|)) (1/2 - |r| exact), so it is 0 at half-integers."""
    ty = x.type
    k = rint(b, x)
    r = b.fsub(x, k)
    odd = fcmp(b, "!=", b.fsub(k, b.fmul(fconst(ty, 2.0), rint(b, b.fmul(k, fconst(ty, 0.5))))),
               fconst(ty, 0.0))
    s = emit_sin(b, b.fmul(r, fconst(ty, pi)))
    c = emit_sin(b, b.fmul(b.fsub(fconst(ty, 0.5), fabs(b, r)), fconst(ty, pi)))
    return select(b, odd, b.fneg(s), s), select(b, odd, b.fneg(c), c)


def emit_lgamma(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log |Gamma(x)|; +inf at 0 and the negative integers and +inf, -inf at -inf (scipy's
    gammaln), NaN -> NaN."""
    ty = x.type
    inf = fconst(ty, float("inf"))
    pos = _lgamma_positive(b, x)
    reflected = _lgamma_positive(b, b.fsub(fconst(ty, 1.0), x))
    s, _ = sin_cos_pi(b, x)
    neg = b.fsub(emit_log(b, b.fdiv(fconst(ty, pi), fabs(b, s))), reflected)
    # tiny negative x: -log|x| - gamma x (pi/|sin(pi x)| would overflow near the denormals)
    tiny = fma(b, fconst(ty, -PSI_1), x, b.fneg(emit_log(b, fabs(b, x))))
    neg = select(b, fcmp(b, "<", fabs(b, x), fconst(ty, 2.0 ** -40)), tiny, neg)
    out = select(b, fcmp(b, ">", x, fconst(ty, 0.0)), pos, neg)
    return select(b, fcmp(b, "==", fabs(b, x), inf), x, out)


# Gamma overflows beyond these (the largest z with a finite Gamma(z), rounded down)
GAMMA_OVERFLOW = {"f32": 35.04, "f64": 171.624}


def _gamma_positive(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """Gamma(z) for z > 0 (see the module's docstring)."""
    ty = z.type
    key = _key(ty)
    one = fconst(ty, 1.0)
    prod, kernel = _reduced(b, z)
    g = emit_exp(b, kernel)                                                           # Gamma(zr)
    below = select(b, fcmp(b, "<", z, fconst(ty, 0.5)), b.fmul(z, b.fadd(z, one)), z)
    out = select(b, fcmp(b, "<", z, fconst(ty, 1.5)), b.fdiv(g, below), b.fmul(g, prod))
    r = b.fdiv(one, z)
    series = emit_exp(b, b.fmul(r, horner(b, b.fmul(r, r), STIRLING)))
    half_power = emit_pow(b, z, fma(b, z, fconst(ty, 0.5), fconst(ty, -0.25)))
    big = b.fmul(b.fmul(half_power, b.fmul(half_power, emit_exp(b, b.fneg(z)))),
                 b.fmul(series, fconst(ty, (2 * pi) ** 0.5)))
    big = select(b, fcmp(b, ">", z, fconst(ty, GAMMA_OVERFLOW[key])), fconst(ty, float("inf")), big)
    return select(b, fcmp(b, "<", z, fconst(ty, BIG[key])), out, big)


def emit_gamma(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Gamma(x); +-inf at +-0, NaN at the negative integers and -inf, +inf at +inf."""
    ty = x.type
    zero = fconst(ty, 0.0)
    pos = _gamma_positive(b, x)
    s, _ = sin_cos_pi(b, x)
    # 1 - x rounds when it crosses a binade: Gamma(1 - x) = Gamma(z)(1 + psi(z) e), z + e = 1 - x
    z, e = two_sum(b, fconst(ty, 1.0), b.fneg(x))
    reflected = b.fmul(_gamma_positive(b, z), fma(b, _psi_positive(b, z), e, fconst(ty, 1.0)))
    neg = b.fdiv(fconst(ty, pi), b.fmul(s, reflected))
    neg = select(b, fcmp(b, "==", rint(b, x), x), fconst(ty, float("nan")), neg)  # poles and -inf
    out = select(b, fcmp(b, ">", x, zero), pos, neg)
    out = select(b, fcmp(b, "==", x, fconst(ty, float("inf"))), x, out)
    return select(b, fcmp(b, "==", x, zero), copysign(b, fconst(ty, float("inf")), x), out)


def _psi_positive(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """psi(z) for z > 0."""
    ty = z.type
    key = _key(ty)
    one = fconst(ty, 1.0)
    zero = fconst(ty, 0.0)
    m, up, err = _shift_up(b, z, 0.0, 1.0)   # z < 1 -> z + 1 (m is never 2 here)
    steps = int(BIG[key]) - 1
    n, down = _down_steps(b, z, 1.0, steps)
    total = zero
    for k in range(1, steps + 1):
        use = fcmp(b, "<=", fconst(ty, k), n)
        total = b.fadd(total, select(b, use, b.fdiv(one, b.fsub(z, fconst(ty, k))), zero))
    zr = select(b, fcmp(b, ">", m, zero), up, down)
    hi, lo = PSI_ROOT_F32 if key == "f32" else PSI_ROOT
    v = b.fsub(b.fsub(zr, fconst(ty, hi)), fconst(ty, lo))
    kernel = b.fmul(v, horner(b, v, PSI_P[key]))
    slope = fma(b, b.fsub(zr, one), fconst(ty, -1.0), fconst(ty, TRIGAMMA_1))  # secant on [1, 2]
    kernel = fma(b, err, slope, kernel)                               # + err * trigamma(zr)
    small = b.fsub(kernel, b.fdiv(one, z))
    middle = b.fadd(kernel, total)
    r = b.fdiv(one, z)
    r2 = b.fmul(r, r)
    big = b.fsub(fma(b, fconst(ty, -0.5), r, emit_log(b, z)), b.fmul(r2, horner(b, r2, PSI_ASYMPTOTIC)))
    out = select(b, fcmp(b, "<", z, one), small, middle)
    return select(b, fcmp(b, "<", z, fconst(ty, BIG[key])), out, big)


def emit_psi(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """digamma(x); -inf at +0, +inf at -0, NaN at the negative integers and -inf, +inf at
    +inf (scipy's psi)."""
    ty = x.type
    zero = fconst(ty, 0.0)
    pos = _psi_positive(b, x)
    s, c = sin_cos_pi(b, x)
    neg = b.fsub(_psi_positive(b, b.fsub(fconst(ty, 1.0), x)), b.fdiv(b.fmul(fconst(ty, pi), c), s))
    pole = fcmp(b, "==", rint(b, x), x)  # a non-positive integer (or -inf)
    neg = select(b, pole, fconst(ty, float("nan")), neg)
    out = select(b, fcmp(b, ">", x, zero), pos, neg)
    out = select(b, fcmp(b, "==", x, fconst(ty, float("inf"))), x, out)
    return select(b, fcmp(b, "==", x, zero), copysign(b, fconst(ty, float("inf")), b.fneg(x)), out)
