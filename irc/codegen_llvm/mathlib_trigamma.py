"""The trigamma function psi'(x) = sum_k 1/(x + k)^2 (Theano's tri_gamma, psi's derivative) as
inline, vectorizable LLVM IR.

x > 0: up to BIG steps of the recurrence psi'(z) = 1/z^2 + psi'(z + 1), unrolled (each
term selected where it is used), summed from the smallest term up onto the asymptotic series at
w = z + n >= BIG: 1/w + 1/(2w^2) + sum_k B_2k / w^(2k+1) (Bernoulli numbers; f32 from 10 to
B_8, f64 from 12 to B_16: the first term left out is below 2^-55 of the sum). Every term is
positive, so there is no cancellation. x <= 0: the reflection psi'(x) = pi^2/sin^2(pi x) -
psi'(1 - x), sin(pi r) with r = x - rint(x) exact; psi'(1 - x) <= pi^2/6 while the first term
is at least pi^2, so the difference keeps its digits; float32 computes this branch in float64
(squaring pi/sin(pi x) doubles sin's error: 5.2 float32 ulp otherwise). +inf at 0 and the non-positive integers,
0 at +inf, NaN -> NaN; -inf -> +inf (scipy's polygamma(1, x) in both).
"""
from __future__ import annotations

from math import pi

from llvmlite import ir

from .mathlib_common import fcmp, fconst, horner, is_f32, rint, select, trunc, with_elem
from .mathlib_gamma import sin_cos_pi

BIG = {"f32": 10, "f64": 12}
# Bernoulli numbers B_2, B_4, ...: the series' coefficients of w^-(2k+1)
BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
TERMS = {"f32": 4, "f64": 8}


def _key(ty: ir.Type) -> str:
    return "f32" if is_f32(ty) else "f64"


def _positive(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """psi'(z) for z > 0 (NaN -> NaN)."""
    ty = z.type
    key = _key(ty)
    one, zero = fconst(ty, 1.0), fconst(ty, 0.0)
    big = BIG[key]
    below = fcmp(b, "<", z, fconst(ty, float(big)))
    n = select(b, below, b.fadd(trunc(b, b.fsub(fconst(ty, float(big)), z)), one), zero)  # w = z + n > BIG
    w = b.fadd(z, n)
    r = b.fdiv(one, w)
    r2 = b.fmul(r, r)
    series = b.fmul(b.fmul(r2, r), horner(b, r2, BERNOULLI[:TERMS[key]]))  # sum B_2k r^(2k+1)
    total = b.fadd(r, b.fadd(b.fmul(fconst(ty, 0.5), r2), series))
    for k in reversed(range(big)):  # the smallest terms first
        t = b.fdiv(one, b.fadd(z, fconst(ty, float(k))))
        total = b.fadd(total, select(b, fcmp(b, "<", fconst(ty, float(k)), n), b.fmul(t, t), zero))
    return total


def _reflected(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """pi^2/sin^2(pi x) - psi'(1 - x), for x < 0 off the poles."""
    ty = x.type
    s, _ = sin_cos_pi(b, x)
    pi_over_s = b.fdiv(fconst(ty, pi), s)
    return b.fsub(b.fmul(pi_over_s, pi_over_s), _positive(b, b.fsub(fconst(ty, 1.0), x)))


def emit_trigamma(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """psi'(x) = d^2/dx^2 log Gamma(x)."""
    ty = x.type
    zero = fconst(ty, 0.0)
    inf = fconst(ty, float("inf"))
    if is_f32(ty):  # the square of pi/sin(pi x) doubles sin's error: float32 reflects in float64
        negative = b.fptrunc(_reflected(b, b.fpext(x, with_elem(ty, ir.DoubleType()))), ty)
    else:
        negative = _reflected(b, x)
    pole = fcmp(b, "==", rint(b, x), x)  # a non-positive integer or -inf
    out = select(b, fcmp(b, ">", x, zero), _positive(b, x), select(b, pole, inf, negative))
    return select(b, fcmp(b, "==", x, inf), zero, out)
