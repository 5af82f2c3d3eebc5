"""Products on the GPU (cuBLAS through `gpu.gemm`) against the CPU backend and float64 numpy:
every transpose layout, matrix·vector both ways, float16/32/64, odd and empty sizes, strided
operands, bias + tanh epilogue + SGD update, the tutorial's logistic-regression step for a few
steps with no op left on the host, a 1024² gemm, repeated calls (the CUDA graph replay) equal
to the first. Tolerances: float32 rtol 1e-4 against float64 (cuBLAS and the CPU backend sum in
different orders: 1e-5 is too tight for 1024-term sums), float64 1e-12, float16 1e-2."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.sandbox.cuda.basic_ops import gpu_from_host

TOL = {"float16": 1e-2, "float32": 1e-4, "float64": 1e-12}


def on_gpu(inputs, outputs, **kw):
    with irc.config.change_flags(device="cuda", assert_no_cpu_op="raise"):
        return irc.function(inputs, outputs, **kw)


def rand(*shape, dtype="float32", seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m,k,n", [(33, 31, 17), (1, 7, 33), (257, 1025, 3), (0, 4, 3), (4, 0, 3)])
def test_every_layout(dtype, ta, tb, m, k, n):
    a, b = T.matrix("a", dtype=dtype), T.matrix("b", dtype=dtype)
    f = on_gpu([a, b], T.dot(a.T if ta else a, b.T if tb else b))
    assert any(type(x.op).__name__ in ("GpuDot22", "GpuGemm", "GpuGemv") for x in f.maker.fgraph.toposort())
    av = rand(*((k, m) if ta else (m, k)), dtype=dtype, seed=1)
    bv = rand(*((n, k) if tb else (k, n)), dtype=dtype, seed=2)
    want = (av.T if ta else av).astype("float64") @ (bv.T if tb else bv).astype("float64")
    got = f(av, bv)
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(got.astype("float64"), want, rtol=TOL[dtype], atol=TOL[dtype] * max(k, 1) ** 0.5)
    assert f(av, bv).tobytes() == got.tobytes()


def test_matrix_vector_products_and_strided_operands():
    X, v, u = T.fmatrix("X"), T.fvector("v"), T.fvector("u")
    f = on_gpu([X, v, u], [T.dot(X, v), T.dot(X.T, u), T.dot(u, X), T.dot(v, v),
                               T.dot(X[::2, 1:], X[1:31, ::3]), T.dot(X[::2, 1:].T, X[::2, :5])])
    Xv, vv, uv = rand(33, 31, seed=3), rand(31, seed=4), rand(33, seed=5)
    X64, v64, u64 = (z.astype("float64") for z in (Xv, vv, uv))
    wants = [X64 @ v64, X64.T @ u64, u64 @ X64, v64 @ v64, X64[::2, 1:] @ X64[1:31, ::3],
             X64[::2, 1:].T @ X64[::2, :5]]
    for got, want in zip(f(Xv, vv, uv), wants):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_dense_layer_with_bias_tanh_and_sgd_update_matches_cpu():
    def build(device):
        rng = np.random.RandomState(0)
        W = irc.shared(rng.randn(64, 32).astype("float32"), name="W")
        b = irc.shared(rng.randn(32).astype("float32"), name="b")
        x, y = T.fmatrix("x"), T.fmatrix("y")
        h = T.tanh(T.dot(x, W) + b)
        cost = ((h - y) ** 2).mean()
        gW, gb = T.grad(cost, [W, b])
        with irc.config.change_flags(device=device, assert_no_cpu_op="raise" if device == "cuda" else "ignore"):
            return irc.function([x, y], cost, updates={W: W - 0.1 * gW, b: b - 0.1 * gb}), W, b
    xv, yv = rand(100, 64, seed=6), rand(100, 32, seed=7)
    (fc, Wc, bc), (fg, Wg, bg) = build("cpu"), build("cuda")
    for _ in range(5):
        np.testing.assert_allclose(fg(xv, yv), fc(xv, yv), rtol=1e-4)
    np.testing.assert_allclose(Wg.get_value(), Wc.get_value(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bg.get_value(), bc.get_value(), rtol=1e-4, atol=1e-5)


def test_a_product_runs_with_the_algorithm_timed_fastest():
    """cuBLASLt's candidates for a product's shape are timed once (`cublaslt.py`); the product
    then runs with the fastest, in every layout, with the numbers of the CPU backend."""
    from irc.runtime.cuda import cublaslt
    from irc.runtime.cuda.cublas import GemmLauncher
    a, b = T.fmatrix("a"), T.fmatrix("b")
    av, bv = rand(300, 100, seed=8), rand(300, 80, seed=9)  # (deep and wide enough for cuBLAS)
    f = on_gpu([a, b], T.dot(a.T, b) * 1.0)
    np.testing.assert_allclose(f(av, bv), av.T.astype("float64") @ bv, rtol=TOL["float32"], atol=1e-5)
    gemms = [x.launcher for plan in f.executor.plans.values() for x in plan.launches
             if isinstance(x.launcher, GemmLauncher)]
    if cublaslt.handle() is None:
        pytest.skip("no cuBLASLt library beside cuBLAS")
    assert gemms and all(g.tuned is not None for g in gemms)
    assert all(g.tuned.microseconds > 0 for g in gemms), "several candidates: each timed"


def test_tutorial_logistic_regression_runs_on_the_device():
    rng = np.random.RandomState(1)
    D = (rng.randn(400, 784).astype("float32"), rng.randint(0, 2, 400).astype("float32"))
    w0 = rng.randn(784).astype("float32")

    def build(device):
        x, y = T.fmatrix("x"), T.fvector("y")
        w, b = irc.shared(w0.copy(), name="w"), irc.shared(np.float32(0), name="b")
        p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
        xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
        cost = xent.mean() + 0.01 * (w ** 2).sum()
        gw, gb = T.grad(cost, [w, b])
        with irc.config.change_flags(device=device, assert_no_cpu_op="raise" if device == "cuda" else "ignore"):
            train = irc.function([x, y], [p_1 > 0.5, xent], updates={w: w - 0.01 * gw, b: b - 0.01 * gb})
        return train, w, b
    (tc, wc, bc), (tg, wg, bg) = build("cpu"), build("cuda")
    names = [type(n.op).__name__ for n in tg.maker.fgraph.toposort()]
    assert "GpuGemv" in names, names
    for _ in range(20):
        (pc, ec), (pg, eg) = tc(*D), tg(*D)
        np.testing.assert_allclose(eg, ec, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(wg.get_value(), wc.get_value(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bg.get_value(), bc.get_value(), rtol=1e-4, atol=1e-5)


def test_gemm_1024_borrowed_on_the_device_replays_the_same():
    A, B = rand(1024, 1024, seed=8), rand(1024, 1024, seed=9)
    a, b = irc.shared(A, name="a"), irc.shared(B, name="b")
    f = on_gpu([], irc.Out(gpu_from_host(T.dot(a, b)), borrow=True))
    first = np.asarray(f())
    np.testing.assert_allclose(first, A.astype("float64") @ B.astype("float64"), rtol=1e-4, atol=1e-3)
    for _ in range(5):  # the graph is captured after the second call, then replayed
        out = f()
    assert np.asarray(out).tobytes() == first.tobytes()
