"""Constant folding of tensor ops through the reference semantics, and materialize_constant."""
import numpy as np

from irc.dialects import tensor
from irc.dialects.builtin import DenseAttr, TensorType
from irc.ir.attributes import DenseArrayAttr, FloatAttr, StringAttr
from irc.ir.core import OP_REGISTRY, Block
from irc.ir.location import UNKNOWN_LOC
from irc.ir.types import f32


def const(array, device=None):
    a = np.asarray(array)
    attr = DenseAttr.from_array(a)
    if device:
        attr = DenseAttr.from_array(a, attr.type.with_device(device))
    return tensor.ConstantOp.build([], {"value": attr})


def test_constant():
    c = const(np.array([1.0, 2.0], np.float32))
    assert c.result_types == [TensorType((2,), f32)]
    c.verify_()
    assert c.fold() is None
    assert str(c.value) == "dense<[1.0, 2.0]> : tensor<2xf32>"


def test_fold_elementwise_exact_dtype():
    a = const(np.array([[1.0, 4.0]], np.float32))
    b = const(np.array([[2.0], [3.0]], np.float32))
    add = tensor.ELEMENTWISE_OPS["add"].build([a.result, b.result])
    (attr,) = add.fold()
    assert attr.type == TensorType((2, 2), f32)
    np.testing.assert_array_equal(attr.array, [[3, 6], [4, 7]])
    (lt,) = tensor.ELEMENTWISE_OPS["lt"].build([a.result, b.result]).fold()
    assert lt.array.dtype == np.bool_


def test_fold_shape_and_linalg_ops():
    x = const(np.arange(6, dtype=np.float64).reshape(2, 3))
    (t,) = tensor.TransposeOp.build([x.result], {"permutation": DenseArrayAttr((1, 0))}).fold()
    np.testing.assert_array_equal(t.array, np.arange(6).reshape(2, 3).T)
    attrs = {"kind": StringAttr("sum"), "axes": DenseArrayAttr((0, 1))}
    (s,) = tensor.ReduceOp.build([x.result], attrs).fold()
    assert s.array == 15.0 and s.type.shape == ()
    (d,) = tensor.DotOp.build([x.result, t and tensor.ConstantOp.build([], {"value": t}).result]).fold()
    np.testing.assert_array_equal(d.array, np.arange(6.0).reshape(2, 3) @ np.arange(6.0).reshape(2, 3).T)


def test_no_fold_when_dynamic_large_or_not_constant():
    x = const(np.ones(3, np.float32))
    (arg,) = Block([TensorType((None,), f32)]).args
    assert tensor.ELEMENTWISE_OPS["add"].build([x.result, arg]).fold() is None
    dyn = tensor.ELEMENTWISE_OPS["exp"]([x.result], [TensorType((None,), f32)])
    assert dyn.fold() is None
    big = const(np.zeros((400, 400), np.float32))
    assert tensor.ELEMENTWISE_OPS["exp"].build([big.result]).fold() is None
    dev = const(np.ones(3, np.float32), "cuda")
    assert tensor.ToHostOp.build([dev.result]).fold() is None


def test_fold_keeps_runtime_errors():
    a = const(np.ones((2, 3)))
    b = const(np.ones((3, 2)))
    bad = tensor.DotOp([a.result, b.result], [TensorType((2, 2), a.result.type.element)])
    assert bad.fold() is not None  # well-typed: folds
    wrong = OP_REGISTRY["tensor.reshape"]([a.result], [TensorType((4,), a.result.type.element)],
                                          {"shape": DenseArrayAttr((4,))})
    assert wrong.fold() is None  # would fail at run time: left for run time


def test_materialize_constant():
    t = TensorType((2, 2), f32)
    op = tensor.ELEMENTWISE_OPS["mul"].materialize_constant(FloatAttr(0.5, f32), t, UNKNOWN_LOC)
    assert isinstance(op, tensor.ConstantOp) and op.result_types == [t]
    np.testing.assert_array_equal(op.value.array, np.full((2, 2), 0.5, np.float32))
    dense = DenseAttr.from_array(np.zeros(2, np.float32))
    assert tensor.ReduceOp.materialize_constant(dense, TensorType((2,), f32), UNKNOWN_LOC) is not None
    assert tensor.ReduceOp.materialize_constant(dense, TensorType((None,), f32), UNKNOWN_LOC) is None
    assert tensor.ReduceOp.materialize_constant(dense, TensorType((3,), f32), UNKNOWN_LOC) is None
