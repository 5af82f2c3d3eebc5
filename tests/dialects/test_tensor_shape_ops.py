"""Shape ops: dimshuffle, transpose, reshape, broadcast, dim, slice, insert_slice, concat, transfers."""
import pytest

from irc.dialects import tensor
from irc.dialects.builtin import TensorType
from irc.dialects.op_base import InferError
from irc.ir.attributes import DenseArrayAttr, IntegerAttr, StringAttr
from irc.ir.core import OP_REGISTRY, Block
from irc.ir.types import ScalarType

N = tensor.NO_BOUND


def T(spec: str, device=None) -> TensorType:
    *dims, el = spec.split("x")
    return TensorType(tuple(None if d == "?" else int(d) for d in dims), ScalarType(el), device)


def arr(*values):
    return DenseArrayAttr(tuple(values))


def infer(name, *types, **attrs):
    return OP_REGISTRY[name].build(list(Block(types).args), attrs).result_types[0]


def test_dimshuffle():
    assert infer("tensor.dimshuffle", T("?x3xf32"), pattern=arr(1, -1, 0)) == T("3x1x?xf32")
    assert infer("tensor.dimshuffle", T("f32"), pattern=arr(-1, -1)) == T("1x1xf32")
    assert infer("tensor.dimshuffle", T("1x?xf32"), pattern=arr(1)) == T("?xf32")
    with pytest.raises(InferError, match=r"drops dim 0 of tensor<\?x3xf32>, which is not broadcastable"):
        infer("tensor.dimshuffle", T("?x3xf32"), pattern=arr(1))
    with pytest.raises(InferError, match="refers to dim 2"):
        infer("tensor.dimshuffle", T("?x3xf32"), pattern=arr(0, 2))
    with pytest.raises(InferError, match="repeats"):
        infer("tensor.dimshuffle", T("?x3xf32"), pattern=arr(0, 0, 1))
    with pytest.raises(InferError, match="requires a 'pattern'"):
        infer("tensor.dimshuffle", T("?x3xf32"))


def test_transpose():
    assert infer("tensor.transpose", T("2x?x4xf32"), permutation=arr(2, 0, 1)) == T("4x2x?xf32")
    with pytest.raises(InferError, match=r"\[0, 0\] is not a permutation"):
        infer("tensor.transpose", T("2x3xf32"), permutation=arr(0, 0))


def test_reshape():
    assert infer("tensor.reshape", T("2x6xf32"), shape=arr(3, -1)) == T("3x4xf32")
    assert infer("tensor.reshape", T("?x6xf32"), shape=arr(-1, 3)) == T("?x3xf32")
    assert infer("tensor.reshape", T("2x6xf32"), shape=arr(12)) == T("12xf32")
    assert infer("tensor.reshape", T("?x6xf32"), T("2xi64"), shape=arr(tensor.DYNAMIC, -1)) == T("?x?xf32")
    with pytest.raises(InferError, match=r"cannot reshape tensor<2x6xf32> \(12 elements\) to "
                                         r"\(5, 2\) \(10 elements\)"):
        infer("tensor.reshape", T("2x6xf32"), shape=arr(5, 2))
    with pytest.raises(InferError, match="cannot reshape"):
        infer("tensor.reshape", T("2x6xf32"), shape=arr(5, -1))
    with pytest.raises(InferError, match="more than one -1"):
        infer("tensor.reshape", T("?xf32"), shape=arr(-1, -1))
    with pytest.raises(InferError, match="sizes operand is required"):
        infer("tensor.reshape", T("?xf32"), shape=arr(tensor.DYNAMIC))


def test_broadcast():
    assert infer("tensor.broadcast", T("1x3xf32"), T("?x3xi1")) == T("?x3xf32")
    with pytest.raises(InferError, match="incompatible shapes"):
        infer("tensor.broadcast", T("2x3xf32"), T("4x3xf32"))


def test_dim():
    assert infer("tensor.dim", T("?x3xf32", "cuda"), axis=IntegerAttr(0)) == T("i64", "cuda")
    with pytest.raises(InferError, match="axis 2 is out of range"):
        infer("tensor.dim", T("?x3xf32"), axis=IntegerAttr(2))
    x, = Block([T("?x3xf32")]).args
    assert tensor.DimOp.build([x], {"axis": IntegerAttr(1)}).fold()[0].array == 3
    assert tensor.DimOp.build([x], {"axis": IntegerAttr(0)}).fold() is None


def test_slice():
    attrs = dict(starts=arr(1, N), stops=arr(N, 2), steps=arr(1, 1))
    assert infer("tensor.slice", T("5x4xf32"), **attrs) == T("4x2xf32")
    assert infer("tensor.slice", T("?x4xf32"), **attrs) == T("?x2xf32")
    assert infer("tensor.slice", T("10xf32"), starts=arr(-1), stops=arr(N), steps=arr(-3)) == T("4xf32")
    with pytest.raises(InferError, match="step of dim 0 must be a nonzero integer"):
        infer("tensor.slice", T("10xf32"), starts=arr(0), stops=arr(1), steps=arr(0))
    with pytest.raises(InferError, match="'stops' has 1 entries but the input has rank 2"):
        infer("tensor.slice", T("10x2xf32"), starts=arr(0, 0), stops=arr(1), steps=arr(1, 1))


def test_insert_slice():
    attrs = dict(starts=arr(1), stops=arr(3), steps=arr(1))
    assert infer("tensor.insert_slice", T("5xf32"), T("2xf32"), **attrs) == T("5xf32")
    with pytest.raises(InferError, match=r"does not fit the slice of tensor<5xf32> \(dim 0: 3 vs 2\)"):
        infer("tensor.insert_slice", T("5xf32"), T("3xf32"), **attrs)
    with pytest.raises(InferError, match="different element types"):
        infer("tensor.insert_slice", T("5xf32"), T("2xf64"), **attrs)


def test_concat():
    assert infer("tensor.concat", T("2x3xf32"), T("4x?xf32"), axis=IntegerAttr(0)) == T("6x3xf32")
    assert infer("tensor.concat", T("?x3xf32"), T("4x3xf32"), axis=IntegerAttr(0)) == T("?x3xf32")
    with pytest.raises(InferError, match="disagree on dim 1"):
        infer("tensor.concat", T("2x3xf32"), T("2x4xf32"), axis=IntegerAttr(0))
    with pytest.raises(InferError, match="needs a transfer"):
        infer("tensor.concat", T("2xf32"), T("2xf32", "cuda"), axis=IntegerAttr(0))


def test_transfers():
    assert infer("tensor.to_device", T("?xf32"), device=StringAttr("cuda")) == T("?xf32", "cuda")
    assert infer("tensor.to_host", T("?xf32", "cuda")) == T("?xf32")
    with pytest.raises(InferError, match="already on a device"):
        infer("tensor.to_device", T("?xf32", "cuda"), device=StringAttr("cuda"))
    with pytest.raises(InferError, match="already on the host"):
        infer("tensor.to_host", T("?xf32"))
