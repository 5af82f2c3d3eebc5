"""`T.nnet.softmax` and `log_softmax` as Theano's (theano/tensor/nnet/nnet.py: `Softmax.make_node`
and `LogSoftmax.make_node` pad a vector to a 1×n row): a vector gives a 1×n matrix, so rnnslu's
`s[:, 0, :]` over a scan of softmaxes works. Values against numpy: float64 to 1e-12 relative,
gradients against central differences to 1e-6."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

RNG = np.random.RandomState(22)


def _softmax(v: np.ndarray) -> np.ndarray:
    e = np.exp(v - v.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsoftmax"])
def test_a_vector_gives_a_one_by_n_row(name):
    v = T.dvector("v")
    out = getattr(T.nnet, name)(v)
    assert out.ndim == 2 and out.broadcastable == (True, False)
    x = RNG.normal(size=5)
    expected = _softmax(x)[None, :]
    if name != "softmax":
        expected = np.log(expected)
    got = irc.function([v], out)(x)
    assert got.shape == (1, 5)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_matrices_keep_their_shape_and_an_explicit_axis_keeps_the_rank():
    m, v = T.dmatrix("m"), T.dvector("v")
    assert T.nnet.softmax(m).broadcastable == (False, False)
    assert T.nnet.softmax(v, axis=-1).ndim == 1  # irc's axis keyword (as Aesara's) keeps the rank
    x = RNG.normal(size=4)
    np.testing.assert_allclose(irc.function([v], T.nnet.softmax(v, axis=0))(x), _softmax(x), rtol=1e-12)


def test_rnnslu_indexes_the_row_dim_of_a_scan_of_softmaxes():
    """rnnslu.py: `s` stacks one 1×n softmax per word; `s[:, 0, :]` is the sentence's matrix."""
    x = T.dmatrix("x")
    W = irc.shared(RNG.normal(size=(3, 4)), name="W")

    def step(x_t):
        return T.nnet.softmax(T.dot(x_t, W))

    s, _ = irc.scan(step, sequences=x)
    assert s.ndim == 3
    p_sentence = s[:, 0, :]
    y = T.ivector("y")
    nll = -T.mean(T.log(p_sentence)[T.arange(x.shape[0]), y])
    f = irc.function([x, y], [p_sentence, nll])
    xv, yv = RNG.normal(size=(6, 3)), np.array([0, 3, 2, 1, 1, 0], dtype="int32")
    p, cost = f(xv, yv)
    expected = _softmax(xv @ W.get_value())
    np.testing.assert_allclose(p, expected, rtol=1e-12)
    np.testing.assert_allclose(cost, -np.mean(np.log(expected)[np.arange(6), yv]), rtol=1e-12)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_gradient_through_the_row(name):
    v = T.dvector("v")
    w = RNG.uniform(0.5, 1.5, size=(1, 4))
    cost = (getattr(T.nnet, name)(v) * w).sum()
    g = irc.function([v], T.grad(cost, v))
    x = RNG.normal(size=4)

    def value(z):
        p = _softmax(z)[None, :]
        return ((p if name == "softmax" else np.log(p)) * w).sum()

    eps = 1e-6
    numeric = np.array([(value(x + eps * e) - value(x - eps * e)) / (2 * eps) for e in np.eye(4)])
    got = g(x)
    assert got.shape == (4,)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-9)
