"""`sum(axis=0)` of a matrix through private rows of partials per chunk of rows
(irc/conversion/tensor_to_loop/column_sums.py), plain and fused (with a broadcast row and column
operand): numpy's sums for sizes around every block (chunks of at least 64 rows, at most 16;
columns in blocks of 4096), and the same bits on any number of threads."""
from __future__ import annotations

import numpy as np
import pytest

from native_helpers import compile_text, rand

SIZES = [(0, 5), (5, 0), (1, 1), (7, 33), (63, 7), (64, 1), (130, 33), (1000, 7), (33, 4097), (601, 4100)]
RTOL = {"float32": 1e-5, "float64": 1e-12}


def sums_text(t: str) -> str:
    return f"""
func.func @f(%x: tensor<?x?x{t}>, %row: tensor<1x?x{t}>, %col: tensor<?x1x{t}>)
    -> (tensor<?x{t}>, tensor<?x?x{t}>, tensor<?x{t}>) {{
  %s = tensor.reduce %x {{axes = array<i64: 0>, kind = "sum"}} : (tensor<?x?x{t}>) -> tensor<?x{t}>
  %f:2 = tensor.fused_reduce(%a = %x, %b = %row, %c = %col) {{axes = array<i64: 0>, kind = "sum"}} : (tensor<?x?x{t}>, tensor<1x?x{t}>, tensor<?x1x{t}>) -> (tensor<?x?x{t}>, tensor<?x{t}>) {{
    %e = scalar.mul %a, %a : {t}
    %bc = scalar.mul %b, %c : {t}
    %v = scalar.add %e, %bc : {t}
    scalar.yield %v, %v : {t}, {t}
  }}
  func.return %s, %f#0, %f#1 : tensor<?x{t}>, tensor<?x?x{t}>, tensor<?x{t}>
}}"""


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_column_sums_match_numpy(dtype):
    fn = compile_text(sums_text("f32" if dtype == "float32" else "f64"))[1]
    for m, n in SIZES:
        x = rand(m, n, dtype=dtype)
        row, col = rand(1, n, dtype=dtype, seed=1), rand(m, 1, dtype=dtype, seed=2)
        s, v, vs = fn(x, row, col)
        x64 = x.astype("float64")
        bound = np.abs(x64).sum(axis=0)  # the size of the terms summed bounds the rounding error
        assert np.all(np.abs(s - x64.sum(axis=0)) <= RTOL[dtype] * bound), (m, n)
        product = row.astype("float64") * col
        want, size = x64 * x64 + product, x64 * x64 + np.abs(product)  # size: of the terms
        assert np.all(np.abs(v - want) <= 2 * RTOL[dtype] * size), (m, n)
        assert np.all(np.abs(vs - want.sum(axis=0)) <= 2 * RTOL[dtype] * size.sum(axis=0)), (m, n)


def test_column_sums_same_bits_on_any_thread_count(pool):
    fn = compile_text(sums_text("f32"))[1]
    args = rand(1000, 4100), rand(1, 4100, seed=1), rand(1000, 1, seed=2)
    many = fn(*args)
    pool.set_num_threads(1)
    one = fn(*args)
    for a, b in zip(many, one):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_column_sums_same_bits_at_any_alignment(dtype):
    """Each pass over rows splits its columns where the matrix reaches a 64-byte address
    (`loop.align_gap`): the same matrix at every offset within a cache line sums to the same
    bits, plain and fused."""
    fn = compile_text(sums_text("f32" if dtype == "float32" else "f64"))[1]
    m, n = 300, 1000
    x, row, col = rand(m, n, dtype=dtype), rand(1, n, dtype=dtype, seed=1), rand(m, 1, dtype=dtype, seed=2)
    want = fn(x, row, col)
    store = np.empty(m * n + 64, dtype)
    for skip in range(64 // store.itemsize + 1):
        moved = store[skip:skip + m * n].reshape(m, n)
        moved[...] = x
        for a, b in zip(fn(moved, row, col), want):
            np.testing.assert_array_equal(a, b)
