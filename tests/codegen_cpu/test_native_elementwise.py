"""Elementwise ops, casts, select, fused regions and constants, compiled natively and compared
with the reference semantics: float32 and float64, contiguous and strided inputs, broadcasting."""
from __future__ import annotations

import numpy as np
import pytest

from native_helpers import check, rand

UNARY = ["neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tanh", "sigmoid",
         "softplus", "relu", "sign", "floor", "ceil", "round", "round_away", "reciprocal", "square"]
BINARY = ["add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]
POSITIVE = {"log", "sqrt", "log1p", "pow"}


def unary(op: str, t: str) -> str:
    return f"""
func.func @f(%x: tensor<?x?x{t}>) -> tensor<?x?x{t}> {{
  %r = tensor.{op} %x : tensor<?x?x{t}>
  func.return %r : tensor<?x?x{t}>
}}"""


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", UNARY)
def test_unary(op, dtype):
    t = "f32" if dtype == "float32" else "f64"
    low = 0.01 if op in POSITIVE else -5.0
    x = rand(37, 19, dtype=dtype, low=low, high=5.0)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    if op in ("sin", "cos", "tanh", "expm1", "log1p", "softplus", "sigmoid"):
        rtol, atol = (2e-5, 1e-6) if dtype == "float32" else (1e-12, 1e-14)
    else:
        atol = 0.0
    check(unary(op, t), x, rtol=rtol, atol=atol)
    check(unary(op, t), x.T.copy().T, rtol=rtol, atol=atol)  # Fortran order
    check(unary(op, t), rand(40, 60, dtype=dtype, low=low, high=5.0)[::2, 1::3], rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", BINARY)
def test_binary_broadcast(op, dtype):
    t = "f32" if dtype == "float32" else "f64"
    text = f"""
func.func @f(%x: tensor<?x?x{t}>, %y: tensor<1x?x{t}>) -> tensor<?x?x{t}> {{
  %r = tensor.{op} %x, %y : (tensor<?x?x{t}>, tensor<1x?x{t}>) -> tensor<?x?x{t}>
  func.return %r : tensor<?x?x{t}>
}}"""
    low = 0.1 if op in POSITIVE else -3.0
    x = rand(9, 13, dtype=dtype, low=low, high=3.0)
    y = rand(1, 13, dtype=dtype, seed=5, low=0.5 if op in ("div", "floordiv", "mod") else low, high=3.0)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    check(text, x, y, rtol=rtol)
    check(text, rand(13, 9, dtype=dtype, low=low, high=3.0).T, y, rtol=rtol)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "floordiv", "mod", "maximum", "minimum",
                                "and", "or", "xor"])
def test_integer_binary(op):
    text = f"""
func.func @f(%x: tensor<?xi32>, %y: tensor<?xi32>) -> tensor<?xi32> {{
  %r = tensor.{op} %x, %y : tensor<?xi32>
  func.return %r : tensor<?xi32>
}}"""
    rng = np.random.default_rng(3)
    x = rng.integers(-50, 50, 101).astype(np.int32)
    y = rng.integers(-7, 7, 101).astype(np.int32)
    y[y == 0] = 3
    check(text, x, y)


@pytest.mark.parametrize("op", COMPARE)
def test_compare_and_select(op):
    text = f"""
func.func @f(%x: tensor<?xf64>, %y: tensor<?xf64>) -> (tensor<?xi1>, tensor<?xf64>) {{
  %c = tensor.{op} %x, %y : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xi1>
  %s = tensor.select %c, %x, %y : (tensor<?xi1>, tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  func.return %c, %s : tensor<?xi1>, tensor<?xf64>
}}"""
    x = rand(50, dtype="float64")
    y = x.copy()
    y[::3] = rand(17, dtype="float64", seed=9)
    x[4] = np.nan
    check(text, x, y)


@pytest.mark.parametrize("src,dst", [("f32", "f64"), ("f64", "f32"), ("f32", "i32"), ("i32", "f32"),
                                     ("i64", "i8"), ("f32", "i1"), ("i1", "f32"), ("i8", "i64")])
def test_cast(src, dst):
    text = f"""
func.func @f(%x: tensor<?x{src}>) -> tensor<?x{dst}> {{
  %r = tensor.cast %x {{to = {dst}}} : (tensor<?x{src}>) -> tensor<?x{dst}>
  func.return %r : tensor<?x{dst}>
}}"""
    from irc.ir.types import ScalarType
    dtype = ScalarType(src).numpy_name
    x = (rand(64, dtype="float64", low=-100, high=100)).astype(dtype)
    check(text, x)


def test_fused_two_results_and_constant():
    text = """
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x1xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %r:2 = "tensor.fused"(%a, %b) ({
  ^bb0(%x: f32, %y: f32):
    %c = scalar.constant {value = 0.5 : f32} : f32
    %s = scalar.mul %x, %c : f32
    %t = scalar.add %s, %y : f32
    %e = scalar.exp %t : f32
    scalar.yield %t, %e : f32, f32
  }) : (tensor<?x?xf32>, tensor<?x1xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
  func.return %r#0, %r#1 : tensor<?x?xf32>, tensor<?x?xf32>
}"""
    check(text, rand(5, 7), rand(5, 1, seed=2), rtol=1e-6)


def test_constant_operand():
    text = """
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c = tensor.constant {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf64>} : tensor<3xf64>
  %r = tensor.mul %x, %c : tensor<3xf64>
  func.return %r : tensor<3xf64>
}"""
    check(text, np.array([2.0, 3.0, 4.0]))


def test_shape_mismatch_is_an_error():
    from irc.runtime.shapes import ShapeError
    from native_helpers import compile_text
    _, fn = compile_text("""
func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.add %x, %y : tensor<?xf32>
  func.return %r : tensor<?xf32>
}""")
    with pytest.raises(ShapeError, match="differ in size"):
        fn(rand(3), rand(4))
    with pytest.raises(TypeError, match="dtype"):
        fn(rand(3, dtype="float64"), rand(3))
