"""float16 in irc's own compiled kernels on the CPU (float16 storage, float32 arithmetic): the
bounds docs/mathlib.md states ("float16 in irc's compiled kernels", measured by
tools/ulp_f16_report.py). Every elementwise function on all 65,536 halves within 0.501 ulp (one
rounding of the float32 result); a fused chain rounds each op's result to float16, exactly as
numpy's float16 arithmetic; sums accumulate in float32 and round once."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.codegen_llvm.mathlib_ulp import reference, ulp_error

HALF = T.TensorType("float16", (False,))
ALL_HALVES = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)
UNARY = {"exp": T.exp, "log": T.log, "log1p": T.log1p, "expm1": T.expm1, "tanh": T.tanh,
         "sigmoid": T.nnet.sigmoid, "softplus": T.nnet.softplus, "sin": T.sin, "cos": T.cos,
         "sqrt": T.sqrt, "erf": T.erf, "erfc": T.erfc, "erfinv": T.erfinv}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_elementwise_functions_round_once_on_every_half(name):
    x = HALF("x")
    got = irc.function([x], UNARY[name](x))(ALL_HALVES)
    assert got.dtype == np.float16
    assert ulp_error(got, reference(name, ALL_HALVES.astype(np.float32))).max() <= 0.501


def test_binary_operators_round_once():
    rng = np.random.default_rng(0)
    a, b = (rng.integers(0, 2 ** 16, 200_000).astype(np.uint16).view(np.float16) for _ in "ab")
    x, y = HALF("x"), HALF("y")
    f = irc.function([x, y], [x + y, x * y, x / y, x ** y])
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        wants = [a64 + b64, a64 * b64, a64 / b64, a64 ** b64]
    for got, want in zip(f(a, b), wants):
        assert ulp_error(got, want).max() <= 0.501


def test_a_fused_chain_rounds_each_op_as_numpy_float16_does():
    rng = np.random.default_rng(1)
    a, w, c = (rng.uniform(-4, 4, 100_000).astype(np.float16) for _ in range(3))
    x, y, z = HALF("x"), HALF("y"), HALF("z")
    f = irc.function([x, y, z], T.tanh(x) * y + z)
    assert "tensor.fused" in f.ir("optimized")
    per_op = np.tanh(a.astype(np.float32)).astype(np.float16) * w + c  # numpy: each op rounded to half
    np.testing.assert_array_equal(f(a, w, c), per_op)


def test_sums_accumulate_in_float32_and_round_once():
    m = np.random.default_rng(2).uniform(0, 1, (16, 4096)).astype(np.float16)
    x = T.TensorType("float16", (False, False))("x")
    got = irc.function([x], x.sum(axis=1))(m)
    assert got.dtype == np.float16
    assert ulp_error(got, m.astype(np.float64).sum(axis=1)).max() <= 0.501
