"""`tensor` ops whose result at one place depends on the elements before it along an axis:
`cumulative` (running sum/product) and `sort` (values or the permutation that sorts)."""
from __future__ import annotations

from ..ir.types import i64
from .op_base import Bad, int_attr, str_attr
from .tensor_base import TensorOp, tensor_types

CUMULATIVE_KINDS = ("sum", "prod")
SORT_KINDS = ("values", "indices")


def _operand_and_axis(operand_types, attributes):
    types = tensor_types(operand_types)
    if len(types) != 1:
        raise Bad(f"expects 1 operand, got {len(types)}")
    x = types[0]
    axis = int_attr(attributes, "axis")
    if not 0 <= axis < x.rank:
        raise Bad(f"axis {axis} is out of range for {x}")
    if x.element.is_bool:
        raise Bad(f"needs a numeric operand, got {x}")
    return x


class CumulativeOp(TensorOp):
    """`tensor.cumulative %x {kind = "sum", axis = 0}`: numpy's cumsum/cumprod along `axis`."""

    name = "tensor.cumulative"

    @classmethod
    def _infer(cls, operand_types, attributes):
        x = _operand_and_axis(operand_types, attributes)
        if str_attr(attributes, "kind") not in CUMULATIVE_KINDS:
            raise Bad(f"kind must be one of {', '.join(CUMULATIVE_KINDS)}")
        return [x]


class SortOp(TensorOp):
    """`tensor.sort %x {kind = "values", axis = 1}`: numpy's stable sort along `axis` (NaNs
    last); kind "indices" gives the i64 permutation (numpy's argsort, kind='stable')."""

    name = "tensor.sort"

    @classmethod
    def _infer(cls, operand_types, attributes):
        x = _operand_and_axis(operand_types, attributes)
        kind = str_attr(attributes, "kind")
        if kind not in SORT_KINDS:
            raise Bad(f"kind must be one of {', '.join(SORT_KINDS)}")
        return [x if kind == "values" else x.with_element(i64)]
