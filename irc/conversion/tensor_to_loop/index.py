"""Loop lowerings of integer indexing: `tensor.index` is a view (a subview of one element on
each indexed axis, those axes then dropped), or a single load when the result is one element;
`tensor.insert_index` copies `dest` and writes `src` through the same view;
`tensor.dynamic_slice` is a subview whose bounds are read, made non-negative and clipped at
run time (numpy's rules, so any bound is valid); over a device buffer its bounds are computed on
the host from sizes and host inputs (`index_trace.py`), since the host makes the view.

Each index is read where the op stands (it may be computed at run time) and checked with
`loop.check_index`: numpy's `-n <= i < n`, the function failing with an IndexError otherwise.
"""
from __future__ import annotations

from ...dialects import loop as L
from ...dialects.builtin import TensorType
from ...dialects.tensor_base import constant_value
from ...ir.core import Operation, Value
from ...ir.types import i64, index
from ..loop_builder import Index
from .context import FuncLowering, lowering, single
from .index_trace import index_of


def _checked_indices(ctx: FuncLowering, op: Operation, first: int, sizes: list[Index]) -> dict[int, Index]:
    """axis -> the checked, non-negative index given by operands `first`, `first + 1`, ..."""
    out = {}
    for k, axis in enumerate(op.attributes["axes"]):
        v = op.operand(first + k)
        if op.results[0].type.device is not None:  # computed (and checked) by the host plan
            i = index_of(ctx, v)
            if i is None:
                raise ValueError(f"lower-to-loops: '{op.op_name}' at {op.location} on the device has an "
                                 f"index computed from device data; only indices from constants, "
                                 f"sizes and integer inputs compile")
        else:
            known = constant_value(v)
            i = ctx.lb.const(int(known.array.reshape(-1)[0])) if known is not None \
                else ctx.lb.cast(ctx.broadcast_load(v, []), index)
        out[axis] = ctx.lb.check_index(i, sizes[axis],
                                       f"'{op.op_name}': index out of range for axis {axis}")
    return out


def indexed_view(ctx: FuncLowering, src: Value, shape: tuple, at: dict[int, Index]) -> tuple[Value, list[Index]]:
    """The view of buffer `src` (of tensor shape `shape`) at the indices `at`, the indexed axes
    dropped; and its sizes."""
    lb = ctx.lb
    zero, one = lb.const(0), lb.const(1)
    sizes = ctx.sizes_of(src)
    rank = len(sizes)
    offsets = [at.get(a, zero) for a in range(rank)]
    counts = [one if a in at else sizes[a] for a in range(rank)]
    element, device = src.type.element, src.type.device
    sub_type = L.view_type([1 if a in at else d for a, d in enumerate(shape)], element, device)
    sub = lb.create(L.SubviewOp, [src, *offsets, *counts, *([one] * rank)], {}, sub_type)
    kept = [a for a in range(rank) if a not in at]
    kept_sizes = [sizes[a] for a in kept]
    view = lb.create(L.BroadcastOp, [sub, *kept_sizes], {"dims": L.perm_attr(kept)},
                     L.view_type([shape[a] for a in kept], element, device))
    return view, kept_sizes


@single("tensor.index")
def _index_one(ctx: FuncLowering, op: Operation) -> bool:
    """A one-element result (`m[i, j]`): one load, held as a scalar."""
    x = op.operand(0)
    src = ctx.materialize(x)
    at = _checked_indices(ctx, op, 1, ctx.sizes_of(src))
    zero = ctx.lb.const(0)
    ctx.scalars[op.results[0]] = ctx.lb.load(src, [at.get(a, zero) for a in range(x.type.rank)])
    return True


@lowering("tensor.index")
def _index(ctx: FuncLowering, op: Operation) -> None:
    src = ctx.operand(op, 0)
    at = _checked_indices(ctx, op, 1, ctx.sizes_of(src))
    view, sizes = indexed_view(ctx, src, op.operand(0).type.shape, at)
    ctx.bind(op.results[0], view, sizes)


@lowering("tensor.insert_index")
def _insert_index(ctx: FuncLowering, op: Operation) -> None:
    dest, src = ctx.operand(op, 0), ctx.operand(op, 1)
    t: TensorType = op.results[0].type
    at = _checked_indices(ctx, op, 2, ctx.sizes_of(dest))  # before the allocation
    out = ctx.alloc(t, ctx.sizes_of(dest))
    ctx.copy(dest, out, ctx.sizes_of(out))
    view, sizes = indexed_view(ctx, out, t.shape, at)
    src_sizes = ctx.sizes_of(src)
    for axis, (a, b) in enumerate(zip(sizes, src_sizes)):
        ctx.lb.assert_eq(a, b, f"'tensor.insert_index': the source does not fit in dim {axis}")
    ctx.copy(src, view, src_sizes)
    ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)


def _clipped_bound(ctx: FuncLowering, v: Value, n: Index) -> Index:
    """numpy's slice bound (step 1): negative counts from the end, then clipped to [0, n]."""
    lb = ctx.lb
    raw = ctx.broadcast_load(v, [])
    size = lb.cast(n, i64)
    zero = lb.scalar_const(0, i64)
    clipped = lb.scalar("minimum", [lb.scalar("maximum", [lb.wrap_negative(raw, size), zero]), size])
    return lb.cast(clipped, index)


def _host_bound(ctx: FuncLowering, op: Operation, v: Value, n: Index) -> Index:
    """numpy's slice bound of a device slice, computed on the host from sizes, constants and
    the values of host inputs (`index_trace.py`): only index arithmetic (the host plan's)."""
    lb = ctx.lb
    i = index_of(ctx, v)
    if i is None:
        raise ValueError(f"lower-to-loops: '{op.op_name}' at {op.location} on the device has a bound "
                         f"computed from device data; only bounds from input shapes, constants and "
                         f"integer inputs compile")
    zero, one = lb.const(0), lb.const(1)
    negative = lb.min(lb.max(lb.sub(zero, i), zero), one)  # 1 where i < 0 (integers)
    return lb.min(lb.max(lb.add(i, lb.mul(n, negative)), zero), n)


@lowering("tensor.dynamic_slice")
def _dynamic_slice(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    src = ctx.operand(op, 0)
    axis = op.attributes["axis"].value
    sizes = list(ctx.sizes_of(src))
    bound = _host_bound if src.type.device is not None else \
        lambda ctx, op, v, n: _clipped_bound(ctx, v, n)  # noqa: E731
    start = bound(ctx, op, op.operand(1), sizes[axis])
    stop = bound(ctx, op, op.operand(2), sizes[axis])
    offsets = [lb.const(0)] * len(sizes)
    offsets[axis] = start
    sizes[axis] = lb.max(lb.const(0), lb.sub(stop, start))
    t: TensorType = op.results[0].type
    view = lb.create(L.SubviewOp, [src, *offsets, *sizes, *([lb.const(1)] * len(sizes))], {},
                     L.view_type(t.shape, t.element, t.device))
    ctx.bind(op.results[0], view, sizes)
