"""The Deep-Learning-Tutorials-style programs of examples/dlt_programs.py (softmax regression
and an MLP with the tutorials' NLL `-mean(log(p)[arange(n), y])` and `errors`, a denoising
autoencoder, an Elman RNN trained through time; minibatches chosen by `givens` with a
symbolic index) train
step by step as numpy re-implementations of the same models do: float64 to 1e-10 relative,
float32 to 2e-4 relative (and 2e-5 absolute) over 3 epochs. The autoencoder's corruption mask
is reproduced bit for bit from the generator's definition (`irc.dialects.philox.sample`): one
element of it different would move a float64 cost by far more than the tolerance."""
from __future__ import annotations

import importlib.util
import pathlib
import warnings

import numpy as np
import pytest

import irc
from irc.dialects.philox import sample

_PATH = pathlib.Path(__file__).parents[2] / "examples" / "dlt_programs.py"
_spec = importlib.util.spec_from_file_location("dlt_programs", _PATH)
dlt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dlt)

EPOCHS, BATCH = 3, 20
TOLERANCE = {"float64": dict(rtol=1e-10, atol=1e-12), "float32": dict(rtol=2e-4, atol=2e-5)}


@pytest.fixture(params=["float64", "float32"])
def floatX(request):
    with irc.config.change_flags(floatX=request.param), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # compiled natively, no fallback
        yield request.param


def _data():
    train_x, train_y = dlt.make_dataset()
    x = train_x.get_value()
    y = train_y.owner.inputs[0].get_value().astype(np.int64)
    return train_x, train_y, x, y, x.shape[0] // BATCH


def _softmax(a):
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _onehot(y, k, dtype):
    return (y[:, None] == np.arange(k)).astype(dtype)


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _steps(n_batches):
    for _ in range(EPOCHS):
        for i in range(n_batches):
            yield i, slice(i * BATCH, (i + 1) * BATCH)


def test_softmax_regression(floatX):
    train_x, train_y, x, y, n_batches = _data()
    model, train, errors = dlt.softmax_regression(train_x, train_y, BATCH, learning_rate=0.13)
    W, b = model.W.get_value(), model.b.get_value()
    lr = np.asarray(0.13, floatX)
    for i, rows in _steps(n_batches):
        p = _softmax(x[rows] @ W + b)
        cost = np.mean(-np.log(p[np.arange(BATCH), y[rows]]))
        d = (p - _onehot(y[rows], 3, floatX)) / np.asarray(BATCH, floatX)
        W, b = W - lr * (x[rows].T @ d), b - lr * d.sum(axis=0)
        np.testing.assert_allclose(train(i), cost, **TOLERANCE[floatX])
        np.testing.assert_allclose(model.W.get_value(), W, **TOLERANCE[floatX])
        np.testing.assert_allclose(model.b.get_value(), b, **TOLERANCE[floatX])
        assert model.W.get_value().dtype == floatX
    for i, rows in _steps(n_batches):
        error = np.mean(np.argmax(x[rows] @ W + b, axis=1) != y[rows])
        assert errors(i) == pytest.approx(error, rel=1e-7)  # a count over 20: float32 rounds it
    assert 0 < np.mean([errors(i) for i in range(n_batches)]) < 0.5  # learnt something, not all


def test_mlp(floatX):
    train_x, train_y, x, y, n_batches = _data()
    L1, L2, lr = 0.001, 0.0001, np.asarray(0.01, floatX)
    model, train = dlt.mlp(train_x, train_y, BATCH, learning_rate=0.01, L1_reg=L1, L2_reg=L2)
    Wh, bh, Wo, bo = (p.get_value() for p in model.params)
    for i, rows in _steps(n_batches):
        h = np.tanh(x[rows] @ Wh + bh)
        p = _softmax(h @ Wo + bo)
        cost = (np.mean(-np.log(p[np.arange(BATCH), y[rows]])) + L1 * (np.abs(Wh).sum() + np.abs(Wo).sum())
                + L2 * ((Wh ** 2).sum() + (Wo ** 2).sum()))
        d_out = (p - _onehot(y[rows], 3, floatX)) / np.asarray(BATCH, floatX)
        d_hidden = (d_out @ Wo.T) * (1 - h ** 2)
        grads = [x[rows].T @ d_hidden + L1 * np.sign(Wh) + 2 * L2 * Wh, d_hidden.sum(axis=0),
                 h.T @ d_out + L1 * np.sign(Wo) + 2 * L2 * Wo, d_out.sum(axis=0)]
        Wh, bh, Wo, bo = (v - lr * g.astype(floatX) for v, g in zip((Wh, bh, Wo, bo), grads))
        np.testing.assert_allclose(train(i), cost, **TOLERANCE[floatX])
        for param, expected in zip(model.params, (Wh, bh, Wo, bo)):
            np.testing.assert_allclose(param.get_value(), expected, **TOLERANCE[floatX])


def test_denoising_autoencoder(floatX):
    train_x, _, x, _, n_batches = _data()
    lr, keep = np.asarray(0.1, floatX), np.asarray(1 - 0.3, floatX)
    model, train = dlt.denoising_autoencoder(train_x, BATCH, learning_rate=0.1, corruption_level=0.3)
    W, b, b_prime = (p.get_value() for p in model.params)
    state = model.mask.rng
    kept = []
    for i, rows in _steps(n_batches):
        u = sample(state.get_value(), x[rows].shape, "uniform", floatX)  # this call's draw
        tilde = (u < keep).astype(floatX) * x[rows]
        kept.append((u < keep).mean())
        hidden = _sigmoid(tilde @ W + b)
        z = _sigmoid(hidden @ W.T + b_prime)
        cost = np.mean(-np.sum(x[rows] * np.log(z) + (1 - x[rows]) * np.log(1 - z), axis=1))
        d_z = (z - x[rows]) / np.asarray(BATCH, floatX)
        d_hidden = (d_z @ W) * hidden * (1 - hidden)
        grads = [tilde.T @ d_hidden + d_z.T @ hidden, d_hidden.sum(axis=0), d_z.sum(axis=0)]
        W, b, b_prime = (v - lr * g.astype(floatX) for v, g in zip((W, b, b_prime), grads))
        np.testing.assert_allclose(train(i), cost, **TOLERANCE[floatX])
        for param, expected in zip(model.params, (W, b, b_prime)):
            np.testing.assert_allclose(param.get_value(), expected, **TOLERANCE[floatX])
    assert abs(np.mean(kept) - 0.7) < 0.02  # the mask keeps 70% of the inputs


def test_elman_rnn(floatX):
    """Backpropagation through time by hand: the adjoint of h_t gathers the output layer's
    and the next step's, through tanh' = 1 - h_t²."""
    train_x, train_y, x, y, n_batches = _data()
    lr = np.asarray(0.1, floatX)
    model, train = dlt.elman_rnn(train_x, train_y, BATCH, learning_rate=0.1)
    Wx, Wh, bh, h0, Wy, by = (p.get_value() for p in model.params)
    for i, rows in _steps(n_batches):
        xs, hs, h = x[rows], [], h0
        for x_t in xs:
            h = np.tanh(x_t @ Wx + h @ Wh + bh)
            hs.append(h)
        H = np.array(hs)
        p = _softmax(H @ Wy + by)
        cost = np.mean(-np.log(p[np.arange(BATCH), y[rows]]))
        d_out = (p - _onehot(y[rows], 3, floatX)) / np.asarray(BATCH, floatX)
        dH = d_out @ Wy.T
        g = [np.zeros_like(v) for v in (Wx, Wh, bh)]
        d_next = np.zeros_like(h0)
        for t in reversed(range(BATCH)):
            da = (dH[t] + d_next) * (1 - H[t] ** 2)
            prev = H[t - 1] if t else h0
            g[0] += np.outer(xs[t], da)
            g[1] += np.outer(prev, da)
            g[2] += da
            d_next = da @ Wh.T
        grads = [*g, d_next, H.T @ d_out, d_out.sum(axis=0)]
        Wx, Wh, bh, h0, Wy, by = (v - lr * gr.astype(floatX) for v, gr in zip((Wx, Wh, bh, h0, Wy, by), grads))
        np.testing.assert_allclose(train(i), cost, **TOLERANCE[floatX])
        for param, expected in zip(model.params, (Wx, Wh, bh, h0, Wy, by)):
            np.testing.assert_allclose(param.get_value(), expected, **TOLERANCE[floatX])
