"""Single-element tensors lowered to SSA scalars: no buffer, no loop, no load.

A value whose type has only static 1 dims (`tensor<f32>`, `tensor<1x1xf32>`) is one number.
When it comes from `tensor.dim`, a one-element constant, an elementwise op or `tensor.fused` of
such values, or a view of one (dimshuffle, transpose, broadcast, reshape), `lower-to-loops`
keeps it in `FuncLowering.scalars` as a scalar computed where the op stands (reading any
operand buffer there, once) — `1 / n` from a size, `b - lr * sum` of a reduction. Elementwise
loops then use the scalar itself (`broadcast_load`); a lowering that needs a buffer (a return,
a gemv operand) gets one made on the spot (`FuncLowering.materialize`). Reductions to rank 0
bind their accumulator the same way (`reduce.py`).

Computing the value where the op stands is what the op means: later in-place writes cannot
change it, and the `inplace` pass never lets an op overwrite what a later op still reads.
"""
from __future__ import annotations

from ...dialects.builtin import TensorType
from ...ir.core import Operation
from ...ir.types import ScalarType, i64
from .context import FuncLowering, single, single_element

VIEWS = ("tensor.dimshuffle", "tensor.transpose", "tensor.broadcast", "tensor.reshape")


@single(*VIEWS)
def _view(ctx: FuncLowering, op: Operation) -> bool:
    src = op.operand(0)
    if not (single_element(src.type) or src in ctx.scalars):
        return False
    ctx.scalars[op.results[0]] = ctx.broadcast_load(src, [ctx.lb.const(0)] * src.type.rank)
    return True


@single("tensor.dim")
def _dim(ctx: FuncLowering, op: Operation) -> bool:
    axis = op.attributes["axis"].value
    static = op.operand(0).type.shape[axis]
    size = ctx.lb.const(static) if static is not None else ctx.sizes_of(ctx.operand(op, 0))[axis]
    ctx.scalars[op.results[0]] = ctx.lb.cast(size, i64)
    return True


@single("tensor.constant")
def _constant(ctx: FuncLowering, op: Operation) -> bool:
    t: TensorType = op.results[0].type
    element: ScalarType = t.element
    value = op.attributes["value"].array.reshape(-1)[0].item()
    ctx.scalars[op.results[0]] = ctx.lb.scalar_const(value, element)
    return True
