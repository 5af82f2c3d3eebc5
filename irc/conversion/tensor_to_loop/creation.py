"""Loop lowerings of the ops that make a tensor: `tensor.constant` (a `loop.global`; a host
splat is one element, broadcast), `tensor.alloc` (a broadcast view of the value: no copy until a
result needs one), `tensor.iota` (one parallel loop) and `tensor.from_elements` (one store per
element), with sizes recovered as index arithmetic on the arguments' sizes (`index_trace.py`)."""
from __future__ import annotations

from ...dialects import loop as L
from ...dialects.builtin import DenseAttr, TensorType
from ...ir.core import Operation
from ...ir.types import i64
from ..loop_builder import Index
from .context import BY_ELEMENT, FuncLowering, argument_type, contiguous_type, lowering
from .index_trace import index_of


@lowering("tensor.constant")
def _constant(ctx: FuncLowering, op: Operation) -> None:
    value = op.attributes["value"]
    t: TensorType = op.results[0].type
    sizes = [ctx.lb.const(d) for d in t.shape]
    if not value.is_splat or all(d == 1 for d in t.shape) or t.device is not None:
        m = ctx.lb.create(L.GlobalOp, [], {"value": value}, contiguous_type(t))
        ctx.bind(op.results[0], m, sizes, contiguous=True)
        return
    # a host splat: one element, broadcast (stride 0) — never a buffer of the full size
    one = TensorType((1,) * t.rank, t.element)
    g = ctx.lb.create(L.GlobalOp, [], {"value": DenseAttr(one, value.data)}, contiguous_type(one))
    m = ctx.lb.create(L.BroadcastOp, [g, *sizes], {"dims": L.perm_attr(range(t.rank))}, argument_type(t))
    ctx.bind(op.results[0], m, sizes)


def traced_sizes(ctx: FuncLowering, op: Operation, operands) -> list[Index]:
    sizes = [index_of(ctx, v) for v in operands]
    if any(s is None for s in sizes):
        raise ValueError(f"lower-to-loops: '{op.op_name}' at {op.location} has a size read from the "
                         f"data at run time; only sizes computed from input shapes and constants "
                         f"compile (e.g. x.shape[0] + 1, not the value of an input)")
    return sizes


@lowering("tensor.alloc")
def _alloc(ctx: FuncLowering, op: Operation) -> None:
    value = op.operand(0)
    t: TensorType = op.results[0].type
    given = traced_sizes(ctx, op, op.operands[1:])
    value_sizes = ctx.sizes_of(ctx.buf[value])
    sizes = []
    for axis, (n, d) in enumerate(zip(given, value_sizes)):
        if value.type.shape[axis] != 1:
            ctx.lb.assert_eq(n, d, f"'tensor.alloc': size {axis} does not match the value's dim")
            sizes.append(d)
        else:
            sizes.append(n)
    sizes = ctx.result_sizes(t, sizes)
    m = ctx.lb.create(L.BroadcastOp, [ctx.buf[value], *sizes], {"dims": L.perm_attr(range(t.rank))},
                      L.view_type(t.shape, t.element, t.device))
    ctx.bind(op.results[0], m, sizes)


@lowering("tensor.iota")
def _iota(ctx: FuncLowering, op: Operation) -> None:
    (n,) = traced_sizes(ctx, op, op.operands)
    t: TensorType = op.results[0].type
    out = ctx.lb.alloc(contiguous_type(t), [n])
    with ctx.lb.parallel([n]) as (i,):
        ctx.lb.store(ctx.lb.cast(i, i64), out, [i])
    ctx.bind(op.results[0], out, [n], contiguous=True)


@lowering("tensor.from_elements")
def _from_elements(ctx: FuncLowering, op: Operation) -> None:
    t: TensorType = op.results[0].type
    n = ctx.lb.const(len(op.operands))
    out = ctx.lb.alloc(contiguous_type(t), [n])
    for k, v in enumerate(op.operands):
        ctx.lb.store(ctx.broadcast_load(v, []), out, [ctx.lb.const(k)])
    ctx.bind(op.results[0], out, [n], contiguous=True)


BY_ELEMENT.add("tensor.from_elements")  # reads its operands as scalars: none needs a buffer
