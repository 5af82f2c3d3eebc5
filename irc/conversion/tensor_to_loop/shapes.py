"""Loop lowerings of the tensor ops that move elements: views where a strided view can express
the result (dimshuffle, transpose, broadcast, slice, reshape of a contiguous buffer), copies
otherwise (concat, insert_slice, reshape of a strided view), and `tensor.dim`."""
from __future__ import annotations

from ...dialects import loop as L
from ...dialects.builtin import MemRefType, TensorType
from ...dialects.tensor_base import DYNAMIC, NO_BOUND
from ...ir.core import Operation
from ...ir.types import i64
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering, lowering
from .index_trace import indices_of_vector


def _view_type(t: TensorType) -> MemRefType:
    return L.view_type(t.shape, t.element, t.device)


@lowering("tensor.dimshuffle")
def _dimshuffle(ctx: FuncLowering, op: Operation) -> None:
    pattern = tuple(op.attributes["pattern"])
    src = ctx.operand(op, 0)
    src_sizes = ctx.sizes_of(src)
    sizes = [ctx.lb.const(1) if p == -1 else src_sizes[p] for p in pattern]
    t = op.results[0].type
    m = ctx.lb.create(L.BroadcastOp, [src, *sizes], {"dims": L.perm_attr(pattern)}, _view_type(t))
    ctx.bind(op.results[0], m, sizes)


@lowering("tensor.transpose")
def _transpose(ctx: FuncLowering, op: Operation) -> None:
    perm = tuple(op.attributes["permutation"])
    src = ctx.operand(op, 0)
    t = op.results[0].type
    m = ctx.lb.create(L.TransposeOp, [src], {"perm": L.perm_attr(perm)}, _view_type(t))
    ctx.bind(op.results[0], m, [ctx.sizes_of(src)[p] for p in perm])


@lowering("tensor.broadcast")
def _broadcast(ctx: FuncLowering, op: Operation) -> None:
    x, like = op.operands
    t: TensorType = op.results[0].type
    like_sizes = ctx.sizes_of(ctx.buf[like])
    x_sizes = ctx.sizes_of(ctx.buf[x])
    sizes: list[Index] = []
    for axis in range(t.rank):
        if x.type.shape[axis] == 1:
            sizes.append(like_sizes[axis])
        else:
            if like.type.shape[axis] != 1:
                ctx.lb.assert_eq(x_sizes[axis], like_sizes[axis],
                                 f"'tensor.broadcast': sizes differ in dim {axis}")
            sizes.append(x_sizes[axis])
    sizes = ctx.result_sizes(t, sizes)
    m = ctx.lb.create(L.BroadcastOp, [ctx.buf[x], *sizes], {"dims": L.perm_attr(range(t.rank))},
                      _view_type(t))
    ctx.bind(op.results[0], m, sizes)


def slice_axis(lb: LoopBuilder, n: Index, start: int, stop: int, step: int) -> tuple[Index, Index]:
    """(offset, size) of numpy's `[start:stop:step]` on an axis of run-time size `n`."""
    zero, one = lb.const(0), lb.const(1)

    def bound(v: int, absent: Index, lo: Index, hi: Index) -> Index:
        if v == NO_BOUND:
            return absent
        if v >= 0:
            return lb.min(lb.const(v), hi)
        return lb.max(lb.add(n, lb.const(v)), lo)

    if step > 0:
        s = bound(start, zero, zero, n)
        e = bound(stop, n, zero, n)
        span = lb.sub(e, s)
    else:
        minus1, last = lb.const(-1), lb.sub(n, one)
        s = bound(start, last, minus1, last)
        e = bound(stop, minus1, minus1, last)
        span = lb.sub(s, e)
    k = abs(step)
    size = lb.max(zero, lb.floordiv(lb.add(span, lb.const(k - 1)), lb.const(k)))
    return s, size


@lowering("tensor.slice")
def _slice(ctx: FuncLowering, op: Operation) -> None:
    src = ctx.operand(op, 0)
    t: TensorType = op.results[0].type
    offsets, sizes, steps = _slice_parts(ctx, op, src)
    for axis, (d, size) in enumerate(zip(t.shape, sizes)):
        if d is not None:  # a static size the builder declared (x[i]: one element) holds
            ctx.lb.assert_eq(size, ctx.lb.const(d), f"'tensor.slice': index out of range in dim {axis} "
                                                      f"(the slice has {d} element(s) by its type)")
    sizes = ctx.result_sizes(t, sizes)
    m = ctx.lb.create(L.SubviewOp, [src, *offsets, *sizes, *steps], {}, _view_type(t))
    ctx.bind(op.results[0], m, sizes)


def _slice_parts(ctx: FuncLowering, op: Operation, src) -> tuple[list, list, list]:
    starts, stops, steps = (tuple(op.attributes[k]) for k in ("starts", "stops", "steps"))
    offsets, sizes = [], []
    for n, a, b, c in zip(ctx.sizes_of(src), starts, stops, steps):
        o, s = slice_axis(ctx.lb, n, a, b, c)
        offsets.append(o)
        sizes.append(s)
    return offsets, sizes, [ctx.lb.const(c) for c in steps]


@lowering("tensor.insert_slice")
def _insert_slice(ctx: FuncLowering, op: Operation) -> None:
    dest, src = ctx.operand(op, 0), ctx.operand(op, 1)
    t: TensorType = op.results[0].type
    out = ctx.alloc(t, ctx.sizes_of(dest))
    ctx.copy(dest, out, ctx.sizes_of(out))
    offsets, sizes, steps = _slice_parts(ctx, op, out)
    for axis, (a, b) in enumerate(zip(sizes, ctx.sizes_of(src))):
        ctx.lb.assert_eq(a, b, f"'tensor.insert_slice': the source does not fit the slice in dim {axis}")
    view = ctx.lb.create(L.SubviewOp, [out, *offsets, *sizes, *steps], {},
                         L.view_type(op.operand(1).type.shape, t.element, t.device))
    ctx.copy(src, view, ctx.sizes_of(src))
    ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)


@lowering("tensor.concat")
def _concat(ctx: FuncLowering, op: Operation) -> None:
    axis = op.attributes["axis"].value
    t: TensorType = op.results[0].type
    parts = [ctx.buf[v] for v in op.operands]
    lb = ctx.lb
    total = lb.const(0)
    first = ctx.sizes_of(parts[0])
    for m in parts:
        for d, (a, b) in enumerate(zip(first, ctx.sizes_of(m))):
            if d != axis:
                lb.assert_eq(a, b, f"'tensor.concat': operands differ in size in dim {d}")
        total = lb.add(total, ctx.sizes_of(m)[axis])
    sizes = [total if d == axis else s for d, s in enumerate(first)]
    out = ctx.alloc(t, sizes)
    zero, one = lb.const(0), lb.const(1)
    offset = zero
    for v, m in zip(op.operands, parts):
        msizes = ctx.sizes_of(m)
        offsets = [offset if d == axis else zero for d in range(t.rank)]
        view = lb.create(L.SubviewOp, [out, *offsets, *msizes, *([one] * t.rank)], {},
                         L.view_type(v.type.shape, t.element, t.device))
        ctx.copy(m, view, msizes)
        offset = lb.add(offset, msizes[axis])
    ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)


@lowering("tensor.reshape")
def _reshape(ctx: FuncLowering, op: Operation) -> None:
    shape = tuple(op.attributes["shape"])
    lb = ctx.lb
    given: list[Index | None] = [lb.const(s) if s >= 0 else None for s in shape]
    if DYNAMIC in shape:  # sizes computed from other sizes (`x.shape[0]`): see index_trace.py
        traced = indices_of_vector(ctx, op.operand(1))
        if traced is None or len(traced) != len(shape):
            raise ValueError("lower-to-loops: a reshape to sizes read from the data at run time is not "
                             "supported on the CPU path (sizes computed from input shapes and "
                             "constants are)")
        given = [t if s == DYNAMIC else g for s, g, t in zip(shape, given, traced)]
    src = ctx.make_contiguous(ctx.operand(op, 0))
    count = lb.const(1)
    for s in ctx.sizes_of(src):
        count = lb.mul(count, s)
    known = lb.const(1)
    for g in given:
        known = known if g is None else lb.mul(known, g)
    sizes = [g if g is not None else lb.floordiv(count, known) for g in given]
    total = lb.const(1)
    for s in sizes:
        total = lb.mul(total, s)
    lb.assert_eq(count, total, "'tensor.reshape': the element count does not match the new shape")
    t: TensorType = op.results[0].type
    sizes = ctx.result_sizes(t, sizes)
    mt = MemRefType(t.shape, t.element, device=t.device)
    dyn = [s for d, s in zip(t.shape, sizes) if d is None]
    m = lb.create(L.ReshapeOp, [src, *dyn], {}, mt)
    ctx.bind(op.results[0], m, sizes, contiguous=True)


@lowering("tensor.dim")
def _dim(ctx: FuncLowering, op: Operation) -> None:
    src = ctx.operand(op, 0)
    size = ctx.sizes_of(src)[op.attributes["axis"].value]
    t: TensorType = op.results[0].type
    out = ctx.alloc(t, [])
    with ctx.nest([], t.device) as ivs:
        ctx.lb.store(ctx.lb.cast(size, i64), out, ivs)
    ctx.bind(op.results[0], out, [], contiguous=True)
