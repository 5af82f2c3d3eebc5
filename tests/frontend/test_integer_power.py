"""Integer `**` with a negative exponent fails as numpy's does (a ValueError saying "Integers to
negative integer powers are not allowed."): a constant exponent when the graph is built, at the
user's line; one known at run time when the compiled function runs, naming 'tensor.pow' and the
line that built it. Non-negative exponents give numpy's values exactly."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T

MESSAGE = "Integers to negative integer powers are not allowed"


def _native(inputs, outputs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # natively compiled: no fallback to the reference executor
        return irc.function(inputs, outputs)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_run_time_exponents(dtype):
    x, y = T.vector("x", dtype), T.vector("y", dtype)
    f = _native([x, y], x ** y)
    xv = np.array([2, -3, 0, 1, 5], dtype)
    yv = np.array([3, 2, 4, 0, 1], dtype)
    np.testing.assert_array_equal(f(xv, yv), np.power(xv, yv))
    yv[2] = -1
    with pytest.raises(ValueError, match=MESSAGE) as info:
        f(xv, yv)
    with pytest.raises(ValueError, match=MESSAGE):
        np.power(xv, yv)
    message = str(info.value)
    assert "'tensor.pow'" in message and __file__ in message and "x ** y" in message


def test_scalars_and_broadcasting():
    k, v = T.lscalar("k"), T.lvector("v")
    f = _native([k, v], [k ** k, v ** k, k ** v])
    got = f(3, np.array([1, 2, 3]))
    for g, want in zip(got, [27, np.array([1, 8, 27]), np.array([3, 9, 27])]):
        np.testing.assert_array_equal(g, want)
    with pytest.raises(ValueError, match=MESSAGE):
        f(-2, np.array([1, 2]))  # k ** k
    with pytest.raises(ValueError, match=MESSAGE):
        f(2, np.array([1, -2]))  # k ** v


def test_exponent_computed_in_a_fused_expression_and_under_a_reduction():
    x, y = T.ivectors("x", "y")
    f = _native([x, y], [(x ** (y - 3)) * 2 + x, (x ** y).sum()])
    xv = np.array([2, 3, 4], np.int32)
    yv = np.array([3, 4, 5], np.int32)
    a, s = f(xv, yv)
    np.testing.assert_array_equal(a, np.power(xv, yv - 3) * 2 + xv)
    assert s == np.power(xv, yv).sum()
    with pytest.raises(ValueError, match=MESSAGE):
        f(xv, np.array([3, 2, 5], np.int32))  # y - 3 is -1 once, y never


def test_empty_arrays_have_nothing_to_refuse():
    x, y = T.lvectors("x", "y")
    out = _native([x, y], x ** y)(np.array([], np.int64), np.array([], np.int64))
    assert out.shape == (0,) and out.dtype == np.int64


def test_float_powers_are_unaffected():
    x, y = T.lvector("x"), T.dvector("y")
    f = _native([x, y], [x ** y, x ** -1.0])
    xv, yv = np.array([2, 4]), np.array([-1.0, -0.5])
    a, b = f(xv, yv)
    np.testing.assert_allclose(a, np.power(xv, yv), rtol=1e-15)
    np.testing.assert_allclose(b, 1.0 / xv, rtol=1e-15)


@pytest.mark.parametrize("exponent", [-1, -2, np.int32(-1), np.array([1, -1])])
def test_constant_negative_exponents_are_refused_at_the_users_line(exponent):
    x = T.lvector("x")
    with pytest.raises(ValueError, match=MESSAGE) as info:
        x ** exponent
    assert __file__ in str(info.value) and "x ** exponent" in str(info.value)


def test_constant_exponents_that_are_fine():
    x, b = T.lvector("x"), T.bvector("b")
    f = _native([x, b], [x ** 3, x ** np.array([0, 2]), 2 ** x, b ** 2])
    xv, bv = np.array([3, 4]), np.array([1, 0], np.int8)
    for got, want in zip(f(xv, bv), [xv ** 3, xv ** np.array([0, 2]), 2 ** xv, bv ** 2]):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match=MESSAGE):
        b ** -1
    with pytest.raises(ValueError, match=MESSAGE):
        2 ** T.constant(-3)


def test_reference_executor_raises_too():
    x, y = T.lvectors("x", "y")
    f = irc.function([x, y], x ** y, mode=irc.Mode(linker="py"))
    np.testing.assert_array_equal(f(np.array([2, 3]), np.array([2, 1])), [4, 3])
    with pytest.raises(ValueError, match=MESSAGE):
        f(np.array([2, 3]), np.array([2, -1]))


def test_inside_a_scan_step():
    k = T.lvector("k")
    powers, _ = irc.scan(lambda e: 2 ** e, sequences=k)
    f = _native([k], powers)
    np.testing.assert_array_equal(f(np.array([0, 3, 5])), [1, 8, 32])
    with pytest.raises(ValueError, match=MESSAGE):
        f(np.array([0, -3, 5]))
