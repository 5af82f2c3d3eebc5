"""Loop lowering of the elementwise ops (the table of `dialects/elementwise.py`, `tensor.cast`,
`tensor.fused`): one `loop.parallel` nest over the result, broadcast operands reading index 0
on their static-1 dims. Each op also gives its scalar body to the one-element path (`scalars.py`),
which then needs no loop at all."""
from __future__ import annotations

from typing import Callable

from ...dialects.elementwise import TABLE_ROWS
from ...ir.core import Operation, Value
from .collapse_axes import collapse, merged_load, merged_view, operand_views
from .context import BY_ELEMENT, ELEMENTWISE_BODIES, LOWERINGS, READS_SPLATS, BodyMaker, FuncLowering, inplace_target


def _elementwise(ctx: FuncLowering, op: Operation, body: Callable[[list[Value]], list[Value]]) -> None:
    rank = op.results[0].type.rank
    sizes = ctx.broadcast_sizes(op, list(op.operands), rank)
    outs = [inplace_target(ctx, op, j) or ctx.alloc(r.type, sizes) for j, r in enumerate(op.results)]
    sizes = ctx.sizes[outs[0]]
    merged = collapse(ctx, list(op.operands), outs, sizes)
    if merged.merges:
        views = operand_views(ctx, list(op.operands), merged)
        targets = [merged_view(ctx, out, sizes, merged) for out in outs]
        with ctx.nest(merged.sizes, outs[0].type.device) as ivs:
            values = body([merged_load(ctx, v, ivs, merged, views) for v in op.operands])
            for v, out in zip(values, targets):
                ctx.lb.store(v, out, ivs)
    else:
        with ctx.nest(sizes, outs[0].type.device) as ivs:
            values = body([ctx.broadcast_load(v, ivs) for v in op.operands])
            for v, out in zip(values, outs):
                ctx.lb.store(v, out, ivs)
    for r, out in zip(op.results, outs):
        ctx.bind(r, out, sizes, contiguous=True)


def elementwise_lowering(*names: str):
    """Register ops computed element by element: `make(ctx, op)` gives the function from the
    operands' scalars to the results' scalars; the loop nest (or, for one element, no loop:
    `scalars.py`) is built around it."""
    def register(make: BodyMaker) -> BodyMaker:
        for n in names:
            ELEMENTWISE_BODIES[n] = make
            LOWERINGS[n] = lambda ctx, op, make=make: _elementwise(ctx, op, make(ctx, op))
            BY_ELEMENT.add(n)
            READS_SPLATS.add(n)
        return make
    return register


def _table_body(ctx: FuncLowering, op: Operation) -> Callable[[list[Value]], list[Value]]:
    name = op.op_name.split(".", 1)[1]
    return lambda vals: [ctx.lb.scalar(name, vals)]


def _register_table() -> None:
    elementwise_lowering(*(row.tensor_name for row in TABLE_ROWS))(_table_body)


_register_table()


@elementwise_lowering("tensor.cast")
def _cast(ctx: FuncLowering, op: Operation) -> Callable[[list[Value]], list[Value]]:
    to = op.results[0].type.element
    return lambda vals: [ctx.lb.cast(vals[0], to)]


@elementwise_lowering("tensor.fused")
def _fused(ctx: FuncLowering, op: Operation) -> Callable[[list[Value]], list[Value]]:
    block = op.regions[0].blocks[0]

    return lambda vals: ctx.lb.inline(block, vals)
