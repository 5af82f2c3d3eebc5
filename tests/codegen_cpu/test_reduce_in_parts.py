"""A reduction to one number (every axis reduced) cut into parts along its first axis
(`_reduce_in_parts`, irc/conversion/tensor_to_loop/reduce.py): inputs of two parts or more are
summed part by part in parallel and the partials combined in order. numpy's sums for sizes
around the part boundaries, plain and fused, the kept elementwise result whole, and the same
bits on any number of threads."""
from __future__ import annotations

import numpy as np
import pytest

from irc.conversion.tensor_to_loop.reduce import MAX_PARTS, PART_ELEMENTS
from native_helpers import compile_text, rand

TEXT = """
func.func @f(%x: tensor<?x?xf32>) -> (tensor<f32>, tensor<f32>, tensor<?x?xf32>, tensor<f32>) {
  %s = tensor.reduce %x {axes = array<i64: 0, 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<f32>
  %m = tensor.reduce %x {axes = array<i64: 0, 1>, kind = "max"} : (tensor<?x?xf32>) -> tensor<f32>
  %f:2 = tensor.fused_reduce(%a = %x) {axes = array<i64: 0, 1>, kind = "sum"} : (tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<f32>) {
    %e = scalar.mul %a, %a : f32
    scalar.yield %e, %e : f32, f32
  }
  func.return %s, %m, %f#0, %f#1 : tensor<f32>, tensor<f32>, tensor<?x?xf32>, tensor<f32>
}"""
ROWS = 256  # columns per row below; PART_ELEMENTS // ROWS rows make a part
SHAPES = [(1, ROWS), (PART_ELEMENTS // ROWS * 2 - 1, ROWS), (PART_ELEMENTS // ROWS * 2, ROWS),
          (PART_ELEMENTS // ROWS * 2 + 1, ROWS), (PART_ELEMENTS // ROWS * (MAX_PARTS + 3) + 5, ROWS),
          (3, PART_ELEMENTS + 1)]


@pytest.fixture(scope="module")
def fn():
    return compile_text(TEXT)[1]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_reduction_to_a_number_matches_numpy(fn, shape):
    x = rand(*shape)
    s, m, sq, ssq = fn(x)
    x64 = x.astype("float64")
    assert abs(float(s) - x64.sum()) <= 1e-5 * max(np.abs(x64).sum(), 1.0)
    assert float(ssq) == pytest.approx((x64 * x64).sum(), rel=1e-5, abs=1e-6)
    np.testing.assert_array_equal(sq, x * x)
    if x.size:
        assert float(m) == x.max()


def test_reduction_in_parts_same_bits_on_any_thread_count(fn, pool):
    x = rand(PART_ELEMENTS // ROWS * 10 + 3, ROWS)
    many = fn(x)
    pool.set_num_threads(1)
    one = fn(x)
    for a, b in zip(many, one):
        np.testing.assert_array_equal(a, b)
