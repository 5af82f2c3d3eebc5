"""`tensor` ops that make a tensor of a size given at run time: `alloc` and `iota`.

Sizes are operands (0-d i64 tensors), so `zeros((x.shape[0], 3))` or `arange(x.shape[1])`
are one op each; `lower-to-loops` compiles them when the sizes come from the arguments'
shapes and constants (`irc/conversion/tensor_to_loop/index_trace.py`)."""
from __future__ import annotations

from ..ir.types import i64
from .builtin import TensorType
from .op_base import Bad
from .tensor_base import TensorOp, check_sizes, common_device, tensor_types


class AllocOp(TensorOp):
    """`tensor.alloc %value, %n0, %n1, ...`: `value` (rank = number of sizes) broadcast to the
    sizes along its static-1 dims; its other dims must equal the sizes given for them."""

    name = "tensor.alloc"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if not types:
            raise Bad("expects a value and one size per dim")
        value, sizes = types[0], types[1:]
        if value.rank != len(sizes):
            raise Bad(f"value {value} has rank {value.rank} but {len(sizes)} size(s) are given")
        check_sizes(sizes, "size")
        return [TensorType(tuple(None if d == 1 else d for d in value.shape), value.element,
                           common_device(types))]


class IotaOp(TensorOp):
    """`tensor.iota %n : (tensor<i64>) -> tensor<?xi64>`: 0, 1, ..., n - 1 (numpy's arange(n))."""

    name = "tensor.iota"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) != 1:
            raise Bad(f"expects one operand (the length), got {len(types)}")
        check_sizes(types, "length")
        return [TensorType((None,), i64, types[0].device)]


class FromElementsOp(TensorOp):
    """`tensor.from_elements %a, %b : (tensor<i64>, tensor<i64>) -> tensor<2xi64>`: a vector of
    0-d values of one element type (Theano's MakeVector, e.g. `x.shape`)."""

    name = "tensor.from_elements"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if not types:
            raise Bad("expects at least one element")
        for k, t in enumerate(types):
            if t.rank != 0 or t.element != types[0].element:
                raise Bad(f"element {k} must be a 0-d {types[0].element} tensor, got {t}")
        return [TensorType((len(types),), types[0].element, common_device(types))]
