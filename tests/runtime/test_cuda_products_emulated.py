"""Products under device=cuda, run without a GPU: `gpu.gemm` (the cuBLAS call) through its
numpy stand-in (`blas_layout.column_major_gemm`, fed the very column-major arguments the
runtime passes cuBLAS), the kernels around it through the CPU emulator of their grid. Every
layout (A·B, Aᵀ·B, A·Bᵀ, Aᵀ·Bᵀ, matrix·vector both ways, vector·matrix), odd and empty sizes,
strided operands, the accumulator and its broadcast (bias), an epilogue, the SGD update folded
into the product, integer products, and the tutorial's logistic-regression step with no op
left on the host; small products take irc's own kernels (a warp per result element, or a
thread where the inner dimension is short; the accumulator, bias and activation in them),
larger ones the library call: the layouts, the accumulator and the epilogue are checked on
every path. Tolerances: float32 rtol 1e-5 (products of up to 1000 terms, compared with
float64 numpy), float64 1e-12; integers exact."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.ir.instrumentation import render_ir
from irc.runtime.blas_layout import BlasLayoutError, gemm_args
from irc.conversion.tensor_to_loop import device_products
from irc.dialects.func import FuncOp
from irc.runtime.host_plan import GemmCall, View, record_plan
from test_cuda_path_emulated import cuda_emulated, rand  # noqa: F401  (the fixture)

TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-12, atol=1e-12)}


def no_host_ops():
    return irc.config.change_flags(assert_no_cpu_op="raise")


def op_names(f) -> list[str]:
    return [type(n.op).__name__ for n in f.maker.fgraph.toposort()]


@pytest.fixture(params=["warp per element", "thread per element", "library call"])
def product_path(request, monkeypatch):
    """Which path a float product takes: all through one of irc's kernels, or all through
    cuBLAS."""
    if request.param == "thread per element":
        monkeypatch.setattr(device_products, "SHALLOW_DEPTH", 1 << 20)
        return request.param
    monkeypatch.setattr(device_products, "SHALLOW_DEPTH", -1)
    if request.param == "library call":
        monkeypatch.setattr(device_products, "SMALL_OUTPUTS", 0)
        monkeypatch.setattr(device_products, "FEW_OUTPUTS", 0)
    else:
        monkeypatch.setattr(device_products, "SMALL_DEPTH", 1 << 20)
    return request.param


def close(got, want, dtype):
    np.testing.assert_allclose(np.asarray(got, dtype="float64"), want, **TOL[dtype])


@functools.lru_cache(maxsize=None)
def layout_product(path: str, dtype: str, ta: bool, tb: bool):
    """The product of one layout, with no host op, compiled on `path` (the `product_path` the
    first case of these has patched in): the sizes' cases share it."""
    a, b = T.matrix("a", dtype=dtype), T.matrix("b", dtype=dtype)
    with no_host_ops():
        return irc.function([a, b], T.dot(a.T if ta else a, b.T if tb else b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m,k,n", [(31, 33, 1), (1, 7, 33), (33, 31, 17), (0, 5, 3), (4, 0, 3)])
def test_matrix_products_every_layout(cuda_emulated, product_path, dtype, ta, tb, m, k, n):
    f = layout_product(product_path, dtype, ta, tb)
    av = rand(*((k, m) if ta else (m, k)), dtype=dtype, seed=1)
    bv = rand(*((n, k) if tb else (k, n)), dtype=dtype, seed=2)
    want = (av.T if ta else av).astype("float64") @ (bv.T if tb else bv).astype("float64")
    close(f(av, bv), want, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_vector_both_layouts_and_vector_matrix(cuda_emulated, dtype):
    X, v, u = T.matrix("X", dtype=dtype), T.vector("v", dtype=dtype), T.vector("u", dtype=dtype)
    with no_host_ops():
        f = irc.function([X, v, u], [T.dot(X, v), T.dot(X.T, u), T.dot(u, X), T.dot(v, X.T), T.dot(v, v)])
    assert "GpuGemv" in op_names(f) or "GpuDot22" in op_names(f) or "GpuGemm" in op_names(f)
    Xv, vv, uv = rand(33, 31, dtype=dtype, seed=3), rand(31, dtype=dtype, seed=4), rand(33, dtype=dtype, seed=5)
    X64, v64, u64 = (z.astype("float64") for z in (Xv, vv, uv))
    for got, want in zip(f(Xv, vv, uv), [X64 @ v64, X64.T @ u64, u64 @ X64, v64 @ X64.T, v64 @ v64]):
        close(got, want, dtype)


def test_strided_operands_are_copied_or_read_in_place(cuda_emulated, product_path):
    a, b = T.fmatrix("a"), T.fmatrix("b")
    with no_host_ops():
        f = irc.function([a, b], [T.dot(a[::2, 1:], b[:, ::3]), T.dot(a[1:5, 1:], b), T.dot(b.T, a[1:5, 1:].T)])
    av, bv = rand(9, 8, seed=6), rand(7, 10, seed=7)
    got = f(av, bv)
    a64, b64 = av.astype("float64"), bv.astype("float64")
    close(got[0], a64[::2, 1:] @ b64[:, ::3], "float32")
    close(got[1], a64[1:5, 1:] @ b64, "float32")
    close(got[2], b64.T @ a64[1:5, 1:].T, "float32")


def test_gemm_with_bias_and_epilogue_and_sgd_update(cuda_emulated, product_path):
    x, y = T.fmatrix("x"), T.fmatrix("y")
    rng = np.random.default_rng(0)
    W = irc.shared(rng.standard_normal((6, 5)).astype("float32"), name="W")
    b = irc.shared(rng.standard_normal(5).astype("float32"), name="b")
    h = T.tanh(T.dot(x, W) + b)
    cost = ((h - y) ** 2).sum()
    gW = T.grad(cost, W)
    W0 = W.get_value()
    with no_host_ops():
        f = irc.function([x, y], h, updates={W: W - 0.1 * gW})
    xv, yv = rand(7, 6, seed=8), rand(7, 5, seed=9)
    got = f(xv, yv)
    x64, W64, b64, y64 = (z.astype("float64") for z in (xv, W0, b.get_value(), yv))
    h64 = np.tanh(x64 @ W64 + b64)
    close(got, h64, "float32")
    gW64 = x64.T @ (2 * (h64 - y64) * (1 - h64 ** 2))
    np.testing.assert_allclose(W.get_value(), W64 - 0.1 * gW64, rtol=1e-4, atol=1e-5)


def test_integer_products(cuda_emulated):
    a, b, v = T.imatrix("a"), T.imatrix("b"), T.ivector("v")
    with no_host_ops():
        f = irc.function([a, b, v], [T.dot(a, b), T.dot(a, v), T.dot(v, v)])
    rng = np.random.default_rng(1)
    av, bv, vv = (rng.integers(-9, 9, s).astype("int32") for s in [(5, 4), (4, 3), (4,)])
    for got, want in zip(f(av, bv, vv), [av @ bv, av @ vv, vv @ vv]):
        np.testing.assert_array_equal(got, want)


def test_tutorial_logistic_regression_step_on_the_device(cuda_emulated):
    rng = np.random.default_rng(2)
    N, feats = 40, 31
    D = (rng.standard_normal((N, feats)).astype("float32"), rng.integers(0, 2, N).astype("float32"))
    x, y = T.fmatrix("x"), T.fvector("y")
    w0 = rng.standard_normal(feats).astype("float32")
    w, b = irc.shared(w0.copy(), name="w"), irc.shared(np.float32(0.0), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    with no_host_ops():
        train = irc.function([x, y], [p_1 > 0.5, xent], updates={w: w - 0.1 * gw, b: b - 0.1 * gb})
    assert "GpuGemv" in op_names(train) or "GpuGemm" in op_names(train)
    # numpy, float64
    wv, bv = w0.astype("float64"), 0.0
    X, Y = D[0].astype("float64"), D[1].astype("float64")
    for _ in range(3):
        pred, err = train(*D)
        p = 1 / (1 + np.exp(-(X @ wv) - bv))
        np.testing.assert_allclose(err, -Y * np.log(p) - (1 - Y) * np.log(1 - p), rtol=1e-4, atol=1e-5)
        g = p - Y
        wv, bv = wv - 0.1 * (X.T @ g / N + 0.02 * wv), bv - 0.1 * g.mean()
    np.testing.assert_allclose(w.get_value(), wv, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b.get_value(), bv, rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------- the layout, directly
def test_layout_error_names_the_operand():
    with pytest.raises(BlasLayoutError, match="A .*no unit stride"):
        gemm_args(View(0, 0, (4, 4), (8, 2)), View(1, 0, (4, 3), (3, 1)), View(2, 0, (4, 3), (3, 1)))


def test_column_major_arguments_of_a_row_major_product():
    args = gemm_args(View(0, 0, (2, 3), (3, 1)), View(1, 0, (3, 4), (1, 3)), View(2, 0, (2, 4), (4, 1)))
    # Cᵀ = Bᵀ·Aᵀ: B (a transposed view: column-major) is op T, A (row-major) op N
    assert (args.trans_first, args.trans_second, args.m, args.n, args.k) == (True, False, 4, 2, 3)
    assert (args.ld_first, args.ld_second, args.ldc) == (3, 3, 4)


def test_allow_tf32_marks_float32_products_when_compiled(cuda_emulated):
    a32, a64 = T.fmatrix("a"), T.dmatrix("b")
    with irc.config.change_flags(allow_tf32=True):
        f = irc.function([a32, a64], [T.dot(a32, a32), T.dot(a64, a64)])
    gemms = [line for line in render_ir(cuda_emulated[-1]).splitlines() if "gpu.gemm" in line]
    assert len(gemms) == 2
    assert ["tf32" in g for g in gemms] == ["xf32" in g for g in gemms]  # float32 only
    av, bv = rand(3, 3, seed=10), rand(3, 3, dtype="float64", seed=11)
    got32, got64 = f(av, bv)  # (the stand-in computes in float32: TF32's rounding is the GPU's)
    close(got32, av.astype("float64") @ av, "float32")
    close(got64, bv @ bv, "float64")
    g = irc.function([a32], T.dot(a32, a32))  # compiled after: the flag is back to False
    assert not any("tf32" in line for line in render_ir(cuda_emulated[-1]).splitlines() if "gpu.gemm" in line)
    close(g(av), av.astype("float64") @ av, "float32")


def planned_launches(module, arrays) -> list:
    """The launches with work of `module`'s host function for `arrays` (kernels and gemms)."""
    host = next(op for op in module.body.ops if type(op) is FuncOp)
    plan = record_plan(host, [a.shape for a in arrays], [a.dtype for a in arrays])
    return [x for x in plan.launches if x.work > 0]


@pytest.mark.parametrize("n", [10, 17])
def test_narrow_deep_products_take_one_kernel_with_their_bias(cuda_emulated, n):
    """An MLP's output layer (256×512 by 512×10, a bias): one kernel of irc's own, a warp per
    result element over a 512-term inner dimension, the bias added by lane 0 — where the
    outputs are few (<= FEW_OUTPUTS) and the left operand row-major; 17 columns (4352
    outputs) go to the library again. Numbers against float64 numpy (float32 rtol 1e-5)."""
    x, W = T.fmatrix("x"), T.fmatrix("W")
    b = T.fvector("b")
    h = T.tanh(x)  # a row-major buffer of the function's own
    with no_host_ops():
        f = irc.function([x, W, b], T.dot(h, W) + b)
    args = [rand(256, 512, seed=1), rand(512, n, seed=2, low=-0.1, high=0.1), rand(n, seed=3)]
    got = f(*args)
    x64, W64, b64 = (a.astype("float64") for a in args)
    close(got, np.tanh(x64) @ W64 + b64, "float32")
    gemms = [x for x in planned_launches(cuda_emulated[-1], args) if isinstance(x, GemmCall)]
    assert len(gemms) == (0 if 256 * n <= device_products.FEW_OUTPUTS else 1)


def test_shallow_products_are_a_thread_per_element(cuda_emulated):
    """δ·Wᵀ of an MLP's backward pass (256×10 by 10×512, the transpose a view): no library
    call, a thread per result element summing its 10 terms in order (float32 rtol 1e-5)."""
    d, W = T.fmatrix("d"), T.fmatrix("W")
    with no_host_ops():
        f = irc.function([d, W], T.dot(d, W.T))
    args = [rand(256, 10, seed=4), rand(512, 10, seed=5)]
    close(f(*args), args[0].astype("float64") @ args[1].astype("float64").T, "float32")
    launches = planned_launches(cuda_emulated[-1], args)
    assert len(launches) == 1 and not isinstance(launches[0], GemmCall)


@pytest.mark.parametrize("rows", [400, 800])
def test_a_transposed_matrix_times_a_vector_with_few_terms_takes_warps(cuda_emulated, rows):
    """The logistic regression's gradient folded into its update, w - lr·Xᵀ·δ (784 outputs):
    a warp per output reading down X's columns where the terms are at most
    STRIDED_FEW_ELEMENTS (400 rows); the library call beyond (800 rows). float32 rtol 1e-5."""
    X, d = T.fmatrix("X"), T.fvector("d")
    w = irc.shared(rand(784, seed=6), name="w")
    w0 = w.get_value()
    with no_host_ops():
        f = irc.function([X, d], [], updates={w: w - 0.5 * T.dot(X.T, d)})
    args = [rand(rows, 784, seed=7), rand(rows, seed=8, low=-0.1, high=0.1)]
    f(*args)
    close(w.get_value(), w0 - 0.5 * args[0].astype("float64").T @ args[1], "float32")
    gemms = [x for x in planned_launches(cuda_emulated[-1], args + [w0]) if isinstance(x, GemmCall)]
    assert len(gemms) == (0 if rows * 784 <= device_products.STRIDED_FEW_ELEMENTS else 1)
