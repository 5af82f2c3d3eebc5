"""The NVPTX flavour of the inline math library.

The shared mathlib (`irc.codegen_llvm.mathlib`) already uses only instructions NVPTX lowers
natively (fma, rint, fabs, bitcasts, selects), so every function works on the GPU as it is;
this table replaces the f32 `exp` (the most used, and the base of the softmax/cross-entropy
chains) by the hardware's `ex2.approx.f32` behind an exact range reduction:

    k = rint(x·log2e);  r = x − k·ln2 (two fma, Cody–Waite);  exp(x) = ex2(r·log2e) · 2^k

with 2^k applied in two normal factors (overflow gives inf, underflow rounds once to the
correct denormal) — 4 fma and one MUFU op instead of a degree-6 polynomial. `ex2.approx`
is within 2 ulp on [-0.5, 0.5]; the reduction adds ≤ 1 ulp (checked on the CPU with an exact
exp2 in its place: `tests/codegen_ptx/test_mathlib_nvptx.py`).

`log` keeps the polynomial: `lg2.approx.f32` has an *absolute* error near 2^-22, so log(x)
for x near 1 (log ≈ 0) would lose every significant digit. f64 always takes the polynomial
path (there is no f64 MUFU).

Never `llvm.exp.*`/`llvm.log.*`: the NVPTX backend aborts the process on them (the
forbidden-intrinsic guard in `target.py` refuses such a module before LLVM sees it).

The large functions (the Bessel family, chi2sf, the inverse error functions, the gamma family:
series, recurrences and continued fractions) are emitted once per module as an internal,
never-inlined device function that the kernels call (`OUTLINED`), not inline as on the CPU: a
kernel repeats its elementwise body for each item a thread handles plus a tail, so inline they
made hundreds of KB of PTX per kernel, and LLVM and ptxas took seconds over each.
"""
from __future__ import annotations

from typing import Callable

from llvmlite import ir

from ..codegen_llvm.mathlib import MATH_EMITTERS, half_via_float
from ..codegen_llvm.mathlib_common import clamp, const, fcmp, fconst, fma, fmt_of, int_type_for, is_f32, select
from ..codegen_llvm.mathlib_exp_log import EXP_SCALE_BIAS, LOG2E, emit_exp, pow2_from_shift

Ex2 = Callable[[ir.IRBuilder, ir.Value], ir.Value]

# ln2 split so that k·LN2_HI is exact for |k| <= 2^8 (the exp range)
LN2_HI = -0.693145751953125
LN2_LO = -1.428606765330187e-06
EXP_RANGE_F32 = (-104.0, 89.0)


def nvvm_ex2(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """2^x by the MUFU unit (`ex2.approx.f32`, subnormals kept)."""
    name = "llvm.nvvm.ex2.approx.f32"
    fn = b.module.globals.get(name)
    if fn is None:
        fn = ir.Function(b.module, ir.FunctionType(ir.FloatType(), [ir.FloatType()]), name=name)
    return b.call(fn, [x])


def exp_via_ex2(b: ir.IRBuilder, x: ir.Value, ex2: Ex2 = nvvm_ex2) -> ir.Value:
    """exp(x) for f32 through a base-2 exponential `ex2` on |arg| <= 1/2; f64 unchanged."""
    ty = x.type
    if not is_f32(ty):
        return emit_exp(b, x)
    f = fmt_of(ty)
    ity = int_type_for(ty)
    lo, hi = EXP_RANGE_F32
    xc = clamp(b, x, lo, hi)
    shift = fconst(ty, 1.5 * 2.0 ** 23)
    t = fma(b, xc, fconst(ty, LOG2E), shift)  # k = rint(x·log2e) in t's low mantissa bits
    kf = b.fsub(t, shift)
    r = fma(b, kf, fconst(ty, LN2_HI), xc)
    r = fma(b, kf, fconst(ty, LN2_LO), r)
    p = ex2(b, b.fmul(r, fconst(ty, LOG2E)))
    bias = EXP_SCALE_BIAS["f32"]
    neg = fcmp(b, "<", x, fconst(ty, 0.0))
    e1 = select(b, neg, const(ity, (f.bias + bias) << f.mant), const(ity, (f.bias - bias) << f.mant))
    s2 = select(b, neg, fconst(ty, 2.0 ** -bias), fconst(ty, 2.0 ** bias))
    return b.fmul(b.fmul(p, pow2_from_shift(b, t, e1)), s2)


# emitted as a called device function on the GPU (see the module doc)
OUTLINED = ("j0", "j1", "jv", "i0", "i1", "iv", "chi2sf", "erfinv", "erfcinv", "gamma", "gammaln", "psi",
            "tri_gamma")


def outlined(name: str, emit: Callable[..., ir.Value]) -> Callable[..., ir.Value]:
    """`emit` as a call of `irc_math_<name>_<type>`, a function of the builder's module made
    on first use (internal linkage, `noinline`), whose body is `emit`'s."""
    def call(b: ir.IRBuilder, *args: ir.Value) -> ir.Value:
        module = b.module
        ty = args[0].type
        symbol = f"irc_math_{name}_" + "".join(ch if ch.isalnum() else "_" for ch in str(ty))
        fn = module.globals.get(symbol)
        if fn is None:
            fn = ir.Function(module, ir.FunctionType(ty, [a.type for a in args]), symbol)
            fn.linkage = "internal"
            fn.attributes.add("noinline")
            body = ir.IRBuilder(fn.append_basic_block("entry"))
            body.ret(emit(body, *fn.args))
        return b.call(fn, list(args))
    return call


def math_table(ex2: Ex2 = nvvm_ex2) -> dict[str, Callable[..., ir.Value]]:
    """The emitters for NVPTX (`ex2`: the base-2 exponential used by f32 exp; tests swap in
    an exact one to check the range reduction on the CPU)."""
    table = dict(MATH_EMITTERS)
    table["exp"] = half_via_float(lambda b, x: exp_via_ex2(b, x, ex2))
    for name in OUTLINED:
        table[name] = outlined(name, table[name])
    return table


NVPTX_MATH = math_table()
