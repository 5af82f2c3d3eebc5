"""`tensor.to_device` / `tensor.to_host`: the only ops whose operand and result live on
different placements (every other `tensor` op keeps one, see `TensorOp.verify_`).

A round trip is no copy at all: `to_host(to_device(x))` is `x`, and `to_device(to_host(y))` is
`y` when `y` already lives on that device. `transferred` answers that question for the
canonicalization pattern here and for `insert-transfers`, which must never copy a value back
to where it came from."""
from __future__ import annotations

from ..ir.core import Operation, Value
from ..ir.rewriter import PatternRewriter, RewritePattern
from .builtin import TensorType
from .op_base import Bad, str_attr
from .tensor_base import TensorOp, tensor_types

TRANSFER_OPS = ("tensor.to_device", "tensor.to_host")


def _one(types) -> TensorType:
    types = tensor_types(types)
    if len(types) != 1:
        raise Bad(f"expects 1 operand, got {len(types)}")
    return types[0]


def transferred(value: Value, device: str | None) -> Value | None:
    """The value `value` was copied from, when that one already lives on `device` (None: the
    host); so a transfer to `device` would only undo a transfer."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.op_name in TRANSFER_OPS:
        source = owner.operands[0]
        if isinstance(source.type, TensorType) and source.type.device == device:
            return source
    return None


class CancelRoundTrip(RewritePattern):
    """`to_host(to_device(x)) -> x`, `to_device(to_host(y)) -> y` (y on that device)."""

    def __init__(self, root: str):
        self.root = root

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        source = transferred(op.operands[0], op.results[0].type.device)
        if source is None:
            return False
        rewriter.replace_op(op, [source])
        return True


class ToDeviceOp(TensorOp):
    """`tensor.to_device %x {device = "cuda"}`: a host tensor copied to a device."""

    name = "tensor.to_device"
    crosses_placements = True
    canonicalize_patterns = (CancelRoundTrip(name),)

    @classmethod
    def _infer(cls, operand_types, attributes):
        x = _one(operand_types)
        device = str_attr(attributes, "device")
        if x.device is not None:
            raise Bad(f"input {x} is already on a device")
        if not device:
            raise Bad("'device' must name a device")
        return [x.with_device(device)]

    def fold(self):
        return None  # transfers stay explicit; constants are placed by insert-transfers


class ToHostOp(TensorOp):
    """`tensor.to_host %x`: a device tensor copied back to the host."""

    name = "tensor.to_host"
    crosses_placements = True
    canonicalize_patterns = (CancelRoundTrip(name),)

    @classmethod
    def _infer(cls, operand_types, attributes):
        x = _one(operand_types)
        if x.device is None:
            raise Bad(f"input {x} is already on the host")
        return [x.with_device(None)]

    def fold(self):
        return None
