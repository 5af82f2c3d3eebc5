"""`T.topk`, `T.argtopk`, `T.topk_and_argtopk` against numpy: the kth largest (kth > 0) or
smallest (kth < 0) along every axis, indices of the chosen dtype, the gradient of the sort."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T


@pytest.mark.parametrize("kth", [1, -1, 2, -3])
def test_values_and_indices_match_numpy_along_every_axis(kth):
    x = T.dtensor3("x")
    xv = np.random.RandomState(0).rand(3, 4, 5)
    for axis in range(-3, 3):
        values, indices = T.topk_and_argtopk(x, kth, axis=axis, sorted=False, idx_dtype="int32")
        v, i = irc.function([x], [values, indices])(xv)
        n = xv.shape[axis]
        want = np.take(np.sort(xv, axis=axis), range(n - kth, n) if kth > 0 else range(-kth), axis=axis)
        np.testing.assert_array_equal(v, want)
        assert i.dtype == np.int32
        np.testing.assert_array_equal(np.take_along_axis(xv, i.astype(np.int64), axis=axis), v)


def test_the_gradient_reaches_the_chosen_entries():
    x = T.dmatrix("x")
    xv = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])
    g = irc.function([x], T.grad((T.topk(x, 2, axis=1, sorted=False) ** 2).sum(), x))(xv)
    np.testing.assert_allclose(g, [[6.0, 0.0, 4.0], [1.0, 8.0, 0.0]], rtol=1e-15)
    T.verify_grad(lambda a: T.topk(a, -2, axis=0, sorted=False), [xv], rng=np.random.RandomState(1))


def test_bad_arguments_are_refused_by_name():
    x = T.dvector("x")
    with pytest.raises(NotImplementedError, match="sorted=True"):
        T.topk(x, 1)
    with pytest.raises(ValueError, match="kth must not be 0"):
        T.argtopk(x, 0, sorted=False)
    with pytest.raises(TypeError, match="kth must be a Python int"):
        T.topk(x, T.lscalar(), sorted=False)

