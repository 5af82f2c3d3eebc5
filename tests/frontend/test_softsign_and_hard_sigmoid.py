"""T.nnet.softsign (x / (1 + |x|), Theano's `nnet.softsign`) and T.nnet.hard_sigmoid, in
Theano's float dtype of their input (`upgrade_to_float`: int8 -> float32, int32 -> float64; its
hard_sigmoid makes its constants of that dtype), as Theano's nnet testers (SoftsignTester,
HardSigmoidTester) check; softsign's gradient 1 / (1 + |x|)^2."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T


@pytest.mark.parametrize("dtype,want", [("int8", "float32"), ("uint16", "float32"), ("int32", "float64"),
                                        ("float32", "float32"), ("float64", "float64")])
def test_dtypes_are_theanos(dtype, want):
    x = T.vector(dtype=dtype)
    assert T.nnet.softsign(x).dtype == want
    assert T.nnet.hard_sigmoid(x).dtype == want


def test_values_and_gradient():
    x = T.dvector("x")
    v = np.array([-127.0, -2.0, -0.3, 0.0, 0.7, 4.0])
    f = irc.function([x], [T.nnet.softsign(x), T.nnet.hard_sigmoid(x), T.grad(T.nnet.softsign(x).sum(), x)])
    soft, hard, grad = f(v)
    np.testing.assert_allclose(soft, v / (1 + np.abs(v)), rtol=1e-15)
    np.testing.assert_allclose(hard, np.clip(0.2 * v + 0.5, 0, 1), rtol=1e-15)
    np.testing.assert_allclose(grad, 1 / (1 + np.abs(v)) ** 2, rtol=1e-15)
    b = T.bvector("b")
    got = irc.function([b], T.nnet.hard_sigmoid(b))(np.arange(-127, 128, dtype=np.int8))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.clip(np.arange(-127, 128) * np.float32(0.2) + 0.5, 0, 1), rtol=1e-6)
