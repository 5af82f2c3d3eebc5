"""An elementwise op that reads a device reduction's result, computed in the reduction's last
pass instead of a kernel of its own: a bias's SGD update `b - lr·Σδ`, a mean's division.

The consumer is the first elementwise op (`tensor.fused`, a row of the table, a cast) of the
same block that reads a result of the reduction and whose own result has that result's shape;
its other operands must already have buffers (or be numbers) when the reduction is lowered, and
no op between the two may read them (the consumer may be an in-place update of a shared
variable: moved earlier, it must not change what those ops see). Its body then runs in the
reduction's last pass, on the value just combined, for the output element that thread owns;
its results get buffers of their own, and the consumer is skipped when its turn comes
(`FuncLowering.absorbed`)."""
from __future__ import annotations

from typing import Callable

from ...dialects.tensor_semantics import shape_arithmetic
from ...ir.core import Operation, Value
from ..loop_builder import Index
from .context import ELEMENTWISE_BODIES, FuncLowering

Epilogue = Callable[[list[Index], list[Value]], None]  # (kept indices, reduced values) -> stores


def absorb_consumer(ctx: FuncLowering, op: Operation, reduced: list[Value]) -> Epilogue | None:
    """The epilogue computing the consumer of `op`'s `reduced` results in its last pass (the
    consumer's results bound, the consumer marked absorbed), or None when there is none."""
    consumer = _consumer(ctx, op, reduced)
    if consumer is None:
        return None
    sizes = ctx.sizes_of(ctx.buf[reduced[0]])  # (the reduction binds its results first)
    outs = [ctx.alloc(r.type, sizes) for r in consumer.results]
    body = ELEMENTWISE_BODIES[consumer.op_name](ctx, consumer)
    for r, out in zip(consumer.results, outs):
        ctx.bind(r, out, sizes, contiguous=True)
    ctx.absorbed.add(consumer)
    where = {v: k for k, v in enumerate(reduced)}

    def epilogue(ivs: list[Index], values: list[Value]) -> None:
        operands = [values[where[v]] if v in where else ctx.broadcast_load(v, ivs) for v in consumer.operands]
        for v, out in zip(body(operands), outs):
            ctx.lb.store(v, out, ivs)
    return epilogue


def _consumer(ctx: FuncLowering, op: Operation, reduced: list[Value]) -> Operation | None:
    block = op.parent
    if block is not ctx.src.body:
        return None
    users = [u.owner for r in reduced for u in r.uses if u.owner.parent is block]
    if not users:
        return None
    order = {o: i for i, o in enumerate(block.ops)}
    consumer = min(users, key=order.__getitem__)
    shape = reduced[0].type.shape
    if (consumer.op_name not in ELEMENTWISE_BODIES or consumer.regions and consumer.op_name != "tensor.fused"
            or any(r.type.shape != shape or r.type.device is None for r in consumer.results)):
        return None
    others = [v for v in consumer.operands if v not in reduced]
    if not all(_available(ctx, v) for v in others):
        return None  # made between the two
    between = block.ops[order[op] + 1:order[consumer]]
    buffers = [v for v in others if v in ctx.buf]  # (numbers: no later write changes them)
    if any(v in buffers for o in between for v in o.operands):
        return None
    return consumer


def _available(ctx: FuncLowering, v: Value) -> bool:
    """Whether `v` is lowered, or made from sizes and constants alone (the batch size `n` of
    a mean): such a number is lowered now, ahead of its place, and skipped there."""
    if v in ctx.buf or v in ctx.scalars or v in ctx.splats:
        return True
    op = v.owner
    if not isinstance(op, Operation) or not shape_arithmetic(op):
        return False
    if not all(_available(ctx, w) for w in op.operands):
        return False
    ctx.lower_op(op)
    ctx.absorbed.add(op)
    return v in ctx.scalars
