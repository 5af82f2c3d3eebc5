"""The softmax family natively compiled (one pass per row,
irc/conversion/tensor_to_loop/softmax.py) against numpy in float64, for float16 (sums in f32),
float32 and float64, odd sizes, ranks 1 to 3, and inputs that overflow a naive exp; through the
frontend: `T.nnet.softmax`/`logsoftmax`, their gradients, and a hand-written softmax recognised
by `stabilize`."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from native_helpers import compile_text, rand

RTOL = {"float16": 1e-3, "float32": 2e-6, "float64": 1e-14}


def softmax64(x):
    x = x.astype("float64")
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax64(x):
    x = x.astype("float64")
    s = x - x.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


def ops_text(t: str, shape: str) -> str:
    ty = f"tensor<{shape}x{t}>"
    return f"""
func.func @f(%x: {ty}, %g: {ty}) -> ({ty}, {ty}, {ty}) {{
  %p = tensor.softmax %x : {ty}
  %l = tensor.log_softmax %x : {ty}
  %d = tensor.softmax_grad %g, %p : {ty}
  func.return %p, %l, %d : {ty}, {ty}, {ty}
}}"""


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(1,), (33,), (1, 1), (7, 33), (1000, 10), (3, 5, 7)])
def test_softmax_ops_match_numpy(dtype, shape):
    t = {"float16": "f16", "float32": "f32", "float64": "f64"}[dtype]
    fn = compile_text(ops_text(t, "x".join("?" * len(shape))))[1]
    x = (rand(*shape) * (3 if dtype == "float16" else 30)).astype(dtype)  # exp(60) overflows f32
    x.flat[0] = 50.0 if dtype == "float16" else 500.0  # the max shift must be there
    g = rand(*shape, dtype=dtype, seed=1)
    p, lp, d = fn(x, g)
    want = softmax64(x)
    np.testing.assert_allclose(p, want, rtol=RTOL[dtype] * 10, atol=RTOL[dtype])
    np.testing.assert_allclose(lp, log_softmax64(x), rtol=RTOL[dtype] * 10, atol=RTOL[dtype] * 1e3)
    g64 = g.astype("float64")
    want_d = (g64 - (g64 * want).sum(axis=-1, keepdims=True)) * want
    np.testing.assert_allclose(d, want_d, rtol=RTOL[dtype] * 100, atol=RTOL[dtype] * 10)
    assert np.all(np.isfinite(p)) and np.all(np.isfinite(lp))


def native(inputs, outputs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # native code, not the reference executor
        return irc.function(inputs, outputs)


def test_frontend_softmax_and_gradients():
    o, Y = T.dmatrix("o"), T.dmatrix("Y")
    p = T.nnet.softmax(o)
    cost = T.nnet.categorical_crossentropy(p, Y).mean()
    lcost = -(Y * T.nnet.logsoftmax(o)).sum(axis=1).mean()
    f = native([o, Y], [p, cost, T.grad(cost, o), T.grad(lcost, o)])
    text = f.ir("optimized")
    assert "tensor.softmax" in text and "tensor.log_softmax" in text and "softmax_grad" not in text
    rng = np.random.default_rng(3)
    x = rng.standard_normal((33, 7)) * 3
    x[0, 0] = 800.0  # softmax underflows to 0 in the other classes of row 0
    y = np.eye(7)[rng.integers(0, 7, 33)]
    y[0] = np.eye(7)[3]
    got_p, got_cost, g1, g2 = f(x, y)
    want_p = softmax64(x)
    np.testing.assert_allclose(got_p, want_p, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(got_cost, -(y * log_softmax64(x)).sum(axis=1).mean(), rtol=1e-13)
    want_g = (want_p - y) / 33
    np.testing.assert_allclose(g1, want_g, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(g2, want_g, rtol=1e-12, atol=1e-15)


def test_hand_written_softmax_is_one_op():
    o = T.fmatrix("o")
    e = T.exp(o - o.max(axis=1, keepdims=True))
    f = native([o], e / e.sum(axis=1, keepdims=True))
    assert "tensor.softmax" in f.ir("optimized")
    x = rand(40, 9) * 50
    np.testing.assert_allclose(f(x), softmax64(x), rtol=2e-5, atol=1e-7)
