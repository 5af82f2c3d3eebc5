"""Elementwise `tensor` ops: one `tensor.<name>` per row of the elementwise table (generated),
and `tensor.cast`.

    %r = tensor.add %a, %b : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
    %m = tensor.lt %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %c = tensor.cast %a {to = i32} : (tensor<3xf32>) -> tensor<3xi32>
"""
from __future__ import annotations

from typing import ClassVar

from ..ir.core import Commutative, ElementwiseTrait, Pure
from .builtin import TensorType
from .elementwise import TABLE_ROWS, Elementwise, check_element_types
from .op_base import Bad, type_attr
from .tensor_base import TensorOp, broadcast_shapes, common_device, tensor_types


class ElementwiseOp(TensorOp):
    """A row of the elementwise table on tensors, with Theano's broadcasting."""

    fn: ClassVar[Elementwise]

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) != cls.fn.arity:
            raise Bad(f"expects {cls.fn.arity} operand(s), got {len(types)}")
        try:
            element = check_element_types(cls.fn, [t.element for t in types])
        except ValueError as e:
            raise Bad(f"{e} ({', '.join(map(str, types))})") from None
        device = common_device(types)
        return [TensorType(broadcast_shapes(types), element, device)]


class CastOp(TensorOp):
    """`tensor.cast %x {to = f32}`: numpy's `astype` to the element type `to`."""

    name = "tensor.cast"
    traits = (Pure, ElementwiseTrait)

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) != 1:
            raise Bad(f"expects 1 operand, got {len(types)}")
        return [types[0].with_element(type_attr(attributes, "to"))]


def _class_name(row: Elementwise) -> str:
    return "".join(part.capitalize() for part in row.name.split("_")) + "Op"


def _generate() -> dict[str, type[ElementwiseOp]]:
    ops: dict[str, type[ElementwiseOp]] = {}
    for row in TABLE_ROWS:
        traits = (Pure, ElementwiseTrait) + ((Commutative,) if row.commutative else ())
        cls = type(_class_name(row), (ElementwiseOp,), {
            "name": row.tensor_name, "fn": row, "traits": traits,
            "__doc__": f"`{row.tensor_name}`: elementwise table row '{row.name}' on tensors.",
            "__module__": __name__,
        })
        ops[row.name] = cls
        globals()[cls.__name__] = cls
    return ops


ELEMENTWISE_OPS: dict[str, type[ElementwiseOp]] = _generate()
