"""A row reduction that reads a device softmax, computed by the softmax's own kernels.

A classifier's cross-entropy, Σ_j y·log p over each row, is a `tensor.fused_reduce` over the
rows of `log_softmax`'s result: as a kernel of its own it is one more launch on a training
step's critical path (the gradient's pass writes over its y·log p values, so it waits for it).
The softmax's warp per row holds each element in a lane when it stores it: the reader's body
runs there on that value, its elementwise results stored by the same lane, the row's state
combined by the same kind of shuffle butterfly, lane 0 storing the row's results. Where rows
are long (the chunked passes), the reader is one device reduction over the stored result, over
the rows the host plan gives that path.

The rules (`row_reader`): the first op of the block to read the softmax's result is a device
`tensor.fused_reduce` over the last axis alone, every operand of the softmax's rank and none
broadcasting the result; its other operands are lowered already (buffers, numbers); no op
between the two writes in place, nor reads an operand the reader writes over (that write moves
ahead of it). A lane reads and writes only its own elements of its row, so the reader may write
in place wherever the `inplace` pass let it otherwise.
"""
from __future__ import annotations

from ...ir.core import Operation, Value
from ..loop_builder import Index
from .context import FuncLowering, inplace_target
from .device_reduce import Reducer
from .reduction_kinds import COMBINE


def row_reader(ctx: FuncLowering, op: Operation) -> Operation | None:
    """The reader of softmax `op`'s result its kernels may compute, or None."""
    result = op.results[0]
    block = op.parent
    rank = result.type.rank
    if block is not ctx.src.body or rank < 2:
        return None
    users = [u.owner for u in result.uses if u.owner.parent is block]
    if not users:
        return None
    order = {o: i for i, o in enumerate(block.ops)}
    reader = min(users, key=order.__getitem__)
    if (reader.op_name != "tensor.fused_reduce" or tuple(reader.attributes["axes"]) != (rank - 1,)
            or reader.attributes["kind"].value not in COMBINE or reader.results[-1].type.device is None
            or any(v.type.rank != rank for v in reader.operands)):
        return None
    if any(d == 1 and e != 1 for v in reader.operands for d, e in zip(result.type.shape, v.type.shape)):
        return None  # (the result broadcast over the reader's rows or columns)
    if any(v is not result and v not in ctx.buf and not ctx.holds_number(v) for v in reader.operands):
        return None
    between = block.ops[order[op] + 1:order[reader]]
    if any("inplace" in o.attributes for o in between):
        return None
    overwritten = [reader.operand(t) for t in reader.attributes["inplace"] if t >= 0] \
        if "inplace" in reader.attributes else []
    if any(o.is_ancestor_of(u.owner) for v in overwritten for u in v.uses for o in between):
        return None  # (written by the softmax's kernels, before an op between reads it)
    return reader


class RowReader:
    """The reader's results, allocated and bound before the softmax's kernels (the reader is
    then `absorbed`); `items` runs its body at one element, `store` a row's results."""

    def __init__(self, ctx: FuncLowering, softmax: Operation, reader: Operation, sizes: list[Index]):
        self.ctx, self.reader, self.softmax = ctx, reader, softmax
        self.n = n = reader.num_elementwise
        ctx.broadcast_sizes(reader, list(reader.operands), len(sizes))  # (asserts the sizes agree)
        self.elementwise = [inplace_target(ctx, reader, j) or ctx.alloc(r.type, sizes)
                            for j, r in enumerate(reader.results[:n])]
        self.reduced = [ctx.alloc(r.type, sizes[:-1]) for r in reader.results[n:]]
        elements = [r.type.element for r in reader.results[n:]]
        self.reducer = Reducer(reader.attributes["kind"].value, elements, elements[0])
        for r, out in zip(reader.results, self.elementwise + self.reduced):
            ctx.bind(r, out, ctx.sizes_of(out), contiguous=True)
        ctx.absorbed.add(reader)

    def items(self, idx: list[Index], value: Value) -> list[Value]:
        """The reader's body at element `idx` of the softmax, whose value there is `value`: its
        elementwise results stored, the items it reduces returned."""
        ctx = self.ctx
        result = self.softmax.results[0]
        values = ctx.lb.inline(self.reader.regions[0].blocks[0],
                               [value if v is result else ctx.broadcast_load(v, idx) for v in self.reader.operands])
        for v, out in zip(values[:self.n], self.elementwise):
            ctx.lb.store(v, out, idx)
        return values[self.n:]

    def store(self, row: list[Index], results: list[Value]) -> None:
        for v, out in zip(results, self.reduced):
            self.ctx.lb.store(v, out, row)
