"""sin and cos as inline, vectorizable LLVM IR.

Reduction by quadrant: q = rint(x*2/pi) from a double-word product, r = x - q*pi/2 with pi/2
split in three (f64) or four (f32) parts, each step one fma.  The first step is exact (|r1| < 2
and a multiple of ulp(P1)), so the reduction is accurate while q is an exact integer: the
documented domain is |x| <= 2^24 (f32) and 2^52 (f64), see docs/mathlib.md.  No Payne-Hanek
beyond it (results there stay within [-1, 1] but are not accurate); inf and NaN give NaN.
f64 also keeps the rounding error of the second step as r_lo and feeds it into the kernels.

Kernels on |r| <= pi/4: f32 uses the Cephes sinf/cosf minimax polynomials, f64 the Taylor
series to r^17 (sin) and r^16 (cos), truncation below 2^-60.
"""
from __future__ import annotations

from math import factorial

from llvmlite import ir

from .mathlib_common import (const, fabs, fconst, fcmp, fma, horner, int_type_for, is_f32, mad,
                             rint, select, two_sum)

# 2/pi = HI + LO in each precision
TWO_OVER_PI_F64 = (float.fromhex("0x1.45f306dc9c883p-1"), float.fromhex("-0x1.6b01ec5417056p-55"))
TWO_OVER_PI_F32 = (float.fromhex("0x1.45f306p-1"), float.fromhex("0x1.b93910p-26"))
PIO2_F64 = (float.fromhex("0x1.921fb54442d18p+0"), float.fromhex("0x1.1a62633145c07p-54"),
            float.fromhex("-0x1.f1976b7ed8fbcp-110"))
PIO2_F32 = (float.fromhex("0x1.921fb6p+0"), float.fromhex("-0x1.777a5cp-25"),
            float.fromhex("-0x1.ee59dap-50"), float.fromhex("0x1.98a2e0p-77"))

# sin r = r + r*z*S(z), cos r = 1 - z/2 + z^2*C(z), z = r^2; constant term first.
SIN_S_F32 = (-1.6666654611e-1, 8.3321608736e-3, -1.9515295891e-4)
COS_C_F32 = (4.166664568298827e-2, -1.388731625493765e-3, 2.443315711809948e-5)
SIN_S_F64 = tuple((-1) ** (j + 1) / factorial(2 * j + 3) for j in range(8))
COS_C_F64 = tuple((-1) ** j / factorial(2 * j + 4) for j in range(7))

# Beyond this |q| the quadrant is not converted (avoids fptosi poison); results are garbage.
Q_LIMIT = {"f32": 2.0 ** 30, "f64": 2.0 ** 62}


def _reduce(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(quadrant as an integer, r, r_lo) with x = q*pi/2 + r + r_lo, |r_lo| <= ulp(r)/2
    (r_lo is None for f32: not carried)."""
    ty = x.type
    f32 = is_f32(ty)
    # q = rint(x*2/pi) from a double-word product, so q is the right integer until it stops
    # being representable (x*2/pi rounded once picks the wrong quadrant from |x| ~ 2^21 in f32)
    c_hi, c_lo = TWO_OVER_PI_F32 if f32 else TWO_OVER_PI_F64
    p_hi = b.fmul(x, fconst(ty, c_hi))
    p_lo = fma(b, x, fconst(ty, c_lo), fma(b, x, fconst(ty, c_hi), b.fneg(p_hi)))
    q_hi = rint(b, p_hi)
    qf = b.fadd(q_hi, rint(b, b.fadd(b.fsub(p_hi, q_hi), p_lo)))
    parts = PIO2_F32 if f32 else PIO2_F64
    r1 = fma(b, qf, fconst(ty, -parts[0]), x)  # exact
    if f32:
        # plain fma steps: r carries the rounding of the q*P2 step (up to 0.5 ulp of r, 2.1 ulp
        # at the end); carrying it as below costs 1.5x the time, f32 keeps the fast form
        r = r1
        for part in parts[1:]:
            r = fma(b, qf, fconst(ty, -part), r)
        r_lo = None
    else:
        # r = x - q*pi/2 as r + r_lo: the rounding error of the q*P2 step is kept in r_lo
        # (TwoProd + TwoSum) and the later parts join it (1.46 -> 1.24 ulp)
        h = b.fmul(qf, fconst(ty, parts[1]))
        lo = b.fsub(two_sum(b, r1, b.fneg(h))[1], fma(b, qf, fconst(ty, parts[1]), b.fneg(h)))
        r2 = b.fsub(r1, h)
        for part in parts[2:]:
            lo = fma(b, qf, fconst(ty, -part), lo)
        r = b.fadd(r2, lo)
        r_lo = b.fsub(lo, b.fsub(r, r2))
    # out of the domain r can be large: keep the kernels in range (results stay in [-1, 1])
    r_max = fconst(ty, 0.8)
    inside = fcmp(b, "<=", fabs(b, r), r_max)
    r = select(b, fcmp(b, ">", r, r_max), r_max, r)
    r = select(b, fcmp(b, "<", r, b.fneg(r_max)), b.fneg(r_max), r)
    if r_lo is not None:
        r_lo = select(b, inside, r_lo, fconst(ty, 0.0))
    limit = Q_LIMIT["f32" if f32 else "f64"]
    q_ok = fcmp(b, "<", fabs(b, qf), fconst(ty, limit))
    q = b.fptosi(select(b, q_ok, qf, fconst(ty, 0.0)), int_type_for(ty))
    return q, r, r_lo


def _kernels(b: ir.IRBuilder, r: ir.Value,
             r_lo: ir.Value | None) -> tuple[ir.Value, ir.Value]:
    """(sin, cos) of r [+ r_lo] for |r| <= pi/4 (a little beyond is fine); r_lo enters to first
    order (sin' = cos ~ 1, cos' = -sin ~ -r) before the last rounding."""
    ty = r.type
    f32 = is_f32(ty)
    z = b.fmul(r, r)
    r3 = b.fmul(r, z)
    sin_p = horner(b, z, SIN_S_F32 if f32 else SIN_S_F64)
    s_tail = b.fmul(r3, sin_p) if r_lo is None else mad(b, r3, sin_p, r_lo)
    s = b.fadd(r, s_tail)
    half_z = b.fmul(z, fconst(ty, 0.5))
    c_tail = mad(b, b.fmul(z, z), horner(b, z, COS_C_F32 if f32 else COS_C_F64), b.fneg(half_z))
    if r_lo is not None:
        c_tail = fma(b, b.fneg(r), r_lo, c_tail)
    c = b.fadd(fconst(ty, 1.0), c_tail)
    return s, c


def _pick(b: ir.IRBuilder, q: ir.Value, s: ir.Value, c: ir.Value) -> ir.Value:
    """sin(q*pi/2 + r) from sin r, cos r: quadrant 0..3 gives s, c, -s, -c."""
    ity = q.type
    odd = b.icmp_signed("!=", b.and_(q, const(ity, 1)), const(ity, 0))
    neg = b.icmp_signed("!=", b.and_(q, const(ity, 2)), const(ity, 0))
    v = select(b, odd, c, s)
    return select(b, neg, b.fneg(v), v)


def emit_sin(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """sin(x); sin(+-0) = +-0, sin(+-inf) = NaN."""
    q, r, r_lo = _reduce(b, x)
    s, c = _kernels(b, r, r_lo)
    res = _pick(b, q, s, c)
    return select(b, fcmp(b, "==", x, fconst(x.type, 0.0)), x, res)


def emit_cos(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """cos(x) = sin(x + pi/2): the same reduction, quadrant shifted by one."""
    q, r, r_lo = _reduce(b, x)
    s, c = _kernels(b, r, r_lo)
    return _pick(b, b.add(q, const(q.type, 1)), s, c)



