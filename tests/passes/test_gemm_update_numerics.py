"""SGD updates folded into the gradient's gemm (`specialize`: alpha = -lr, beta = 1 or
1 - lr·λ; `inplace`: written over W's storage): the same numbers as numpy's step, for odd sizes,
float32 and float64, with and without weight decay."""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T

RTOL = {"float32": 2e-5, "float64": 1e-12}


def sgd_step(dtype: str, decay: float | None, W0: np.ndarray):
    X, d = T.matrix("X", dtype=dtype), T.matrix("d", dtype=dtype)
    W = irc.shared(W0.copy(), name="W")
    g = T.dot(X.T, d)
    if decay is not None:
        g = g + decay * W
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # native code, not the reference executor
        return irc.function([X, d], [], updates=[(W, W - 0.05 * g)]), W


@functools.lru_cache(maxsize=None)
def shared_sgd_step(dtype: str, decay: float | None):
    """`sgd_step` once per dtype and decay for every size (W's shape is its value's); the cases
    set W to their start."""
    return sgd_step(dtype, decay, np.zeros((1, 1), dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("decay", [None, 0.1])
@pytest.mark.parametrize("n,D,H", [(1, 7, 33), (33, 1000, 7), (7, 1, 1), (300, 33, 270)])
def test_folded_update_matches_numpy(dtype, decay, n, D, H):
    rng = np.random.default_rng(n * 1000 + D + H)
    X = rng.standard_normal((n, D)).astype(dtype)
    d = rng.standard_normal((n, H)).astype(dtype)
    W0 = rng.standard_normal((D, H)).astype(dtype)
    f, W = shared_sgd_step(dtype, decay)
    W.set_value(W0.copy())
    text = f.ir("optimized")
    assert "tensor.sub" not in text and "tensor.mul" not in text, text
    assert "inplace = array<i64: 2>" in text  # the gemm writes over W
    X0, d0 = X.copy(), d.copy()
    want = W0.astype("float64")
    for _ in range(3):
        f(X, d)
        g = X.T.astype("float64") @ d + (decay * want if decay is not None else 0.0)
        want = want - 0.05 * g
    np.testing.assert_array_equal(X, X0)  # the user's inputs are left alone
    np.testing.assert_array_equal(d, d0)
    # the terms' size bounds the rounding error: |W| + lr·|X|ᵀ·|d| per element
    scale = np.abs(want) + 0.05 * (np.abs(X.T.astype("float64")) @ np.abs(d)) * 3
    err = np.abs(W.get_value() - want)
    assert np.all(err <= RTOL[dtype] * scale + 1e-30), float(np.max(err / scale))


def test_gradient_also_returned_is_not_folded():
    """When the gradient is an output too, it is computed once and the update subtracts it."""
    X, d = T.fmatrix("X"), T.fmatrix("d")
    W = irc.shared(np.ones((3, 2), "float32"), name="W")
    g = T.dot(X.T, d)
    f = irc.function([X, d], g, updates=[(W, W - 0.5 * g)])
    x = np.arange(12, dtype="float32").reshape(4, 3)
    e = np.ones((4, 2), "float32")
    got = f(x, e)
    np.testing.assert_allclose(got, x.T @ e, rtol=1e-6)
    np.testing.assert_allclose(W.get_value(), 1 - 0.5 * (x.T @ e), rtol=1e-6)
