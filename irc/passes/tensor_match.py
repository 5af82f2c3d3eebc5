"""Small matchers over tensor-dialect values that rewrite patterns share."""
from __future__ import annotations

from ..dialects.builtin import TensorType
from ..ir.core import Operation, Value


def producer(value: Value, name: str | None = None) -> Operation | None:
    """The op defining `value` (only if it is named `name`, when given)."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return None
    if name is not None and owner.op_name != name:
        return None
    return owner


def splat_value(value: Value) -> float | None:
    """The number every element of `value` holds, when it is a splat constant (possibly
    seen through dimshuffles and broadcasts, which do not change the elements)."""
    op = producer(value)
    while op is not None and op.op_name in ("tensor.dimshuffle", "tensor.broadcast", "tensor.reshape"):
        op = producer(op.operands[0])
    if op is None or op.op_name != "tensor.constant":
        return None
    attr = op.attributes.get("value")
    if attr is None or not attr.is_splat or attr.type.element.is_complex:
        return None  # (complex constants take part in no rewrite: several end in real-only ops)
    return float(attr.array.flat[0])


def is_splat(value: Value, number: float) -> bool:
    v = splat_value(value)
    return v is not None and v == number


def same_type(a: Value, b: Value) -> bool:
    return a.type == b.type


def is_float_tensor(value: Value) -> bool:
    t = value.type
    return isinstance(t, TensorType) and t.element.is_float
