"""`tensor` ops of the softmax family, along the last axis (the axis of classes):

    %p = tensor.softmax %o : tensor<?x10xf32>          exp(o - max) / Σ exp(o - max)
    %l = tensor.log_softmax %o : tensor<?x10xf32>      o - max - log Σ exp(o - max)
    %g = tensor.softmax_grad %gp, %p : tensor<?x10xf32> (gp - Σ gp·p)·p, the gradient at o

Ops of their own, not compositions, so that each lowers to one pass per row (a row in cache
for its max, its sum and its store) and `stabilize` can rewrite around them (Theano's
`local_log_softmax`, `crossentropy_softmax_1hot`). The frontend's `T.nnet.softmax` and
`logsoftmax` make them; `stabilize` also recognises the forms written by hand.
"""
from __future__ import annotations

from .op_base import Bad
from .tensor_base import TensorOp, common_device, tensor_types

SOFTMAX_OPS = ("tensor.softmax", "tensor.log_softmax", "tensor.softmax_grad")


def _float_rows(cls, operand_types, arity: int):
    types = tensor_types(operand_types)
    if len(types) != arity:
        raise Bad(f"expects {arity} operand(s), got {len(types)}")
    x = types[0]
    if x.rank < 1 or not x.element.is_float:
        raise Bad(f"needs a float tensor of rank >= 1 (rows along its last axis), got {x}")
    shape = list(x.shape)
    for t in types[1:]:  # one element type and rank; sizes agree (a `?` takes the other's)
        if t.element != x.element or t.rank != x.rank or any(
                a is not None and b is not None and a != b for a, b in zip(shape, t.shape)):
            raise Bad(f"operands must have the same type, got {x} and {t}")
        shape = [a if a is not None else b for a, b in zip(shape, t.shape)]
    common_device(types)
    return [x.with_shape(shape)]


class SoftmaxOp(TensorOp):
    """`tensor.softmax %x`: exp(x - max) / Σ exp(x - max) along the last axis."""

    name = "tensor.softmax"

    @classmethod
    def _infer(cls, operand_types, attributes):
        return _float_rows(cls, operand_types, 1)


class LogSoftmaxOp(TensorOp):
    """`tensor.log_softmax %x`: x - max - log Σ exp(x - max) along the last axis."""

    name = "tensor.log_softmax"

    @classmethod
    def _infer(cls, operand_types, attributes):
        return _float_rows(cls, operand_types, 1)


class SoftmaxGradOp(TensorOp):
    """`tensor.softmax_grad %g, %p`: (g - Σ g·p)·p along the last axis — the gradient at x of
    a cost whose gradient at p = softmax(x) is g."""

    name = "tensor.softmax_grad"

    @classmethod
    def _infer(cls, operand_types, attributes):
        return _float_rows(cls, operand_types, 2)
