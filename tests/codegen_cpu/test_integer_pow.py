"""Integer `pow`: numpy's wrapping power by squaring for exponents >= 0; for negative ones
(numpy raises) the documented rule: the integer part of 1 / x**|y|, never a crash."""
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
def test_negative_exponents_follow_the_documented_rule(dtype):
    info = np.iinfo(dtype)
    x = np.array([1, 1, -1, -1, -1, 2, -2, 0, info.min, info.max, 5], dtype)
    y = np.array([-1, info.min, -1, -2, info.min, -1, -3, -1, -1, -2, -7], dtype)
    _, fn = compile_text(_pow_module(INT_TYPES[dtype]))
    np.testing.assert_array_equal(fn(x, y)[0], np.array([1, 1, -1, 1, 1, 0, 0, 0, 0, 0, 0], dtype))
    with pytest.raises(ValueError, match="negative integer powers"):
        np.power(x, y)  # why the rule is needed: numpy has no element-wise answer


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
