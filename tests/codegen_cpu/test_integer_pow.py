"""Integer `pow`: numpy's wrapping power by squaring for exponents >= 0; a negative one fails
the function with numpy's ValueError ("Integers to negative integer powers are not allowed."),
checked before the nest (conversion/tensor_to_loop/integer_power.py), never a crash."""
from __future__ import annotations

import numpy as np
import pytest

from native_helpers import compile_text

INT_TYPES = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64"}


def _pow_module(t: str) -> str:
    return f"""
func.func @f(%x: tensor<?x{t}>, %y: tensor<?x{t}>) -> tensor<?x{t}> {{
  %r = tensor.pow %x, %y : tensor<?x{t}>
  func.return %r : tensor<?x{t}>
}}"""


@pytest.mark.parametrize("dtype", sorted(INT_TYPES))
def test_non_negative_exponents_match_numpy(dtype):
    rng = np.random.default_rng(11)
    info = np.iinfo(dtype)
    x = np.concatenate([rng.integers(-9, 10, 500), [info.min, info.max, 0, 0, 1, -1, 2, -2, 3]]).astype(dtype)
    y = np.concatenate([rng.integers(0, 12, 500), [1, 2, 0, 5, info.max, info.max, info.bits - 1,
                                                   info.bits - 1, info.max]]).astype(dtype)
    _, fn = compile_text(_pow_module(INT_TYPES[dtype]))
    got = fn(x, y)[0]
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.power(x, y))  # overflow wraps, as numpy's


@pytest.mark.parametrize("dtype", sorted(INT_TYPES))
def test_negative_exponents_fail_the_function_as_numpy(dtype):
    info = np.iinfo(dtype)
    x = np.array([1, 1, -1, 2, 0, info.max, 5], dtype)
    _, fn = compile_text(_pow_module(INT_TYPES[dtype]))
    for negative in (-1, info.min):
        y = np.array([0, 1, 2, 3, 4, 5, 6], dtype)
        y[-1] = negative
        with pytest.raises(ValueError, match="'tensor.pow': Integers to negative integer powers are not allowed"):
            fn(x, y)
        with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
            np.power(x, y)  # the same complaint
    np.testing.assert_array_equal(fn(x[:0], x[:0])[0], np.power(x[:0], x[:0]))  # nothing to refuse


def test_a_fused_body_computing_the_exponent_is_checked_too():
    _, fn = compile_text("""
func.func @f(%x: tensor<?xi32>, %y: tensor<?xi32>) -> tensor<?xi32> {
  %r = tensor.fused(%a = %x, %b = %y) : (tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>) {
    %three = scalar.constant {value = 3 : i32} : i32
    %e = scalar.sub %b, %three : i32
    %p = scalar.pow %a, %e : i32
    %q = scalar.add %p, %a : i32
    scalar.yield %q : i32
  }
  func.return %r : tensor<?xi32>
}""")
    x = np.array([2, 3, 4], np.int32)
    np.testing.assert_array_equal(fn(x, np.array([3, 4, 5], np.int32))[0], x ** np.array([0, 1, 2]) + x)
    with pytest.raises(ValueError, match="negative integer powers"):
        fn(x, np.array([3, 2, 5], np.int32))


def test_frontend_integer_power_runs_natively():
    import warnings

    import irc
    import irc.tensor as T
    x, y = T.lvector("x"), T.lvector("y")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to the reference executor
        f = irc.function([x, y], [x ** y, x ** 3])
    xv, yv = np.arange(-5, 6, dtype=np.int64), np.arange(11, dtype=np.int64)
    a, b = f(xv, yv)
    np.testing.assert_array_equal(a, xv ** yv)
    np.testing.assert_array_equal(b, xv ** 3)
