"""Theano's nnet functions added for its own tests: the fused softmax cross-entropies of
integer labels, elu/selu, softmax_graph/softmax_op, sigmoid_binary_crossentropy and
confusion_matrix, against numpy (float64; 1e-12 relative) and finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime.native_executor import NativeExecutor
from irc.tensor import nnet as N

rng = np.random.RandomState(5)


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_crossentropy_softmax_argmax_1hot_with_bias_values_and_errors():
    x, b, y = T.dmatrix(), T.dvector(), T.lvector()
    f = irc.function([x, b, y], N.CrossentropySoftmaxArgmax1HotWithBias()(x, b, y))
    assert isinstance(f.executor, NativeExecutor)
    xv, bv, yv = rng.rand(3, 5), rng.rand(5), np.array([0, 4, 2])
    nll, sm, am = f(xv, bv, yv)
    expected = _softmax(xv + bv)
    np.testing.assert_allclose(sm, expected, rtol=1e-12)
    np.testing.assert_allclose(nll, -np.log(expected[np.arange(3), yv]), rtol=1e-12)
    np.testing.assert_array_equal(am, (xv + bv).argmax(axis=1))
    for bad in (-1, 5):
        with pytest.raises(ValueError):
            f(xv, bv, np.array([0, bad, 2]))
    with pytest.raises(TypeError, match="integer vector"):
        N.crossentropy_softmax_1hot(x, T.dvector())


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint64", "int64"])
def test_crossentropy_gradients(dtype):
    labels = np.array([0, 1, 3], dtype=dtype)
    T.verify_grad(lambda a, c: N.crossentropy_softmax_1hot_with_bias(a, c, labels)[0], [rng.rand(3, 4), rng.rand(4)],
                  rng=rng)
    T.verify_grad(lambda a: N.crossentropy_softmax_1hot(a, labels)[0], [rng.rand(3, 4)], rng=rng)
    T.verify_grad(lambda a, c: N.crossentropy_softmax_argmax_1hot_with_bias(a, c, labels)[1],
                  [rng.rand(3, 4), rng.rand(4)], rng=rng)


def test_elu_selu_and_the_logit_crossentropy():
    x = T.dmatrix()
    data = rng.randn(4, 6)
    for alpha in (1, 1.5, -2):
        np.testing.assert_allclose(irc.function([x], N.elu(x, alpha))(data),
                                   np.where(data > 0, data, alpha * np.expm1(data)), rtol=1e-12)
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    np.testing.assert_allclose(irc.function([x], N.selu(x))(data),
                               np.where(data > 0, scale * data, scale * alpha * np.expm1(data)), rtol=1e-12)
    p, t = T.dvectors("p", "t")
    pv, tv = rng.randn(50) * 5, 1 / (1 + np.exp(-rng.randn(50)))
    ours = irc.function([p, t], N.sigmoid_binary_crossentropy(p, t))(pv, tv)
    sig = 1 / (1 + np.exp(-pv))
    np.testing.assert_allclose(ours, -(tv * np.log(sig) + (1 - tv) * np.log1p(-sig)), rtol=1e-9)
    T.verify_grad(N.sigmoid_binary_crossentropy, [pv, tv], rng=rng)


def test_softmax_graph_and_softmax_op_gradients():
    shared = irc.shared(rng.normal(size=(3, 4)))
    for make in (N.softmax_graph, N.softmax_op):
        T.verify_grad(lambda g: T.grad(None, shared, known_grads={make(shared): g}), [rng.rand(3, 4)], rng=rng)
    np.testing.assert_allclose(irc.function([], N.softmax_graph(shared))(), _softmax(shared.get_value()), rtol=1e-12)


@pytest.mark.parametrize("actual, pred", [([0, 1, 2, 1, 0], [0, 0, 2, 1, 2]), ([2, 0, 2, 2, 0, 1], [0, 0, 2, 2, 0, 2])])
def test_confusion_matrix(actual, pred):
    a, p = T.dvector(), T.dvector()
    counts, labels = irc.function([a, p], N.confusion_matrix(a, p))(actual, pred)
    order = np.union1d(actual, pred)
    expected = (np.asarray(actual)[:, None] == order).astype(int).T @ (np.asarray(pred)[:, None] == order).astype(int)
    np.testing.assert_array_equal(labels, order)
    np.testing.assert_array_equal(counts, expected)
