"""The NVPTX math flavour checked on the CPU: the f32 exp's range reduction (the same emitter,
with `ex2.approx` swapped for an exact exp2) is within 1 ulp of the true exp over the float32
range; the real kernel then adds ex2.approx's own error (≤ 2 ulp, PTX ISA)."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from irc.codegen_cpu.mathlib_jit import compile_kernel
from irc.codegen_llvm.mathlib_common import intrinsic
from irc.codegen_llvm.mathlib_ulp import reference, sample_sets, ulp_error
from irc.codegen_ptx.mathlib_nvptx import OUTLINED, exp_via_ex2, math_table

REDUCTION_BOUND_ULP = 1.0


def exact_exp2(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return intrinsic(b, "exp2", [x])  # a libm call on the CPU: exact to 0.5 ulp


def test_exp_range_reduction_within_one_ulp():
    fn = compile_kernel(lambda b, x: exp_via_ex2(b, x, exact_exp2), np.float32, 1, None)[0]
    worst = 0.0
    for label, xs in sample_sets("exp", np.float32, 400_000):
        err = ulp_error(fn(*xs), reference("exp", *xs))
        worst = max(worst, float(np.nanmax(err)))
        assert worst <= REDUCTION_BOUND_ULP, (label, worst)


def test_exp_special_values():
    fn = compile_kernel(lambda b, x: exp_via_ex2(b, x, exact_exp2), np.float32, 1, None)[0]
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.7, 89.0, -103.0, -104.0, -200.0], np.float32)
    got = fn(x)
    with np.errstate(over="ignore"):
        ref = np.exp(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    ok = ~np.isnan(ref)
    assert (ulp_error(got[ok], ref[ok]) <= 1.0).all(), (got, ref)


def test_table_swaps_exp_and_calls_the_large_functions():
    from irc.codegen_llvm.mathlib import MATH_EMITTERS
    table = math_table()
    assert set(table) == set(MATH_EMITTERS)
    assert sorted(k for k in table if table[k] is not MATH_EMITTERS[k]) == sorted(["exp", *OUTLINED])


def test_a_large_function_is_one_device_function_its_callers_share():
    """jv in two places of one kernel module: one internal, never-inlined definition (its
    body emitted once), two calls."""
    module = ir.Module()
    fnty = ir.FunctionType(ir.FloatType(), [ir.FloatType(), ir.FloatType()])
    kernel = ir.Function(module, fnty, "k")
    b = ir.IRBuilder(kernel.append_basic_block())
    jv = math_table()["jv"]
    b.ret(b.fadd(jv(b, *kernel.args), jv(b, kernel.args[1], kernel.args[0])))
    text = str(module)
    assert text.count('define internal float @"irc_math_jv_float"') == 1
    assert text.count('call float @"irc_math_jv_float"') == 2
    assert "noinline" in text
