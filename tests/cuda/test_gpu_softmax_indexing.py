"""The ops around the products on the GPU (device=cuda) against the CPU backend, none left on
the host: softmax / log_softmax / softmax_grad by rows (10 classes and 1000² rows), gathers and
scatters (the tutorials' `log(p)[arange(n), y]`, `x[ivec]`, inc/set_subtensor with index
vectors), an index out of range read back as an IndexError, join/stack, alloc and
set_subtensor with slices; results the same bits on every call. Tolerances: float32 rtol 1e-5
(softmax statistics summed in another order; the GPU's exp to 2 ulp), float64 1e-12; moves and
scatters exact (a scatter adds in the CPU's order)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T


def compile_on(device: str, inputs, outputs, updates=None):
    policy = "raise" if device == "cuda" else "ignore"
    with irc.config.change_flags(device=device, assert_no_cpu_op=policy):
        return irc.function(inputs, outputs, updates=updates)


def compare(inputs, outputs, *values, rtol=1e-5, exact=()):
    cpu = compile_on("cpu", inputs, outputs)(*values)
    f = compile_on("cuda", inputs, outputs)
    gpu, again = f(*values), f(*values)
    for k, (c, g, a) in enumerate(zip(cpu, gpu, again)):
        g, a = np.asarray(g), np.asarray(a)
        assert g.dtype == c.dtype and g.shape == c.shape
        assert g.tobytes() == a.tobytes()  # deterministic
        if c.dtype.kind in "iub" or k in exact:
            np.testing.assert_array_equal(g, c)
        else:
            np.testing.assert_allclose(g, c, rtol=rtol, atol=rtol)
    return f


@pytest.mark.parametrize("shape", [(256, 10), (1000, 1000), (3, 100003), (0, 5), (1, 1)])
def test_softmax_family_by_rows(shape):
    x, g = T.fmatrix("x"), T.fmatrix("g")
    p = T.nnet.softmax(x)
    rng = np.random.RandomState(0)
    xv, gv = rng.uniform(-5, 5, shape).astype("float32"), rng.uniform(-1, 1, shape).astype("float32")
    f = compare([x, g], [p, T.nnet.logsoftmax(x), T.grad(T.sum(p * g), x)], xv, gv)
    assert {"GpuLogSoftmax", "GpuSoftmaxGrad"} <= {type(n.op).__name__ for n in f.maker.fgraph.toposort()}
    alone = compare([x], [p], xv)  # (beside its log_softmax, the softmax is read from it)
    assert "GpuSoftmax" in {type(n.op).__name__ for n in alone.maker.fgraph.toposort()}


def test_negative_log_likelihood_and_gradient():
    x, y = T.fmatrix("x"), T.ivector("y")
    p = T.nnet.softmax(x)
    nll = -T.mean(T.log(p)[T.arange(y.shape[0]), y])
    rng = np.random.RandomState(1)
    xv, yv = rng.randn(256, 10).astype("float32"), rng.randint(0, 10, 256).astype("int32")
    compare([x, y], [nll, T.grad(nll, x), T.argmax(p, axis=1)], xv, yv)


def test_gather_and_scatter_with_repeated_indices():
    m, y, i = T.fmatrix("m"), T.fmatrix("y"), T.lvector("i")
    rng = np.random.RandomState(2)
    mv, yv = rng.randn(1000, 64).astype("float32"), rng.randn(4096, 64).astype("float32")
    iv = rng.randint(-1000, 1000, 4096).astype("int64")
    compare([m, y, i], [m[i], T.inc_subtensor(m[i], y), T.set_subtensor(m[i], y)], mv, yv, iv,
            exact=(0, 1, 2))


def test_index_out_of_range_is_an_index_error_then_the_function_runs_again():
    m, i = T.fmatrix("m"), T.lvector("i")
    f = compile_on("cuda", [m, i], m[i] * 2)
    mv = np.ones((3, 4), "float32")
    with pytest.raises(IndexError, match="'tensor.gather'.*index out of range for axis 0"):
        f(mv, np.array([0, 3]))
    np.testing.assert_array_equal(f(mv, np.array([2, -3])), np.full((2, 4), 2.0))


def test_shared_table_keeps_its_last_good_value_after_a_bad_index():
    w = irc.shared(np.arange(12, dtype="float32").reshape(4, 3), name="w")
    i = T.lvector("i")
    step = compile_on("cuda", [i], T.sum(w[i]), updates={w: T.inc_subtensor(w[i], 1.0)})
    step(np.array([0, 0, 3]))
    before = w.get_value()
    with pytest.raises(IndexError):
        step(np.array([1, 4]))
    np.testing.assert_array_equal(w.get_value(), before)


def test_join_alloc_and_set_subtensor():
    x, y, v = T.fmatrix("x"), T.fmatrix("y"), T.fvector("v")
    rng = np.random.RandomState(3)
    xv, yv, vv = rng.randn(33, 31).astype("float32"), rng.randn(33, 31).astype("float32"), rng.randn(33).astype("float32")
    compare([x, y, v], [T.concatenate([x, y], axis=1), T.stack([v, v * 2]), T.zeros_like(x) + v.dimshuffle(0, "x"),
                        T.set_subtensor(x[1:, ::2], y[1:, ::2]), T.inc_subtensor(x[:, 3], v)], xv, yv, vv,
            exact=(0, 1, 2, 3, 4))
