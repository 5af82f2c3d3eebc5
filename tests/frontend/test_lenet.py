"""examples/lenet.py (the Deep Learning Tutorials' convolutional_mlp: conv2d + max pooling +
tanh twice, a tanh hidden layer, softmax regression; minibatches by `givens`) trains step by
step as a numpy re-implementation of the same model does: float64 to 1e-9 relative, float32
to 2e-3 relative (and 1e-5 absolute) after 4 steps with a batch of 5 — the tutorial's shapes
otherwise (28×28 images, 20 and 50 5×5 filters, 500 hidden units, 10 classes)."""
from __future__ import annotations

import importlib.util
import pathlib
import sys
import warnings

import numpy as np
import pytest

import irc

_EXAMPLES = pathlib.Path(__file__).parents[2] / "examples"
sys.path.insert(0, str(_EXAMPLES))  # lenet.py imports dlt_programs.py from beside it
_spec = importlib.util.spec_from_file_location("lenet", _EXAMPLES / "lenet.py")
lenet = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lenet)

BATCH, STEPS, LR = 5, 4, 0.1
TOLERANCE = {"float64": dict(rtol=1e-9, atol=1e-12), "float32": dict(rtol=2e-3, atol=1e-5)}


def _conv(x, w):
    """Valid convolution (the filter flipped), one numpy product per tap."""
    kh, kw = w.shape[2:]
    oh, ow = x.shape[2] - kh + 1, x.shape[3] - kw + 1
    y = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for a in range(kh):
        for b in range(kw):
            y += np.einsum("nchw,fc->nfhw", x[:, :, a:a + oh, b:b + ow], w[:, :, kh - 1 - a, kw - 1 - b])
    return y


def _conv_grads(x, w, dy):
    kh, kw = w.shape[2:]
    oh, ow = dy.shape[2:]
    gx, gw = np.zeros(x.shape), np.zeros(w.shape)
    for a in range(kh):
        for b in range(kw):
            gw[:, :, kh - 1 - a, kw - 1 - b] = np.einsum("nchw,nfhw->fc", x[:, :, a:a + oh, b:b + ow], dy)
            gx[:, :, a:a + oh, b:b + ow] += np.einsum("nfhw,fc->nchw", dy, w[:, :, kh - 1 - a, kw - 1 - b])
    return gx, gw


def _pool(c):
    n, f, h, w = c.shape
    return c.reshape(n, f, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def _pool_grad(c, p, dp):
    up = lambda a: a.repeat(2, axis=2).repeat(2, axis=3)  # noqa: E731
    return np.where(c == up(p), up(dp), 0.0)


def _numpy_step(params, x, y):
    """One SGD step of the model in numpy (float64); returns the cost and the new parameters."""
    W3, b3, W2, b2, W1, b1, W0, b0 = params
    x0 = x.reshape(-1, 1, 28, 28)
    c0 = _conv(x0, W0)
    p0 = _pool(c0)
    h0 = np.tanh(p0 + b0[None, :, None, None])
    c1 = _conv(h0, W1)
    p1 = _pool(c1)
    h1 = np.tanh(p1 + b1[None, :, None, None])
    f = h1.reshape(len(x), -1)
    h2 = np.tanh(f @ W2 + b2)
    logits = h2 @ W3 + b3
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    cost = -np.mean(np.log(p[np.arange(len(y)), y]))
    d = (p - (y[:, None] == np.arange(10))) / len(y)
    gW3, gb3 = h2.T @ d, d.sum(0)
    da2 = (d @ W3.T) * (1 - h2 ** 2)
    gW2, gb2 = f.T @ da2, da2.sum(0)
    da1 = (da2 @ W2.T).reshape(h1.shape) * (1 - h1 ** 2)
    gh0, gW1 = _conv_grads(h0, W1, _pool_grad(c1, p1, da1))
    da0 = gh0 * (1 - h0 ** 2)
    _, gW0 = _conv_grads(x0, W0, _pool_grad(c0, p0, da0))
    grads = [gW3, gb3, gW2, gb2, gW1, da1.sum((0, 2, 3)), gW0, da0.sum((0, 2, 3))]
    return cost, [q - LR * g for q, g in zip(params, grads)]


@pytest.mark.parametrize("floatX", ["float64", "float32"])
def test_lenet_trains_as_numpy_does(floatX):
    with irc.config.change_flags(floatX=floatX), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # compiled natively
        train_x, train_y = lenet.make_images(n=2 * BATCH)
        model, train, errors = lenet.lenet(train_x, train_y, batch_size=BATCH, learning_rate=LR)
        x = train_x.get_value().astype(np.float64)
        y = train_y.owner.inputs[0].get_value().astype(np.int64)
        params = [p.get_value().astype(np.float64) for p in model.params]
        assert params[4].shape == (50, 20, 5, 5) and params[6].shape == (20, 1, 5, 5)
        for step in range(STEPS):
            i = step % 2
            batch = slice(i * BATCH, (i + 1) * BATCH)
            want_cost, params = _numpy_step(params, x[batch], y[batch])
            got = train(i)
            assert np.asarray(got).dtype == floatX
            np.testing.assert_allclose(got, want_cost, **TOLERANCE[floatX])
            for shared, want in zip(model.params, params):
                np.testing.assert_allclose(shared.get_value(), want, err_msg=shared.name, **TOLERANCE[floatX])
        assert 0.0 <= errors(0) <= 1.0
