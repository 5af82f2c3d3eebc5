"""Reductions (every kind, any axes, inner and outer), dot / gemv / gemm, natively compiled and
compared with the reference semantics, on contiguous and strided inputs."""
from __future__ import annotations

import numpy as np
import pytest

from native_helpers import check, compile_text, rand


def reduce_text(kind: str, axes, rank: int, t: str, out_t: str | None = None) -> str:
    dims = "x".join("?" * rank)
    out_rank = rank - len(axes)
    out_dims = "x".join("?" * out_rank)
    out_t = out_t or t
    ot = f"tensor<{out_dims}x{out_t}>" if out_rank else f"tensor<{out_t}>"
    ax = ", ".join(map(str, axes))
    return f"""
func.func @f(%x: tensor<{dims}x{t}>) -> {ot} {{
  %r = tensor.reduce %x {{axes = array<i64: {ax}>, kind = "{kind}"}} : (tensor<{dims}x{t}>) -> {ot}
  func.return %r : {ot}
}}"""


AXES3 = [(0,), (1,), (2,), (0, 1), (1, 2), (0, 2), (0, 1, 2)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("axes", AXES3)
def test_reduce(kind, axes, dtype):
    t = "f32" if dtype == "float32" else "f64"
    x = rand(6, 7, 33, dtype=dtype, low=0.5 if kind == "prod" else -2.0, high=1.5 if kind == "prod" else 2.0)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    check(reduce_text(kind, axes, 3, t), x, rtol=rtol)
    check(reduce_text(kind, axes, 3, t), np.transpose(rand(33, 7, 6, dtype=dtype), (2, 1, 0)), rtol=rtol)


@pytest.mark.parametrize("kind", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [0, 1])
def test_arg_reduce(kind, axis):
    x = rand(9, 21, dtype="float64")
    x[3, 5] = np.nan
    check(reduce_text(kind, (axis,), 2, "f64", "i64"), x)


def test_reduce_integers():
    x = np.arange(60, dtype=np.int32).reshape(3, 20) - 17
    check(reduce_text("sum", (1,), 2, "i32"), x)
    check(reduce_text("max", (0,), 2, "i32"), x)


def test_large_sum_is_accurate_enough():
    x = rand(230400, dtype="float32", low=0.0, high=1.0)
    check(reduce_text("sum", (0,), 1, "f32"), x, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("a_shape,b_shape", [((17,), (17,)), ((5, 17), (17,)), ((17,), (17, 6)),
                                             ((5, 17), (17, 6)), ((64, 70), (70, 90))])
def test_dot(a_shape, b_shape, dtype):
    t = "f32" if dtype == "float32" else "f64"

    def ty(shape):
        return "tensor<" + "".join("?x" for _ in shape) + t + ">"

    out_rank = len(a_shape) + len(b_shape) - 2
    ot = "tensor<" + "".join("?x" for _ in range(out_rank)) + t + ">"
    text = f"""
func.func @f(%a: {ty(a_shape)}, %b: {ty(b_shape)}) -> {ot} {{
  %r = tensor.dot %a, %b : ({ty(a_shape)}, {ty(b_shape)}) -> {ot}
  func.return %r : {ot}
}}"""
    rtol = 2e-5 if dtype == "float32" else 1e-12
    a, b = rand(*a_shape, dtype=dtype), rand(*b_shape, dtype=dtype, seed=4)
    check(text, a, b, rtol=rtol, atol=1e-5)
    if len(a_shape) == 2:
        check(text, np.asfortranarray(a), b[::-1], rtol=rtol, atol=1e-5)


def test_gemv_gemm_alpha_beta():
    text = """
func.func @f(%A: tensor<?x?xf64>, %x: tensor<?xf64>, %y: tensor<?xf64>, %B: tensor<?x?xf64>,
             %C: tensor<?x?xf64>) -> (tensor<?xf64>, tensor<?x?xf64>) {
  %v = tensor.gemv %A, %x, %y {alpha = 2.0, beta = -0.5} : (tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %m = tensor.gemm %A, %B, %C {alpha = 0.5, beta = 3.0} : (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  func.return %v, %m : tensor<?xf64>, tensor<?x?xf64>
}"""
    A = rand(8, 11, dtype="float64")
    check(text, A, rand(11, dtype="float64", seed=1), rand(8, dtype="float64", seed=2),
          rand(11, 5, dtype="float64", seed=3), rand(8, 5, dtype="float64", seed=4))
    check(text, A.T.copy().T, rand(22, dtype="float64", seed=1)[::2], rand(8, dtype="float64", seed=2),
          rand(5, 11, dtype="float64", seed=3).T, rand(8, 5, dtype="float64", seed=4))


def test_products_with_transposed_operands():
    text = """
func.func @f(%X: tensor<?x?xf32>, %v: tensor<?xf32>, %y: tensor<?xf32>, %W: tensor<?x?xf32>)
    -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %Xt = tensor.dimshuffle %X {pattern = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %g = tensor.gemv %Xt, %v, %y {alpha = 0.5, beta = 2.0} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %Wt = tensor.transpose %W {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %m = tensor.gemm %X, %Wt {alpha = 1.5, beta = 0.0} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %n = tensor.dot %Xt, %X : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %g, %m, %n : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}"""
    X = rand(40, 33)
    check(text, X, rand(40, seed=1), rand(33, seed=2), rand(21, 33, seed=3), rtol=2e-5, atol=1e-5)


# ---------------------------------------------------------------------------- products, kernel by kernel
# Sizes straddle every block size of the kernels (irc/conversion/tensor_to_loop/gemv.py, gemm.py):
# 4 rows per gemv block, 8 chunks × 4 rows in Xᵀ·d; 12-row tiles, 32 f32 / 16 f64 columns per
# panel, parallel blocks of 96 rows × 256 columns, k in slices of 256; and 0, 1.
RTOL = {"float32": 1e-5, "float64": 1e-12}


def mlir(dtype: str) -> str:
    return "f32" if dtype == "float32" else "f64"


def assert_product(got, A, B, alpha=1.0, C=None, beta=0.0):
    """got ≈ alpha·A·B + beta·C elementwise within RTOL × (|alpha|·|A|·|B| + |beta|·|C|) — the
    size of the terms summed (the norms of the operands), so cancellation cannot loosen the
    test; computed in float64."""
    A64, B64 = np.asarray(A, np.float64), np.asarray(B, np.float64)
    want = alpha * (A64 @ B64)
    bound = abs(alpha) * (np.abs(A64) @ np.abs(B64))
    if C is not None:
        want = want + beta * np.asarray(C, np.float64)
        bound = bound + abs(beta) * np.abs(np.asarray(C, np.float64))
    assert got.dtype == np.asarray(A).dtype and got.shape == want.shape, (got.dtype, got.shape, want.shape)
    err = np.abs(got.astype(np.float64) - want)
    tol = RTOL[got.dtype.name] * bound
    assert np.all(err <= tol), f"max error {err.max():.3g} where the bound is {tol[np.argmax(err - tol)]:.3g}"


def layouts(a: np.ndarray):
    """The same values as a contiguous array, a strided view into a larger buffer, a view with
    negative strides and (matrices) a column-major array."""
    yield np.ascontiguousarray(a)
    big = np.full(tuple(2 * d + 1 for d in a.shape), np.nan, a.dtype)
    view = big[tuple(slice(1, None, 2) for _ in a.shape)][tuple(slice(0, d) for d in a.shape)]
    view[...] = a
    yield view
    yield np.ascontiguousarray(a[(slice(None, None, -1),) * a.ndim])[(slice(None, None, -1),) * a.ndim]
    if a.ndim == 2:
        yield np.asfortranarray(a)


def compiled(text: str):
    return compile_text(text)[1]


GEMV_SIZES = [(0, 5), (5, 0), (1, 1), (3, 7), (7, 3), (5, 63), (63, 129), (129, 5), (9, 33)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gemv_rows_any_size_and_layout(dtype):
    t = mlir(dtype)
    with_y = compiled(f"""
func.func @f(%A: tensor<?x?x{t}>, %x: tensor<?x{t}>, %y: tensor<?x{t}>) -> tensor<?x{t}> {{
  %r = tensor.gemv %A, %x, %y {{alpha = 1.5, beta = -0.5}} : (tensor<?x?x{t}>, tensor<?x{t}>, tensor<?x{t}>) -> tensor<?x{t}>
  func.return %r : tensor<?x{t}>
}}""")
    plain = compiled(f"""
func.func @f(%A: tensor<?x?x{t}>, %x: tensor<?x{t}>) -> tensor<?x{t}> {{
  %r = tensor.dot %A, %x : (tensor<?x?x{t}>, tensor<?x{t}>) -> tensor<?x{t}>
  func.return %r : tensor<?x{t}>
}}""")
    for m, k in GEMV_SIZES:
        A, x, y = rand(m, k, dtype=dtype), rand(k, dtype=dtype, seed=1), rand(m, dtype=dtype, seed=2)
        for a, v in zip(layouts(A), layouts(x)):
            assert_product(plain(a, v)[0], A, x)
            assert_product(with_y(a, v, y[::-1].copy()[::-1])[0], A, x, 1.5, y, -0.5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gemv_of_transposed_view_any_size_and_layout(dtype):
    """Xᵀ·d through the partial sums: fewer rows than chunks, rows not a multiple of the
    chunks × rows per step, no rows at all (out = beta·y), no columns."""
    t = mlir(dtype)
    head = f"""
  %Xt = tensor.dimshuffle %X {{pattern = array<i64: 1, 0>}} : (tensor<?x?x{t}>) -> tensor<?x?x{t}>"""
    with_y = compiled(f"""
func.func @f(%X: tensor<?x?x{t}>, %d: tensor<?x{t}>, %y: tensor<?x{t}>) -> tensor<?x{t}> {{{head}
  %r = tensor.gemv %Xt, %d, %y {{alpha = 0.25, beta = 3.0}} : (tensor<?x?x{t}>, tensor<?x{t}>, tensor<?x{t}>) -> tensor<?x{t}>
  func.return %r : tensor<?x{t}>
}}""")
    plain = compiled(f"""
func.func @f(%X: tensor<?x?x{t}>, %d: tensor<?x{t}>) -> tensor<?x{t}> {{{head}
  %r = tensor.dot %Xt, %d : (tensor<?x?x{t}>, tensor<?x{t}>) -> tensor<?x{t}>
  func.return %r : tensor<?x{t}>
}}""")
    for rows, n in GEMV_SIZES + [(400, 33), (35, 2)]:
        X, d, y = rand(rows, n, dtype=dtype), rand(rows, dtype=dtype, seed=1), rand(n, dtype=dtype, seed=2)
        for a, v in zip(layouts(X), layouts(d)):
            assert_product(plain(a, v)[0], X.T, d)
            assert_product(with_y(a, v, y)[0], X.T, d, 0.25, y, 3.0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vector_matrix_products(dtype):
    """x·B (rows of B combined through partial sums) and x·Wᵀ (dot products with W's rows)."""
    t = mlir(dtype)
    f = compiled(f"""
func.func @f(%x: tensor<?x{t}>, %B: tensor<?x?x{t}>, %W: tensor<?x?x{t}>) -> (tensor<?x{t}>, tensor<?x{t}>) {{
  %r = tensor.dot %x, %B : (tensor<?x{t}>, tensor<?x?x{t}>) -> tensor<?x{t}>
  %Wt = tensor.transpose %W {{permutation = array<i64: 1, 0>}} : (tensor<?x?x{t}>) -> tensor<?x?x{t}>
  %s = tensor.dot %x, %Wt : (tensor<?x{t}>, tensor<?x?x{t}>) -> tensor<?x{t}>
  func.return %r, %s : tensor<?x{t}>, tensor<?x{t}>
}}""")
    for k, n in GEMV_SIZES:
        x, B, W = rand(k, dtype=dtype), rand(k, n, dtype=dtype, seed=1), rand(n, k, dtype=dtype, seed=2)
        for v, b, w in zip(layouts(x), layouts(B), layouts(W)):
            r, s = f(v, b, w)
            assert_product(r, x, B)
            assert_product(s, x, W.T)


GEMM_SIZES = [(0, 3, 5), (3, 0, 5), (3, 5, 0), (1, 1, 1), (7, 5, 3), (5, 63, 33), (63, 129, 7),
              (13, 7, 65), (203, 17, 40), (1000, 33, 7), (33, 1000, 1), (7, 513, 270),
              (97, 257, 33), (1, 1000, 33)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("a_t,b_t", [(False, False), (False, True), (True, False), (True, True)])
def test_gemm_any_size_layout_and_transposition(dtype, a_t, b_t):
    """alpha·op(A)·op(B) + beta·C and the plain product, op a transposed view or not: rows
    left over after the 12-row tiles, partial panels, several parallel blocks each way, several
    slices of k (the later ones accumulate into out)."""
    t = mlir(dtype)
    mat = f"tensor<?x?x{t}>"
    views = ""
    if a_t:
        views += f"\n  %Av = tensor.dimshuffle %A {{pattern = array<i64: 1, 0>}} : ({mat}) -> {mat}"
    if b_t:
        views += f"\n  %Bv = tensor.transpose %B {{permutation = array<i64: 1, 0>}} : ({mat}) -> {mat}"
    a, b = ("%Av" if a_t else "%A"), ("%Bv" if b_t else "%B")
    f = compiled(f"""
func.func @f(%A: {mat}, %B: {mat}, %C: {mat}) -> ({mat}, {mat}) {{{views}
  %g = tensor.gemm {a}, {b}, %C {{alpha = -1.5, beta = 0.75}} : ({mat}, {mat}, {mat}) -> {mat}
  %d = tensor.dot {a}, {b} : ({mat}, {mat}) -> {mat}
  func.return %g, %d : {mat}, {mat}
}}""")
    for i, (m, k, n) in enumerate(GEMM_SIZES):
        A, B, C = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype, seed=1), rand(m, n, dtype=dtype, seed=2)
        args = (A.T.copy() if a_t else A, B.T.copy() if b_t else B, C)
        variants = zip(*(layouts(x) for x in args)) if i % 3 == 1 else [args]
        for arrays in variants:
            g, d = f(*arrays)
            assert_product(g, A, B, -1.5, C, 0.75)
            assert_product(d, A, B)


def test_products_split_over_threads_give_the_same_bits(pool):
    """Each output element is summed in the same order whatever the number of threads (the
    partial sums of Xᵀ·d are per chunk of rows, not per thread)."""
    text = """
func.func @f(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>, %x: tensor<?xf32>, %d: tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %g = tensor.dot %A, %B : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %v = tensor.dot %A, %x : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %At = tensor.dimshuffle %A {pattern = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %t = tensor.dot %At, %d : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %w = tensor.dot %d, %A : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?xf32>
  func.return %g, %v, %t, %w : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}"""
    f = compiled(text)
    A, B = rand(203, 129), rand(129, 70, seed=1)
    x, d = rand(129, seed=2), rand(203, seed=3)
    many = f(A, B, x, d)
    pool.set_num_threads(1)
    one = f(A, B, x, d)
    for o, p in zip(one, many):
        assert np.array_equal(o, p)
    assert_product(many[0], A, B)
    assert_product(many[1], A, x)
    assert_product(many[2], A.T, d)
    assert_product(many[3], d, A)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gemm_bias_row_column_and_epilogue(dtype):
    """f(alpha·A·B + beta·c) with c a 1×n row or an m×1 column read broadcast, f a table
    function applied block by block after the last slice of k."""
    t = mlir(dtype)
    mat = f"tensor<?x?x{t}>"
    f = compiled(f"""
func.func @f(%A: {mat}, %B: {mat}, %r: tensor<1x?x{t}>, %c: tensor<?x1x{t}>) -> ({mat}, {mat}) {{
  %g = tensor.gemm %A, %B, %r {{alpha = 0.5, beta = 1.0, epilogue = "tanh"}} : ({mat}, {mat}, tensor<1x?x{t}>) -> {mat}
  %h = tensor.gemm %A, %B, %c {{alpha = 1.0, beta = -2.0, epilogue = "sigmoid"}} : ({mat}, {mat}, tensor<?x1x{t}>) -> {mat}
  func.return %g, %h : {mat}, {mat}
}}""")
    for m, k, n in [(1, 1, 1), (7, 33, 5), (100, 300, 270), (33, 7, 1000)]:
        A, B = rand(m, k, dtype=dtype) / 4, rand(k, n, dtype=dtype, seed=1) / 4
        r, c = rand(1, n, dtype=dtype, seed=2), rand(m, 1, dtype=dtype, seed=3)
        g, h = f(A, B, r, c)
        p = A.astype("float64") @ B
        np.testing.assert_allclose(g, np.tanh(0.5 * p + r), rtol=RTOL[dtype] * 10, atol=RTOL[dtype] * 10)
        np.testing.assert_allclose(h, 1 / (1 + np.exp(-(p - 2 * c))), rtol=RTOL[dtype] * 10,
                                   atol=RTOL[dtype] * 10)
