"""`x[i:j]` with symbolic bounds (tensor.dynamic_slice): numpy's rules for every bound, the
DLT minibatch pattern `data[i * n:(i + 1) * n]` through `givens` compiled natively, and a
result whose size depends on the bounds run by the reference executor with a warning."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T

DATA = np.arange(60.0).reshape(12, 5)


def test_minibatch_by_givens_runs_natively():
    data = irc.shared(DATA)
    index = T.lscalar("index")
    x = T.dmatrix("x")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no fallback to the reference executor
        f = irc.function([index], [T.sum(x ** 2, axis=0), x.shape[0]], givens={x: data[index * 4:(index + 1) * 4]})
    for k in range(-4, 5):
        sums, rows = f(k)
        expected = DATA[k * 4:(k + 1) * 4]
        np.testing.assert_array_equal(sums, (expected ** 2).sum(axis=0))
        assert rows == expected.shape[0]


@pytest.mark.parametrize("start,stop", [(0, 3), (-3, 20), (5, 2), (-20, -10), (11, 12), (-1, 100), (7, -2)])
def test_bounds_follow_numpy(start, stop):
    i, j = T.lscalars("i", "j")
    m = T.dmatrix("m")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the result's size is data-dependent
        f = irc.function([m, i, j], [m[i:j, 1:], m[:, i:], m[:j]])
    a, b, c = f(DATA, start, stop)
    np.testing.assert_array_equal(a, DATA[start:stop, 1:])
    np.testing.assert_array_equal(b, DATA[:, start:])
    np.testing.assert_array_equal(c, DATA[:stop])


def test_a_data_sized_result_says_why_it_is_not_native():
    i = T.lscalar("i")
    m = T.dvector("m")
    with pytest.warns(RuntimeWarning, match="has a size that depends on values read at run time"):
        f = irc.function([m, i], m[i:] * 2)
    np.testing.assert_array_equal(f(np.arange(4.0), 1), [2.0, 4.0, 6.0])


def test_symbolic_bounds_need_step_one_and_integers():
    i = T.lscalar("i")
    m = T.dvector("m")
    with pytest.raises(NotImplementedError, match="needs step 1"):
        m[i::2]
    with pytest.raises(TypeError, match="a slice bound must be a 0-d integer"):
        m[T.dscalar():]


def test_gradient_through_symbolic_bounds_is_a_native_scatter():
    """(numerics for every kind of bound: tests/frontend/test_advanced_indexing.py)"""
    i = T.lscalar("i")
    m = T.dvector("m")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        f = irc.function([m, i], T.grad(T.sum(m[i:] ** 2), m))
    np.testing.assert_array_equal(f(np.arange(4.0), -3), [0.0, 2.0, 4.0, 6.0])


class _NoGradient(T.Op):
    """A user op that states no gradient."""

    def make_node(self, x):
        return T.Apply(self, [x], [x.type()])


def test_an_op_without_a_gradient_names_the_line():
    m = T.dvector("m")
    with pytest.raises(NotImplementedError, match=r"test_dynamic_slice.py:\d+:\d+: error: T.grad: .* has no gradient"):
        T.grad(T.sum(_NoGradient()(m)), m)
