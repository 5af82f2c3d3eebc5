"""A 2-layer MLP training step (tanh hidden layer, softmax, cross-entropy, SGD), written in
Theano style: the products become gemms with the bias in the store loop, tanh as an epilogue
and the updates accumulated into W1 and W2 in place — and the numbers are numpy's, float32 and
float64, for odd sizes."""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T

RTOL = {"float32": 2e-4, "float64": 1e-10}


def numpy_step(X, Y, P, lr):
    W1, b1, W2, b2 = P
    h = np.tanh(X @ W1 + b1)
    o = h @ W2 + b2
    e = np.exp(o - o.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    cost = -(Y * np.log(p)).sum(axis=1).mean()
    do = (p - Y) / X.shape[0]
    dh = (do @ W2.T) * (1 - h * h)
    return cost, [W1 - lr * (X.T @ dh), b1 - lr * dh.sum(axis=0), W2 - lr * (h.T @ do),
                  b2 - lr * do.sum(axis=0)]


def mlp(dtype, P0, lr):
    X, Y = T.matrix("X", dtype=dtype), T.matrix("Y", dtype=dtype)
    params = [irc.shared(p.copy(), name=n) for p, n in zip(P0, ("W1", "b1", "W2", "b2"))]
    W1, b1, W2, b2 = params
    h = T.tanh(T.dot(X, W1) + b1)
    p = T.nnet.softmax(T.dot(h, W2) + b2)
    cost = T.nnet.categorical_crossentropy(p, Y).mean()
    grads = T.grad(cost, params)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # native code, not the reference executor
        f = irc.function([X, Y], cost, updates=[(q, q - lr * g) for q, g in zip(params, grads)])
    return f, params


@functools.lru_cache(maxsize=None)
def shared_mlp(dtype: str):
    """One training step per dtype for every size (its graph does not depend on the sizes:
    the parameters' shapes are their values'); the cases set the parameters to their start."""
    return mlp(dtype, [np.zeros((1, 1), dtype), np.zeros(1, dtype), np.zeros((1, 2), dtype),
                       np.zeros(2, dtype)], 0.1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("N,D,H,C", [(33, 7, 40, 3), (7, 100, 33, 10), (1, 1, 1, 2)])
def test_mlp_step_matches_numpy(dtype, N, D, H, C):
    rng = np.random.default_rng(N + D + H + C)
    X = rng.standard_normal((N, D)).astype(dtype)
    Y = np.eye(C, dtype=dtype)[rng.integers(0, C, N)]
    P = [rng.standard_normal((D, H)).astype(dtype) * 0.3, rng.standard_normal(H).astype(dtype) * 0.1,
         rng.standard_normal((H, C)).astype(dtype) * 0.3, rng.standard_normal(C).astype(dtype) * 0.1]
    f, params = shared_mlp(dtype)
    for shared, start in zip(params, P):
        shared.set_value(start.copy())
    text = f.ir("optimized")
    assert 'epilogue = "tanh"' in text and text.count("inplace = array<i64: 2>") == 2, text
    want = [p.astype("float64") for p in P]
    for _ in range(3):
        cost = f(X, Y)
        want_cost, want = numpy_step(X.astype("float64"), Y.astype("float64"), want, 0.1)
        np.testing.assert_allclose(cost, want_cost, rtol=RTOL[dtype])
    for got, w in zip(params, want):
        np.testing.assert_allclose(got.get_value(), w, rtol=RTOL[dtype], atol=RTOL[dtype])
