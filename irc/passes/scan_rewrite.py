"""What the scan passes (`scan-pushout`, `scan-pushout-sums`, `scan-prune`) share: emitting
tensor ops before a scan, the sizes operand of a dynamic reshape, and rebuilding a
`tensor.scan` with other operands, body arguments, yields and results."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..dialects.builtin import DenseAttr, TensorType
from ..dialects.tensor_scan import ScanOp
from ..dialects.tensor_semantics import DYNAMIC
from ..ir.attributes import ArrayAttr, DenseArrayAttr, IntegerAttr
from ..ir.core import OP_REGISTRY, Block, Operation, Region, Value
from ..ir.location import Location
from ..ir.types import i64


class Emitter:
    """Tensor ops inserted before `anchor`, their result types inferred."""

    def __init__(self, anchor: Operation, location: Location):
        self.anchor, self.location = anchor, location

    def __call__(self, name: str, operands: Sequence[Value], attrs: dict | None = None) -> Value:
        op = OP_REGISTRY[name].build(list(operands), attrs or {}, location=self.location)
        self.anchor.parent.insert_before(self.anchor, op)
        return op.results[0]

    def index_constant(self, value: int, device: str | None) -> Value:
        t = TensorType((), i64, device)
        op = OP_REGISTRY["tensor.constant"](
            [], [t], {"value": DenseAttr(t, np.asarray(value, "int64").tobytes())}, (), (), self.location)
        self.anchor.parent.insert_before(self.anchor, op)
        return op.results[0]

    def dim(self, v: Value, axis: int) -> Value:
        return self("tensor.dim", [v], {"axis": IntegerAttr(axis)})

    def reshape(self, v: Value, sizes: Sequence[Value]) -> Value:
        """`v` reshaped to the 0-d sizes `sizes` (row-major, as numpy)."""
        parts = [self("tensor.dimshuffle", [s], {"pattern": DenseArrayAttr((-1,))}) for s in sizes]
        vector = self("tensor.concat", parts, {"axis": IntegerAttr(0)})
        return self("tensor.reshape", [v, vector], {"shape": DenseArrayAttr((DYNAMIC,) * len(sizes))})


def arg_index(v: Value, body: Block, lo: int, hi: int) -> int | None:
    """`v`'s index when it is one of `body`'s arguments lo..hi-1, else None."""
    if v.owner is body and lo <= v.index < hi:
        return v.index
    return None


def rebuild_scan(scan: ScanOp, operands: list[Value], n_seq: int, taps: list[tuple[int, ...]],
                 arg_types: list, old_args: list, yields: list[Value], result_types: list) -> ScanOp:
    """A new `tensor.scan` before `scan`, taking over its body's ops: `old_args[i]` (an old body
    argument, or None for a new one) becomes the new body's argument i; it yields `yields`.
    The caller moves the uses of `scan`'s results over, then erases `scan`."""
    old = scan.body
    block = Block(arg_types)
    moved: dict[Value, Value] = {}
    for arg, new in zip(old_args, block.args):
        if arg is not None:
            new.name_hint = arg.name_hint
            arg.replace_all_uses_with(new)
            moved[arg] = new
    yields = [moved.get(v, v) for v in yields]  # (a yielded argument of the old body)
    term = old.terminator
    for op in list(old.ops):
        op.detach()
        if op is not term:
            block.append(op)
    term.set_operands(list(yields))
    block.append(term)
    attrs = dict(scan.attributes)
    attrs["sequences"] = IntegerAttr(n_seq)
    attrs["taps"] = ArrayAttr(tuple(DenseArrayAttr(tuple(t)) for t in taps))
    rebuilt = ScanOp(operands, list(result_types), attrs, [Region([block])], (), scan.location)
    scan.parent.insert_before(scan, rebuilt)
    return rebuilt


def take_over(scan: ScanOp, rebuilt: ScanOp, kept: Sequence[int]) -> None:
    """`rebuilt`'s first results stand for `scan`'s results `kept`, in that order: their uses
    move over, and `scan` goes."""
    for k, new in zip(kept, rebuilt.results):
        scan.results[k].replace_all_uses_with(new)
    scan.erase()
