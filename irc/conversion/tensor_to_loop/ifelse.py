"""`tensor.if` → `loop.if`: each branch's ops are lowered inside its region, so only the taken
branch's loops run.

A one-element host result is yielded as a scalar (`scalars.py`'s convention); any other result
as a contiguous buffer its branch allocated — the branch's own result buffer when it has one,
else a copy (of an argument, a view, a value computed before the if) — so the `loop.if` result
always owns a fresh buffer, which `plan_buffers` frees after its last use. A result size is the
branches' common size when both give the same index computed before the if, else read from the
result (`loop.dim`): a function result must have sizes the runtime can compute from the
arguments before the call, so one whose branches differ in size makes the function run in the
reference executor, with a warning (`irc.runtime.shapes`).

On a device, the condition is a device value: its load becomes the host's `gpu.read_flag` when
kernels are outlined, and the host plan follows the branch the flag picks (`host_plan`).

Values the branches compute are scoped to them: what a branch binds for a value defined before
the if (a one-element value it materialized as a buffer) is forgotten when the branch ends.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from ...dialects import loop as L
from ...dialects.tensor_if import IfOp
from ...ir.builder import InsertionPoint
from ...ir.core import Block, Operation, Region, Value
from .context import BY_ELEMENT, FuncLowering, contiguous_type, lowering, single_element

BY_ELEMENT.add("tensor.if")  # the condition is read as a scalar


@contextmanager
def branch_scope(ctx: FuncLowering, block: Block) -> Iterator[None]:
    """Build into `block`; bindings made there do not outlive it."""
    buf, scalars, splats = dict(ctx.buf), dict(ctx.scalars), dict(ctx.splats)
    with ctx.lb.b.at(InsertionPoint.at_end(block)):
        yield
    ctx.buf, ctx.scalars, ctx.splats = buf, scalars, splats


def _as_scalar(t) -> bool:
    """Whether a result of type `t` is yielded as a scalar: one element, on the host (the host
    side of a device function cannot load a device value)."""
    return single_element(t) and getattr(t, "device", None) is None


def _yielded(ctx: FuncLowering, v: Value, block: Block, taken: list[Value]) -> Value:
    """The value a branch yields for tensor `v`: a scalar, or a contiguous buffer it owns."""
    t = v.type
    if _as_scalar(t):
        return ctx.broadcast_load(v, [ctx.lb.const(0)] * t.rank)
    m = ctx.materialize(v)
    want = contiguous_type(t)
    if isinstance(m.owner, L.AllocOp) and m.owner.parent is block and m.type == want and m not in taken:
        return m
    return ctx.copy_to_new(m, want)


@lowering("tensor.if")
def lower_if(ctx: FuncLowering, op: IfOp) -> None:
    cond = ctx.broadcast_load(op.operand(0), [])
    types = [r.type.element if _as_scalar(r.type) else contiguous_type(r.type) for r in op.results]
    new = L.IfOp([cond], types, {}, [Region([Block([])]), Region([Block([])])], (), op.location)
    ctx.lb.b.insert(new)
    yielded: list[list[Value]] = []
    for taken in (True, False):
        block = new.branch(taken)
        with branch_scope(ctx, block):
            for inner in op.branch(taken).ops[:-1]:
                ctx.lower_op(inner)
            values: list[Value] = []
            for v in op.branch(taken).ops[-1].operands:
                values.append(_yielded(ctx, v, block, values))
            ctx.lb.location = op.location
            ctx.lb.b.create(L.YieldOp, values, result_types=[])
        yielded.append(values)
    for k, (r, res) in enumerate(zip(op.results, new.results)):
        if _as_scalar(r.type):
            ctx.scalars[r] = res
            continue
        a, b = ctx.sizes[yielded[0][k]], ctx.sizes[yielded[1][k]]
        sizes = [x if x is y and not _inside(new, x) else ctx.lb.dim(res, axis)
                 for axis, (x, y) in enumerate(zip(a, b))]
        ctx.bind(r, res, ctx.result_sizes(r.type, sizes), contiguous=True)


def _inside(op: Operation, v: Value) -> bool:
    owner = v.owner
    return isinstance(owner, Operation) and op.is_ancestor_of(owner)
