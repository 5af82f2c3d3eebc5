"""erf and erfc as inline, vectorizable LLVM IR.

|x| < 0.75: erf(x) = x + x P(x^2) (minimax for relative error; the leading x is exact),
erfc(x) = 1 - erf(x).
|x| >= 0.75, a = |x|: erfc(a) = exp(-a^2) erfcx(a), where erfcx (the scaled complementary
error function) is smooth and slowly varying: a polynomial in a - c on [0.75, 2] (and on
[2, 4] in f64), and Q(1/a^2)/a beyond, its asymptotic shape. exp(-a^2) takes the exact square
a^2 = hi + lo (one fma) through the exp reduction with a low part, and is scaled in two steps
so that denormal results round once; erfc is 0 past ERFC_ZERO (it underflows).
erfc(-a) = 2 - erfc(a); erf(x) = sign(x) (1 - erfc(a)). No branches: every piece is computed
and the right one selected, so the loop vectorizer widens it. NaN -> NaN, erf(+-inf) = +-1,
erfc(+inf) = 0, erfc(-inf) = 2. Coefficients: `python -m irc.codegen_llvm.mathlib_remez --erf`
(fitted in mpmath, rounded to the format); the accuracy is in docs/mathlib.md.
"""
from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from .mathlib_common import copysign, fabs, fcmp, fconst, fma, fmt_of, horner, is_f32, select
from .mathlib_exp_log import EXP_SCALE_BIAS, exp_parts, pow2_from_shift


def _hex(*values: str) -> tuple[float, ...]:
    return tuple(float.fromhex(v) for v in values)


ERF_SMALL = 0.75
ERFC_ZERO = {"f32": 10.1, "f64": 27.25}  # erfc(a) rounds to 0 beyond
# erf(x) = x + x P(x^2) on [0, 0.75] [f32 2^-30.1, f64 2^-56.3 relative, coefficients rounded]
ERF_P = {
    "f32": _hex("0x1.06eba8p-3", "-0x1.812746p-2", "0x1.ce2efcp-4", "-0x1.b826dcp-6", "0x1.55e18ap-8",
                "-0x1.b61526p-11", "0x1.8cebe2p-14"),
    "f64": _hex("0x1.06eba8214db69p-3", "-0x1.812746b0379e7p-2", "0x1.ce2f21a04283bp-4",
                "-0x1.b82ce3126139cp-6", "0x1.565bcd03f6351p-8", "-0x1.c02db11d759cfp-11",
                "0x1.f9a2ad785d143p-14", "-0x1.f4c5b38aad0b1p-17", "0x1.b90d7b911c6a4p-20",
                "-0x1.564ce8edbcdc5p-23", "0x1.8a447fa6005a8p-27"),
}


@dataclass(frozen=True)
class Piece:
    """erfcx on [lo, hi): P(a - center) when `center` is given, else Q(1/a^2)/a."""

    lo: float
    hi: float
    coeffs: tuple[float, ...]
    center: float | None = None


ERFCX_PIECES = {
    "f32": (
        Piece(0.75, 2.0, _hex("0x1.5f88f6p-2", "-0x1.797a64p-3", "0x1.7012d0p-4", "-0x1.4bd086p-5",
                              "0x1.17faeap-6", "-0x1.bc9b68p-8", "0x1.4fb396p-9", "-0x1.0b3194p-10",
                              "0x1.7854c4p-12"), center=1.375),        # [2^-24.7]
        Piece(2.0, float("inf"), _hex("0x1.20dd74p-1", "-0x1.20dbe0p-2", "0x1.b0d72cp-2", "-0x1.0a80a6p+0",
                                      "0x1.a99ec6p+1", "-0x1.6238bap+3", "0x1.f43d28p+4", "-0x1.f932a0p+5",
                                      "0x1.3233f4p+6", "-0x1.4344b8p+5")),  # [2^-28.8]
    ),
    "f64": (
        Piece(0.75, 2.0, _hex("0x1.5f88f52f3c76bp-2", "-0x1.797a639d8129dp-3", "0x1.701342cbce913p-4",
                              "-0x1.4bcdb9d90834ap-5", "0x1.17eba60d4a2b7p-6", "-0x1.bdf24bccca8d4p-8",
                              "0x1.51ab9fe8e8db7p-9", "-0x1.e8ae689630efep-11", "0x1.535f6042eadacp-12",
                              "-0x1.c5fa789020870p-14", "0x1.254ce6adc7516p-15", "-0x1.6f02d7fa16bd8p-17",
                              "0x1.be3cf99925900p-19", "-0x1.079dcba7989f9p-20", "0x1.2407fb423ea8ap-22",
                              "-0x1.400b1ab9818f8p-24", "0x1.2d86c53ab7530p-25", "-0x1.9f53baf2456c5p-27",
                              "-0x1.9fdaf18e065b2p-28", "0x1.bb1913e4796eep-29"), center=1.375),  # [2^-54.7]
        Piece(2.0, 4.0, _hex("0x1.6e9827d229d2dp-3", "-0x1.bd6ae4d14b16cp-5", "0x1.043fe1a98bef9p-6",
                             "-0x1.259061ba859c3p-8", "0x1.409cc2ed75aa5p-10", "-0x1.53dec9d0722b5p-12",
                             "0x1.5e7392e09e6b9p-14", "-0x1.60251039ad2e7p-16", "0x1.595f2726391d2p-18",
                             "-0x1.4b14666bcdae6p-20", "0x1.3696de62a1685p-22", "-0x1.1d78049a6368ep-24",
                             "0x1.018b0e5716f42p-26", "-0x1.c798d01a3d755p-29", "0x1.84919bc0b1667p-31",
                             "-0x1.4d3b11f901e6ap-33", "0x1.57e2e42c5eb0bp-35", "-0x1.17e2852157377p-37"),
              center=3.0),                                                  # [2^-53.7]
        Piece(4.0, float("inf"), _hex("0x1.20dd750429b6bp-1", "-0x1.20dd7504282e4p-2", "0x1.b14c2f82d1d25p-2",
                                      "-0x1.0ecf9cb80b549p+0", "0x1.d9eafdf5dfbc7p+1", "-0x1.0a8f9ce5484c9p+4",
                                      "0x1.6e2f9bd4670f1p+6", "-0x1.2752f21430f5fp+9", "0x1.0a94c706599f2p+12",
                                      "-0x1.f1cc85a7e5e48p+14", "0x1.ac74de0e8ca26p+17", "-0x1.27a2ebeecd0bcp+20",
                                      "0x1.12a4d99fe28ddp+22", "-0x1.f11f48b2ee4f0p+22")),  # [2^-56.0]
    ),
}


def _key(ty: ir.Type) -> str:
    return "f32" if is_f32(ty) else "f64"


def _erf_small(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """x + x P(x^2): erf for |x| < ERF_SMALL."""
    return fma(b, x, horner(b, b.fmul(x, x), ERF_P[_key(x.type)]), x)


def erfcx_large(b: ir.IRBuilder, a: ir.Value, divide: bool = False) -> ir.Value:
    """erfcx(a) for a >= ERF_SMALL: each piece computed, the one whose range holds a selected.
    `divide`: the asymptotic piece as Q/a (one rounding) rather than Q·(1/a) (erfc's, cheaper:
    the 1/a it needs anyway)."""
    ty = a.type
    values = []
    for piece in ERFCX_PIECES[_key(ty)]:
        if piece.center is not None:
            values.append(horner(b, b.fsub(a, fconst(ty, piece.center)), piece.coeffs))
        else:
            r = b.fdiv(fconst(ty, 1.0), a)
            q = horner(b, b.fmul(r, r), piece.coeffs)
            values.append(b.fdiv(q, a) if divide else b.fmul(q, r))
    pieces = ERFCX_PIECES[_key(ty)]
    out = values[-1]
    for piece, value in zip(reversed(pieces[:-1]), reversed(values[:-1])):
        out = select(b, fcmp(b, "<", a, fconst(ty, piece.hi)), value, out)
    return out


def erfc_positive(b: ir.IRBuilder, a: ir.Value) -> ir.Value:
    """erfc(a) for a >= ERF_SMALL (or NaN): exp(-a^2) erfcx(a), 0 past ERFC_ZERO."""
    ty = a.type
    f = fmt_of(ty)
    key = _key(ty)
    limit = fconst(ty, ERFC_ZERO[key])
    beyond = fcmp(b, ">", a, limit)
    ac = select(b, beyond, limit, a)                    # NaN stays NaN
    hi = b.fmul(ac, ac)
    lo = fma(b, ac, ac, b.fneg(hi))                     # a^2 = hi + lo exactly
    p, t = exp_parts(b, b.fneg(hi), b.fneg(lo))         # exp(-a^2) = p 2^k
    bias = EXP_SCALE_BIAS[key]
    scaled = b.fmul(b.fmul(p, erfcx_large(b, ac)), pow2_from_shift(b, t, (f.bias + bias) << f.mant))
    value = b.fmul(scaled, fconst(ty, 2.0 ** -bias))    # one rounding, denormals included
    return select(b, beyond, fconst(ty, 0.0), value)


def emit_erf(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """erf(x); erf(+-0) = +-0, erf(+-inf) = +-1, NaN -> NaN."""
    ty = x.type
    a = fabs(b, x)
    big = copysign(b, b.fsub(fconst(ty, 1.0), erfc_positive(b, a)), x)
    return select(b, fcmp(b, "<", a, fconst(ty, ERF_SMALL)), _erf_small(b, x), big)


def emit_erfc(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """erfc(x) = 1 - erf(x) without cancellation for x > 0; erfc(-inf) = 2, erfc(inf) = 0."""
    ty = x.type
    a = fabs(b, x)
    tail = erfc_positive(b, a)
    far = select(b, fcmp(b, "<", x, fconst(ty, 0.0)), b.fsub(fconst(ty, 2.0), tail), tail)
    near = b.fsub(fconst(ty, 1.0), _erf_small(b, x))
    return select(b, fcmp(b, "<", a, fconst(ty, ERF_SMALL)), near, far)
