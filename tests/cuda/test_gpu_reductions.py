"""Reductions on the GPU (device=cuda) against the CPU backend: sums of a 4096² float32 matrix
over either axis and whole, every kind over odd shapes, the logistic-regression cost, all with
no op left on the host; the results bit-identical from one call to the next. Tolerances:
float32 rtol 1e-5 (different summation orders; the values are positive, so no cancellation),
float64 1e-12; argmax/argmin exact."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T


def compile_on(device: str, inputs, outputs):
    with irc.config.change_flags(device=device, assert_no_cpu_op="raise" if device == "cuda" else "ignore"):
        return irc.function(inputs, outputs)


def compare(inputs, outputs, *values, rtol=1e-5):
    cpu = compile_on("cpu", inputs, outputs)(*values)
    f = compile_on("cuda", inputs, outputs)
    assert any(type(n.op).__name__ == "GpuCAReduce" for n in f.maker.fgraph.toposort())
    gpu, again = f(*values), f(*values)
    for c, g, a in zip(cpu, gpu, again):
        assert g.dtype == c.dtype and g.shape == c.shape
        assert g.tobytes() == a.tobytes()  # deterministic: no atomics
        if c.dtype.kind in "iub":
            np.testing.assert_array_equal(g, c)
        else:
            np.testing.assert_allclose(g, c, rtol=rtol, atol=rtol)
    return gpu


def test_sum_of_4096_squared_over_each_axis_and_whole():
    x = T.fmatrix("x")
    xv = np.random.RandomState(0).uniform(0, 1, (4096, 4096)).astype("float32")
    # against the CPU backend to 3e-5: its full sum of 16.7M floats (8 sequential accumulators)
    # is the less accurate one (1.4e-5 off on the H200 run, the GPU's chunks 1.7e-7); both are
    # then checked against the float64 sum
    s0, s1, s = compare([x], [x.sum(axis=0), x.sum(axis=1), x.sum()], xv, rtol=3e-5)
    np.testing.assert_allclose(s0, xv.sum(0, dtype="float64"), rtol=1e-5)
    np.testing.assert_allclose(s1, xv.sum(1, dtype="float64"), rtol=1e-5)
    np.testing.assert_allclose(s, xv.sum(dtype="float64"), rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1), (33, 31), (257, 1025), (3, 100003)])
def test_every_kind_over_odd_shapes(dtype, shape):
    x = T.matrix("x", dtype=dtype)
    outs = [x.sum(axis=0), x.sum(axis=1), x.sum(), x.prod(axis=1), x.max(axis=0), x.min(),
            T.argmax(x, axis=1), T.argmin(x, axis=0), x.mean(axis=1), x.T.sum(axis=1),
            x[::2, ::3].max(axis=1)]
    xv = np.exp(np.random.RandomState(1).uniform(-0.01, 0.01, shape)).astype(dtype)
    compare([x], outs, xv, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_logistic_regression_cost():
    x, y, w, b = T.fmatrix("x"), T.fvector("y"), T.fvector("w"), T.fscalar("b")
    p = T.nnet.sigmoid(T.sum(x * w, axis=1) + b)
    cost = T.nnet.binary_crossentropy(p, y).mean() + 0.01 * (w ** 2).sum()
    rng = np.random.RandomState(0)
    values = (rng.randn(400, 784).astype("float32"), rng.randint(0, 2, 400).astype("float32"),
              (rng.randn(784) * 0.05).astype("float32"), np.float32(0.1))
    compare([x, y, w, b], [cost, T.mean(p > 0.5)], *values)


def test_empty_and_single_element_vectors():
    v = T.fvector("v")
    for n in (0, 1, 33):
        xv = np.linspace(0.5, 1.5, n, dtype="float32")
        compare([v], [v.sum(), v.prod()], xv)
    with irc.config.change_flags(device="cuda"):
        f = irc.function([v], v.max())
    with pytest.raises(ValueError, match="max over an empty axis"):
        f(np.zeros(0, "float32"))
