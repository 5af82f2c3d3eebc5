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


class TransferOp(TensorOp):
    """A copy of one tensor to another placement: the result is the operand's type on
    `destination`. Transfers never fold (they stay explicit; constants are placed by
    insert-transfers) and a round trip cancels."""

    crosses_placements = True

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls.canonicalize_patterns = (CancelRoundTrip(cls.name),)

    @classmethod
    def destination(cls, x: TensorType, attributes) -> str | None:
        """Where a copy of `x` goes (None: the host); raise `Bad` when it cannot go there."""
        raise NotImplementedError

    @classmethod
    def _infer(cls, operand_types, attributes):
        x = _one(operand_types)
        return [x.with_device(cls.destination(x, attributes))]

    def fold(self):
        return None


class ToDeviceOp(TransferOp):
    """`tensor.to_device %x {device = "cuda"}`: a host tensor copied to a device."""

    name = "tensor.to_device"

    @classmethod
    def destination(cls, x: TensorType, attributes) -> str | None:
        device = str_attr(attributes, "device")
        if x.device is not None:
            raise Bad(f"input {x} is already on a device")
        if not device:
            raise Bad("'device' must name a device")
        return device


class ToHostOp(TransferOp):
    """`tensor.to_host %x`: a device tensor copied back to the host."""

    name = "tensor.to_host"

    @classmethod
    def destination(cls, x: TensorType, attributes) -> str | None:
        if x.device is None:
            raise Bad(f"input {x} is already on the host")
        return None
