"""Runtime-library functions that the host's code generator calls where the processor lacks an
instruction, defined here in IR because MCJIT resolves no compiler-rt symbol: an unresolved
call jumps to address 0 and kills the process.

`irc_temp_alloc`/`irc_temp_free`, where temporaries come from (`temp_cache.py`), and
`__truncdfhf2` (double -> half). x86 processors without AVX512-FP16 (AMD Zen, Intel
before Sapphire Rapids) have no such instruction, and LLVM calls it for a cast from f64 to f16
and for an f16 `fma` (computed in f64). It rounds correctly through float with round-to-odd:
the float keeps 13 more bits than a half, so rounding to float toward zero and setting the last
bit when inexact, then rounding that float to the nearest half (F16C's `vcvtps2ph`), gives the
nearest half to the double — one rounding, no double-rounding error. The runtime module that
holds the thread pool defines these functions and makes them resolvable (`runtime/threads.py`).
"""
from __future__ import annotations

from llvmlite import ir

from .pool_abi import LIBCALLS, TRUNC_DOUBLE_TO_HALF  # noqa: F401  (re-exported)
from .temp_cache import define_temp_cache


def add_libcalls(module: ir.Module) -> None:
    """Define every function of `LIBCALLS` in `module`."""
    _define_trunc_double_to_half(module)
    define_temp_cache(module)


def _define_trunc_double_to_half(module: ir.Module) -> None:
    f32, f64, i32 = ir.FloatType(), ir.DoubleType(), ir.IntType(32)
    fn = ir.Function(module, ir.FunctionType(ir.HalfType(), [f64]), TRUNC_DOUBLE_TO_HALF)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    x = fn.args[0]
    nearest = b.fptrunc(x, f32)
    back = b.fpext(nearest, f64)
    keep = b.fcmp_unordered("==", back, x)  # exact, or NaN: the float is the answer
    fabs = module.declare_intrinsic("llvm.fabs", [f64])
    rounded_away = b.fcmp_ordered(">", b.call(fabs, [back]), b.call(fabs, [x]))
    bits = b.bitcast(nearest, i32)
    toward_zero = b.select(rounded_away, b.sub(bits, ir.Constant(i32, 1)), bits)
    odd = b.or_(toward_zero, ir.Constant(i32, 1))
    b.ret(b.fptrunc(b.bitcast(b.select(keep, bits, odd), f32), ir.HalfType()))
