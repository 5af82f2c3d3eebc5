"""Adjacent axes that every operand reads alike, merged into one loop: an elementwise nest over
N×C×12×12 (a convolution layer's tanh(x + b) with b broadcast over the pixels) runs its
innermost loop over 144 elements instead of 12, which the vectorizer widens without a
remainder left over every row (LeNet's first layer: 1.0 ms → 0.2 ms).

Axes i and i+1 merge when, for every operand, both are broadcast (static 1: read at index 0)
or neither is, the operand then being a contiguous buffer, viewed in the merged shape (or a
value held as a scalar)."""
from __future__ import annotations

from dataclasses import dataclass

from ...dialects import loop as L
from ...dialects.builtin import MemRefType
from ...ir.core import Value
from ..loop_builder import Index
from .context import FuncLowering


@dataclass
class Collapsed:
    """The merged axes (`groups`, runs of the original axes) and the merged sizes."""

    groups: list[list[int]]
    sizes: list[Index]

    @property
    def merges(self) -> bool:
        return any(len(g) > 1 for g in self.groups)


def _reads_alike(ctx: FuncLowering, v: Value, i: int) -> bool:
    if ctx.holds_number(v):
        return True
    shape = v.type.shape
    if (shape[i] == 1) != (shape[i + 1] == 1):
        return False
    return shape[i] == 1 or contiguous(ctx, ctx.buf[v])


def contiguous(ctx: FuncLowering, m: Value) -> bool:
    """Whether buffer `m` is dense row-major at offset 0 (so it may be reshaped)."""
    t = m.type
    return m in ctx.contiguous and t.strides is None and t.offset == 0


def collapse(ctx: FuncLowering, operands: list[Value], outs: list[Value], sizes: list[Index],
             keep_apart: set[int] = frozenset()) -> Collapsed:
    """The runs of axes that `operands` (tensor values) and the contiguous `outs` (buffers of
    `sizes`) read alike; an axis in `keep_apart` starts a run of its own and ends it (e.g. a
    reduced axis next to a kept one: pass the boundaries)."""
    lb = ctx.lb
    rank = len(sizes)
    outs_ok = all(contiguous(ctx, m) for m in outs)
    groups = [[0]] if rank else []
    for i in range(rank - 1):
        alike = outs_ok and i + 1 not in keep_apart and all(_reads_alike(ctx, v, i) for v in operands)
        if alike:
            groups[-1].append(i + 1)
        else:
            groups.append([i + 1])
    merged = []
    for g in groups:
        total = sizes[g[0]]
        for a in g[1:]:
            total = lb.mul(total, sizes[a])
        merged.append(total)
    return Collapsed(groups, merged)


def merged_view(ctx: FuncLowering, m: Value, sizes: list[Index], c: Collapsed) -> Value:
    """Contiguous buffer `m` (of `sizes`) viewed in the merged shape."""
    lb = ctx.lb
    merged = []
    for g in c.groups:
        total = sizes[g[0]]
        for a in g[1:]:
            total = lb.mul(total, sizes[a])
        merged.append(total)
    t = m.type
    view = lb.create(L.ReshapeOp, [m, *merged], {}, MemRefType((None,) * len(merged), t.element, device=t.device))
    ctx.sizes[view] = merged
    return view


def operand_views(ctx: FuncLowering, operands: list[Value], c: Collapsed) -> dict[Value, Value]:
    """The merged views of the operands that need one (made before the loops open): those with
    a merged run of axes that they do not broadcast."""
    views = {}
    for v in operands:
        if ctx.holds_number(v) or v in views:
            continue
        shape = v.type.shape
        if any(len(g) > 1 and shape[g[0]] != 1 for g in c.groups):
            m = ctx.buf[v]
            views[v] = merged_view(ctx, m, ctx.sizes[m], c)
    return views


def merged_load(ctx: FuncLowering, v: Value, ivs: list[Index], c: Collapsed, views: dict[Value, Value]) -> Value:
    """Tensor `v`'s element at the merged indices `ivs` (index 0 on its broadcast axes)."""
    if ctx.holds_number(v):
        return ctx.broadcast_load(v, ivs)
    lb, shape = ctx.lb, v.type.shape
    zero = lb.const(0)
    if v in views:
        return lb.load(views[v], [zero if shape[g[0]] == 1 else ivs[k] for k, g in enumerate(c.groups)])
    return lb.load(ctx.buf[v], [zero if shape[a] == 1 else ivs[k] for k, g in enumerate(c.groups) for a in g])
