"""Minibatches picked by `givens` under device=cuda: `x[i * bs:(i + 1) * bs]` of a device-resident
shared dataset is a device view whose bounds the host side computes from the index's value
(`loop.host_value`: a host plan per index), so the DLT programs' steps need no host op. Checked
with the kernels run by the CPU emulator of the grid against numpy: numpy's slice rules (a last
short batch, an empty one past the end, negative indices), and a softmax-regression training
step (softmax, the `log(p)[arange(n), y]` gather, its scatter gradient, updates) wholly on the
device — its product written as a broadcast sum, since `dot` is not placed here. Tolerances:
float32 rtol 1e-5 (float64 numpy references)."""
from __future__ import annotations

import numpy as np

import irc
import irc.tensor as T
from test_cuda_path_emulated import cuda_emulated, rand  # noqa: F401  (the fixture)


def no_host_ops():
    return irc.config.change_flags(assert_no_cpu_op="raise")


def test_givens_slice_is_a_device_view_by_the_index_value(cuda_emulated):
    data = irc.shared(rand(45, 3, seed=1), name="data")
    i, x = T.lscalar("i"), T.fmatrix("x")
    with no_host_ops():
        f = irc.function([i], [x * 2, T.sum(x, axis=0)], givens={x: data[i * 10:(i + 1) * 10]})
    assert "GpuSubtensor" in {type(n.op).__name__ for n in f.maker.fgraph.toposort()}
    d = data.get_value()
    for k in (0, 3, 4, 7, -1, -5, 2, 0):  # full, short last, empty past the end, negative
        batch = d[k * 10:(k + 1) * 10]
        doubled, sums = f(k)
        assert doubled.shape == batch.shape
        np.testing.assert_array_equal(doubled, batch * 2)
        np.testing.assert_allclose(sums, batch.sum(axis=0), rtol=1e-6, atol=1e-6)


def test_a_softmax_regression_step_runs_on_the_device(cuda_emulated):
    rng = np.random.RandomState(0)
    n, n_in, n_out, bs, lr = 60, 5, 3, 20, 0.13
    xs = rng.uniform(0, 1, (n, n_in)).astype("float32")
    ys = rng.randint(0, n_out, n).astype("int32")
    train_x, train_y = irc.shared(xs, name="train_x"), irc.shared(ys, name="train_y")
    w = irc.shared(np.zeros((n_in, n_out), "float32"), name="W")
    b = irc.shared(np.zeros(n_out, "float32"), name="b")
    index, x, y = T.lscalar("index"), T.fmatrix("x"), T.ivector("y")
    p = T.nnet.softmax(T.sum(x.dimshuffle(0, 1, "x") * w.dimshuffle("x", 0, 1), axis=1) + b)
    cost = -T.mean(T.log(p)[T.arange(y.shape[0]), y])
    gw, gb = T.grad(cost, [w, b])
    batch = slice(index * bs, (index + 1) * bs)
    with no_host_ops():
        train = irc.function([index], cost, updates=[(w, w - lr * gw), (b, b - lr * gb)],
                             givens={x: train_x[batch], y: train_y[batch]})
    names = {str(node.op).split("{")[0] for node in train.maker.fgraph.toposort()}
    assert {"GpuAdvancedSubtensor", "GpuAdvancedIncSubtensor", "GpuSubtensor"} <= names
    assert names & {"GpuSoftmax", "GpuLogSoftmax"}  # (a softmax beside its log: read from it)
    wv, bv = np.zeros((n_in, n_out)), np.zeros(n_out)
    for k in (0, 1, 2, 1):
        xb, yb = xs[k * bs:(k + 1) * bs].astype("float64"), ys[k * bs:(k + 1) * bs]
        o = xb @ wv + bv
        e = np.exp(o - o.max(1, keepdims=True))
        pv = e / e.sum(1, keepdims=True)
        np.testing.assert_allclose(train(k), -np.mean(np.log(pv[np.arange(bs), yb])), rtol=1e-5)
        d = pv.copy()
        d[np.arange(bs), yb] -= 1
        wv, bv = wv - lr * xb.T @ d / bs, bv - lr * d.mean(0)
        np.testing.assert_allclose(w.get_value(), wv, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b.get_value(), bv, rtol=1e-5, atol=1e-6)
