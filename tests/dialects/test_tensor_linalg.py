"""reduce, dot, gemv, gemm: shapes, dtypes, attribute rules."""
import pytest

from irc.dialects.builtin import TensorType
from irc.dialects.op_base import InferError
from irc.ir.attributes import DenseArrayAttr, FloatAttr, StringAttr
from irc.ir.core import OP_REGISTRY, Block
from irc.ir.types import ScalarType


def T(spec: str, device=None) -> TensorType:
    *dims, el = spec.split("x")
    return TensorType(tuple(None if d == "?" else int(d) for d in dims), ScalarType(el), device)


def infer(name, *types, **attrs):
    return OP_REGISTRY[name].build(list(Block(types).args), attrs).result_types[0]


def red(kind, *axes):
    return {"kind": StringAttr(kind), "axes": DenseArrayAttr(tuple(axes))}


def test_reduce():
    assert infer("tensor.reduce", T("?x3x4xf32"), **red("sum", 0, 2)) == T("3xf32")
    assert infer("tensor.reduce", T("?x3xf32"), **red("max", 0, 1)) == T("f32")
    assert infer("tensor.reduce", T("?x3xf32"), **red("argmax", 1)) == T("?xi64")
    assert infer("tensor.reduce", T("?x3xi1"), **red("max", 1)) == T("?xi1")
    with pytest.raises(InferError, match="argmin takes exactly one axis"):
        infer("tensor.reduce", T("?x3xf32"), **red("argmin", 0, 1))
    with pytest.raises(InferError, match="sorted and unique"):
        infer("tensor.reduce", T("?x3xf32"), **red("sum", 1, 0))
    with pytest.raises(InferError, match=r"axes \[2\] are out of range for tensor<\?x3xf32>"):
        infer("tensor.reduce", T("?x3xf32"), **red("sum", 2))
    with pytest.raises(InferError, match="unknown reduction kind 'mean'"):
        infer("tensor.reduce", T("?x3xf32"), **red("mean", 0))
    with pytest.raises(InferError, match="sum of i1"):
        infer("tensor.reduce", T("3xi1"), **red("sum", 0))


@pytest.mark.parametrize("a, b, out", [
    ("3xf32", "3xf32", "f32"), ("?x3xf32", "3xf32", "?xf32"), ("3xf32", "3x?xf32", "?xf32"),
    ("2x?xf64", "?x5xf64", "2x5xf64"),
])
def test_dot(a, b, out):
    assert infer("tensor.dot", T(a), T(b)) == T(out)


def test_dot_errors():
    with pytest.raises(InferError, match=r"inner dimensions do not match: tensor<2x3xf32> and "
                                         r"tensor<4xf32> \(3 vs 4\)"):
        infer("tensor.dot", T("2x3xf32"), T("4xf32"))
    with pytest.raises(InferError, match="same element type"):
        infer("tensor.dot", T("3xf32"), T("3xf64"))
    with pytest.raises(InferError, match="vectors or matrices"):
        infer("tensor.dot", T("2x3x4xf32"), T("4xf32"))


def test_gemv_gemm():
    ab = {"alpha": FloatAttr(2.0), "beta": FloatAttr(1.0)}
    assert infer("tensor.gemv", T("?x3xf32"), T("3xf32")) == T("?xf32")
    assert infer("tensor.gemv", T("?x3xf32"), T("3xf32"), T("7xf32"), **ab) == T("7xf32")
    assert infer("tensor.gemm", T("2x3xf32"), T("3x?xf32"), T("2x5xf32"), **ab) == T("2x5xf32")
    with pytest.raises(InferError, match="accumulator y must be given exactly when beta != 0"):
        infer("tensor.gemv", T("?x3xf32"), T("3xf32"), T("7xf32"))
    with pytest.raises(InferError, match="accumulator C must be given exactly when beta != 0"):
        infer("tensor.gemm", T("2x3xf32"), T("3x4xf32"), beta=FloatAttr(0.5))
    with pytest.raises(InferError, match="rows of A and y do not match"):
        infer("tensor.gemv", T("6x3xf32"), T("3xf32"), T("7xf32"), **ab)
    with pytest.raises(InferError, match="needs float operands, got i32"):
        infer("tensor.gemm", T("2x3xi32"), T("3x4xi32"))


def test_gemm_bias_row_and_epilogue():
    ab = {"alpha": FloatAttr(1.0), "beta": FloatAttr(1.0)}
    assert infer("tensor.gemm", T("?x3xf32"), T("3x?xf32"), T("1x5xf32"), **ab) == T("?x5xf32")
    assert infer("tensor.gemm", T("2x3xf32"), T("3x4xf32"), epilogue=StringAttr("tanh")) == T("2x4xf32")
    with pytest.raises(InferError, match=r"dim 1 of the product and C do not match"):
        infer("tensor.gemm", T("2x3xf32"), T("3x4xf32"), T("1x5xf32"), **ab)
    with pytest.raises(InferError, match="epilogue 'add' is not a unary float function"):
        infer("tensor.gemm", T("2x3xf32"), T("3x4xf32"), epilogue=StringAttr("add"))
    with pytest.raises(InferError, match="epilogue 'nope' is not a unary float function"):
        infer("tensor.gemm", T("2x3xf32"), T("3x4xf32"), epilogue=StringAttr("nope"))
