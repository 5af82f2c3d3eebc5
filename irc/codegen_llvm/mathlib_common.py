"""Type-generic helpers for the inline math emitters.

Every emitter works on ``float``, ``double`` and ``<N x float/double>``; these helpers build
constants of the matching (splatted) type and call only intrinsics that both the CPU backends
and NVPTX lower to native instructions (fma, fmuladd, fabs, floor, rint, trunc, copysign, sqrt).
No libm, no ``llvm.exp``/``llvm.log``: they become scalar libcalls on the CPU and abort NVPTX.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Sequence

from llvmlite import ir


@dataclass(frozen=True)
class FloatFormat:
    """Bit layout of an IEEE binary format."""

    bits: int
    mant: int  # explicit mantissa bits
    bias: int


F32 = FloatFormat(32, 23, 127)
F64 = FloatFormat(64, 52, 1023)


def elem_type(ty: ir.Type) -> ir.Type:
    return ty.element if isinstance(ty, ir.VectorType) else ty


def lanes(ty: ir.Type) -> int | None:
    return ty.count if isinstance(ty, ir.VectorType) else None


def fmt_of(ty: ir.Type) -> FloatFormat:
    e = elem_type(ty)
    if isinstance(e, ir.FloatType):
        return F32
    if isinstance(e, ir.DoubleType):
        return F64
    raise TypeError(f"math emitters need float/double (or vectors of them), got {ty}")


def is_f32(ty: ir.Type) -> bool:
    return fmt_of(ty) is F32


def with_elem(ty: ir.Type, elem: ir.Type) -> ir.Type:
    """Same shape as ``ty`` with element type ``elem``."""
    n = lanes(ty)
    return ir.VectorType(elem, n) if n else elem


def int_type_for(ty: ir.Type) -> ir.Type:
    """The integer type (scalar or vector) with the bit width of ``ty``'s elements."""
    return with_elem(ty, ir.IntType(fmt_of(ty).bits))


def const(ty: ir.Type, value: float | int | bool) -> ir.Constant:
    """A constant of type ``ty``, splatted over the lanes of a vector type."""
    n = lanes(ty)
    e = elem_type(ty)
    if n:
        return ir.Constant(ty, [ir.Constant(e, value)] * n)
    return ir.Constant(e, value)


def fconst(ty: ir.Type, value: float) -> ir.Constant:
    """A float constant; rounded to f32 first for float types so the printed value is exact."""
    if is_f32(ty):

        value = struct.unpack("f", struct.pack("f", value))[0]
    return const(ty, float(value))


def _suffix(ty: ir.Type) -> str:
    e = elem_type(ty)
    if isinstance(e, ir.IntType):
        base = f"i{e.width}"
    else:  # each float type its own name: a half and a double call must not share one declaration
        base = {ir.HalfType: "f16", ir.FloatType: "f32", ir.DoubleType: "f64"}[type(e)]
    n = lanes(ty)
    return f"v{n}{base}" if n else base


def intrinsic(builder: ir.IRBuilder, name: str, args: Sequence[ir.Value]) -> ir.Value:
    """Call ``llvm.<name>`` overloaded on the type of its first argument (declared once)."""
    ty = args[0].type
    full = f"llvm.{name}.{_suffix(ty)}"
    module = builder.module
    fn = module.globals.get(full)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ty, [a.type for a in args]), name=full)
    return builder.call(fn, list(args))


def fma(b: ir.IRBuilder, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    """x*y + z with one rounding (exactness matters: range reduction, error terms)."""
    return intrinsic(b, "fma", [x, y, z])


def mad(b: ir.IRBuilder, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    """x*y + z, fused where the target has FMA (``llvm.fmuladd``): for polynomials."""
    return intrinsic(b, "fmuladd", [x, y, z])


def horner(b: ir.IRBuilder, x: ir.Value, coeffs: Sequence[float]) -> ir.Value:
    """c0 + x*(c1 + x*(c2 + ...)); ``coeffs`` from the constant term up."""
    ty = x.type
    acc: ir.Value = fconst(ty, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = mad(b, acc, x, fconst(ty, c))
    return acc


def two_sum(b: ir.IRBuilder, a: ir.Value, c: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(s, e) with s = fl(a + c) and a + c = s + e exactly (Knuth's TwoSum, any magnitudes)."""
    s = b.fadd(a, c)
    bb = b.fsub(s, a)
    e = b.fadd(b.fsub(a, b.fsub(s, bb)), b.fsub(c, bb))
    return s, e


def fabs(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return intrinsic(b, "fabs", [x])


def rint(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return intrinsic(b, "rint", [x])


def trunc(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return intrinsic(b, "trunc", [x])


def copysign(b: ir.IRBuilder, mag: ir.Value, sgn: ir.Value) -> ir.Value:
    return intrinsic(b, "copysign", [mag, sgn])


def select(b: ir.IRBuilder, cond: ir.Value, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(cond, x, y)


def isnan(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return b.fcmp_unordered("uno", x, x)


def fcmp(b: ir.IRBuilder, op: str, x: ir.Value, y: ir.Value) -> ir.Value:
    """Ordered comparison: false when either side is NaN."""
    return b.fcmp_ordered(op, x, y)


def clamp(b: ir.IRBuilder, x: ir.Value, lo: float, hi: float) -> ir.Value:
    """min(max(x, lo), hi) with NaN passed through unchanged."""
    ty = x.type
    x = select(b, fcmp(b, "<", x, fconst(ty, lo)), fconst(ty, lo), x)
    return select(b, fcmp(b, ">", x, fconst(ty, hi)), fconst(ty, hi), x)


def ldexp_exact(b: ir.IRBuilder, y: ir.Value, k: ir.Value) -> ir.Value:
    """y * 2**k for integer k (int vector/scalar of float width) in [-2*bias-mant, 2*bias+2].

    Two multiplications by 2**(k//2) and 2**(k - k//2): each factor is a normal number, so
    overflow gives inf and gradual underflow rounds once, to the correct denormal.
    """
    ty = y.type
    ity = int_type_for(ty)
    k1 = b.ashr(k, const(ity, 1))
    k2 = b.sub(k, k1)
    return b.fmul(b.fmul(y, pow2i(b, k1, ty)), pow2i(b, k2, ty))


def pow2i(b: ir.IRBuilder, k: ir.Value, ty: ir.Type) -> ir.Value:
    """2**k as float type ``ty`` for an integer k in the normal exponent range."""
    f = fmt_of(ty)
    ity = int_type_for(ty)
    bits = b.shl(b.add(k, const(ity, f.bias)), const(ity, f.mant))
    return b.bitcast(bits, ty)


def to_int(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """fptosi into the same-width integer type (x must be finite and in range)."""
    return b.fptosi(x, int_type_for(x.type))


def product_series(b: ir.IRBuilder, numerators: Sequence[ir.Value], denominators: Sequence[ir.Value],
                   group: int = 8) -> ir.Value:
    """1 + c_1 (1 + c_2 (1 + ... c_n)), c_i = numerators[i] / denominators[i] (the sum of the
    products c_1 ... c_k: a hypergeometric-type series), evaluated from the innermost term as one
    fraction p/q, divided out every `group` terms: one division per group instead of per term
    (a double division is a long instruction sequence on NVPTX, and ptxas's time grows with
    their count). The caller keeps each group's products of numerators and denominators in
    range."""
    ty = numerators[0].type
    p, q = fconst(ty, 0.0), None            # the inner value p/q (q None: 1)
    for i in reversed(range(len(numerators))):
        # c_i (1 + p/q) = num (q + p) / (den q)
        if q is None:
            p, q = b.fmul(numerators[i], b.fadd(fconst(ty, 1.0), p)), denominators[i]
        else:
            p, q = b.fmul(numerators[i], b.fadd(q, p)), b.fmul(denominators[i], q)
        if i % group == 0:
            p, q = b.fdiv(p, q), None
    return b.fadd(fconst(ty, 1.0), p)
