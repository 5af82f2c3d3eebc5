"""Loop lowerings of the pooling ops (`tensor.pool2d`, `tensor.pool2d_grad`) over the last two
axes, the leading ones a batch of planes.

The forward pass is parallel over the planes and output rows: each output walks its window's
elements inside the image (the window cut by the padding and, with ignore_border = 0, by the
image's end) with a max or a sum. A window
that lies inside the image (ignore_border, no padding) is unrolled. The gradient gathers:
parallel over every element's row, each element sums the gradients of the outputs whose
windows hold it (`covering`: one for non-overlapping windows) — all of an output's gradient
where the element equals the window's max (Theano's MaxPoolGrad), or that gradient divided as
the forward divided (average modes) — so no two iterations write one element and nothing is
zeroed first. Window bounds are the same index arithmetic in both, so the gradient is the
forward's exact adjoint.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from ...dialects.builtin import TensorType
from ...dialects.conv_semantics import pool_geometry
from ...ir.core import Operation, Value
from ...ir.types import ScalarType
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering, lowering
from .reduction_kinds import identity

MAX_UNROLLED = 16  # windows of at most this many elements are unrolled when they lie inside the image


@dataclass
class Window:
    """One output's window along one axis: [lo, hi) of the image, and the divisor's factor."""

    lo: Index
    hi: Index
    size: Index


def output_size(lb: LoopBuilder, size: Index, window: int, stride: int, pad: int, ignore_border: bool) -> Index:
    """Theano's `Pool.out_shape` along one axis (every floor division of a non-negative)."""
    r = lb.add(size, lb.const(2 * pad))
    zero = lb.const(0)
    if ignore_border:  # max(0, (r - ws) // st + 1)
        return lb.floordiv(lb.max(zero, lb.add(r, lb.const(stride - window))), lb.const(stride))
    if stride >= window:  # (r - 1) // st + 1
        return lb.floordiv(lb.add(r, lb.const(stride - 1)), lb.const(stride))
    # max(0, (r - 1 - ws) // st + 1) + 1
    return lb.add(lb.floordiv(lb.max(zero, lb.add(r, lb.const(stride - 1 - window))), lb.const(stride)),
                  lb.const(1))


def window_at(lb: LoopBuilder, i: Index, size: Index, window: int, stride: int, pad: int, mode: str) -> Window:
    """Output i's window: padded positions [i·st, min(i·st + ws, size + 2·pad)), less the padding."""
    start = lb.mul(i, lb.const(stride))
    end = lb.min(lb.add(start, lb.const(window)), lb.add(size, lb.const(2 * pad)))
    lo = lb.max(lb.const(0), lb.sub(start, lb.const(pad)))
    hi = lb.min(size, lb.sub(end, lb.const(pad)))
    return Window(lo, hi, lb.sub(end, start) if mode == "average_inc_pad" else lb.sub(hi, lo))


@contextmanager
def over_plane(lb: LoopBuilder, lead: list[Index], rows: Index,
               cols: Index) -> Iterator[tuple[list[Index], Index, Index]]:
    """(leading indices, row, column) of every position of planes `rows`×`cols`, parallel over
    the planes (and the rows). With a static number of columns the positions of a plane are one
    flat loop (row = t // cols: a multiplication), long enough to vectorize where a row of a
    pooled image (12 in LeNet) is shorter than one vector."""
    if lb.static_value(cols) is None:
        with lb.parallel([*lead, rows]) as ivs:
            with lb.for_(lb.const(0), cols) as c:
                yield ivs[:-1], ivs[-1], c.iv
        return
    with lb.parallel(lead) as ivs:
        with lb.for_(lb.const(0), lb.mul(rows, cols)) as t:
            r = lb.floordiv(t.iv, cols)
            yield ivs, r, lb.sub(t.iv, lb.mul(r, cols))


def covering(lb: LoopBuilder, r: Index, outputs: Index, window: int, stride: int, pad: int) -> tuple[Index, Index]:
    """[lo, hi): the outputs whose windows hold image position r (padded r + pad in
    [i·st, i·st + ws)); for non-overlapping windows one output at most."""
    at = lb.add(r, lb.const(pad))
    lo = lb.floordiv(lb.add(lb.max(lb.const(0), lb.sub(at, lb.const(window - 1))), lb.const(stride - 1)),
                     lb.const(stride))
    hi = lb.min(outputs, lb.add(lb.floordiv(at, lb.const(stride)), lb.const(1)))
    return lo, lb.max(lo, hi)


def _divisor(lb: LoopBuilder, rows: Window, cols: Window, element: ScalarType) -> Value:
    count = lb.max(lb.const(1), lb.mul(rows.size, cols.size))
    return lb.cast(count, element)


def _windows(ctx: FuncLowering, op: Operation, sizes: list[Index], out_sizes: list[Index], i: Index, j: Index,
             mode: str) -> tuple[Window, Window]:
    _, window, strides, pads, _ = pool_geometry(op.attributes)
    lb = ctx.lb
    return (window_at(lb, i, sizes[-2], window[0], strides[0], pads[0], mode),
            window_at(lb, j, sizes[-1], window[1], strides[1], pads[1], mode))


def pooled_sizes(ctx: FuncLowering, op: Operation, sizes: list[Index]) -> list[Index]:
    _, window, strides, pads, ignore = pool_geometry(op.attributes)
    lb = ctx.lb
    return [*sizes[:-2], *(output_size(lb, sizes[-2 + a], window[a], strides[a], pads[a], ignore) for a in range(2))]


@lowering("tensor.pool2d")
def _pool2d(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    mode = pool_geometry(op.attributes)[0]
    x = ctx.operand(op, 0)
    sizes = ctx.sizes_of(x)
    t: TensorType = op.results[0].type
    element = t.element
    out = ctx.alloc(t, pooled_sizes(ctx, op, sizes))
    out_sizes = ctx.sizes_of(out)
    kind = "max" if mode == "max" else "sum"
    combine = "maximum" if mode == "max" else "add"
    _, window, strides, pads, ignore = pool_geometry(op.attributes)
    inside = ignore and not any(pads) and window[0] * window[1] <= MAX_UNROLLED
    with over_plane(lb, out_sizes[:-2], out_sizes[-2], out_sizes[-1]) as (lead, i, j):
        if inside:  # every window lies inside the image: its elements, unrolled
            r0, c0 = lb.mul(i, lb.const(strides[0])), lb.mul(j, lb.const(strides[1]))
            values = [lb.load(x, [*lead, lb.add(r0, lb.const(a)), lb.add(c0, lb.const(b))])
                      for a in range(window[0]) for b in range(window[1])]
            acc = values[0]
            for v in values[1:]:
                acc = lb.scalar(combine, [acc, v])
            count = lb.scalar_const(window[0] * window[1], element) if mode.startswith("average") else None
        else:
            rows, cols = _windows(ctx, op, sizes, out_sizes, i, j, mode)
            init = lb.scalar_const(identity(kind, element), element)
            with lb.for_(rows.lo, rows.hi, inits=[init]) as r:
                with lb.for_(cols.lo, cols.hi, inits=[r.iter_args[0]], reduction=True) as c:
                    v = lb.load(x, [*lead, r.iv, c.iv])
                    lb.yield_(c, [lb.scalar(combine, [c.iter_args[0], v])])
                lb.yield_(r, c.results)
            acc = r.results[0]
            count = _divisor(lb, rows, cols, element) if mode.startswith("average") else None
        if mode.startswith("average"):
            acc = lb.scalar("div", [acc, count])
        lb.store(acc, out, [*lead, i, j])
    ctx.bind(op.results[0], out, out_sizes, contiguous=True)


@lowering("tensor.pool2d_grad")
def _pool2d_grad(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    mode = pool_geometry(op.attributes)[0]
    x = ctx.operand(op, 0)
    y = ctx.operand(op, 1) if mode == "max" else None
    gy = ctx.operand(op, op.num_operands - 1)
    sizes = ctx.sizes_of(x)
    out_sizes = pooled_sizes(ctx, op, sizes)
    for v in op.operands[1:]:
        for axis, (a, b) in enumerate(zip(ctx.sizes_of(ctx.buf[v]), out_sizes)):
            lb.assert_eq(a, b, f"'{op.op_name}': a pooled operand differs from the pooled shape in dim {axis}")
    t: TensorType = op.results[0].type
    element = t.element
    _, window, strides, pads, ignore = pool_geometry(op.attributes)
    gx = ctx.alloc(t, sizes)
    tiled = ignore and not any(pads) and tuple(strides) == tuple(window)
    with over_plane(lb, sizes[:-2], sizes[-2], sizes[-1]) as (lead, r, c):
        here = lb.load(x, [*lead, r, c]) if y is not None else None
        if tiled:  # windows side by side: one window at most holds (r, c)
            total = _tiled_gradient(ctx, lead, r, c, here, y, gy, out_sizes, window, mode, element)
        else:
            total = _gathered_gradient(ctx, op, lead, r, c, here, y, gy, sizes, out_sizes, mode, element)
        lb.store(total, gx, [*lead, r, c])
    ctx.bind(op.results[0], gx, sizes, contiguous=True)


def _tiled_gradient(ctx: FuncLowering, lead: list[Index], r: Index, c: Index, here: Value | None, y: Value | None,
                    gy: Value, out_sizes: list[Index], window, mode: str, element: ScalarType) -> Value:
    """The gradient at (r, c) when the windows tile the image: that of window (r // ws0, c // ws1),
    if there is one (the last rows and columns of an image may be in none)."""
    lb = ctx.lb
    i, j = lb.floordiv(r, lb.const(window[0])), lb.floordiv(c, lb.const(window[1]))
    inside = lb.scalar("and", [lb.scalar("lt", [i, out_sizes[-2]]), lb.scalar("lt", [j, out_sizes[-1]])])
    at = [*lead, lb.min(i, lb.sub(out_sizes[-2], lb.const(1))), lb.min(j, lb.sub(out_sizes[-1], lb.const(1)))]
    g = lb.load(gy, at)
    if here is not None:
        inside = lb.scalar("and", [inside, lb.scalar("eq", [here, lb.load(y, at)])])
    elif mode.startswith("average"):
        g = lb.scalar("div", [g, lb.scalar_const(window[0] * window[1], element)])
    return lb.scalar("select", [inside, g, lb.scalar_const(0, element)])


def _gathered_gradient(ctx: FuncLowering, op: Operation, lead: list[Index], r: Index, c: Index, here: Value | None,
                       y: Value | None, gy: Value, sizes: list[Index], out_sizes: list[Index], mode: str,
                       element: ScalarType) -> Value:
    """The gradient at (r, c): the sum over the outputs whose windows hold it."""
    lb = ctx.lb
    _, window, strides, pads, _ = pool_geometry(op.attributes)
    zero_v = lb.scalar_const(0, element)
    i_lo, i_hi = covering(lb, r, out_sizes[-2], window[0], strides[0], pads[0])
    j_lo, j_hi = covering(lb, c, out_sizes[-1], window[1], strides[1], pads[1])
    with lb.for_(i_lo, i_hi, inits=[zero_v]) as i:
        with lb.for_(j_lo, j_hi, inits=[i.iter_args[0]]) as j:
            g = lb.load(gy, [*lead, i.iv, j.iv])
            if here is not None:
                g = lb.scalar("select", [lb.scalar("eq", [here, lb.load(y, [*lead, i.iv, j.iv])]), g, zero_v])
            elif mode.startswith("average"):
                rows, cols = _windows(ctx, op, sizes, out_sizes, i.iv, j.iv, mode)
                g = lb.scalar("div", [g, _divisor(lb, rows, cols, element)])
            lb.yield_(j, [lb.scalar("add", [j.iter_args[0], g])])
        lb.yield_(i, j.results)
    return i.results[0]
