"""Reductions (every kind, any axes, inner and outer), dot / gemv / gemm, natively compiled and
compared with the reference semantics, on contiguous and strided inputs."""
from __future__ import annotations

import numpy as np
import pytest

from native_helpers import check, rand


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


def test_gemm_larger_than_a_block():
    from irc.passes import lower_linalg
    text = """
func.func @f(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %r = tensor.dot %a, %b : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  func.return %r : tensor<?x?xf64>
}"""
    k, n = lower_linalg.GEMM_KB + 37, lower_linalg.GEMM_NB + 29
    check(text, rand(9, k, dtype="float64"), rand(k, n, dtype="float64", seed=1), rtol=1e-11, atol=1e-12)
