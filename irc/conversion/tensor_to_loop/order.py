"""Loop lowerings of `tensor.cumulative` and `tensor.sort`: a parallel loop over every
position of the other axes, and a sequential loop along `axis`.

Sort is a stable bottom-up merge sort of each row, O(n log n): runs of width 1, 2, 4, ...
merged pairwise into a second buffer and copied back, each merge a branch-free loop over its
output (the side taken is a select); `argsort` carries the indices through the same merges.
NaNs go last, as numpy puts them. (Until session 13 it was a compare-and-swap of every pair of
neighbours, O(n^2): 2 s for 30,000 values, hours for a million.)"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from ...dialects.builtin import TensorType
from ...ir.core import Operation, Value
from ...ir.types import i64
from ..loop_builder import Index
from .context import FuncLowering, lowering
from .reduction_kinds import COMBINE, identity


@contextmanager
def _rows(ctx: FuncLowering, sizes: list[Index], axis: int) -> Iterator[Callable[[Index], list[Index]]]:
    """A parallel loop over the positions of every axis but `axis`; gives the function from an
    index along `axis` to the full index."""
    others = [s for a, s in enumerate(sizes) if a != axis]
    with ctx.lb.parallel(others) as ivs:
        def at(k: Index) -> list[Index]:
            idx = list(ivs)
            idx.insert(axis, k)
            return idx
        yield at


@lowering("tensor.cumulative")
def _cumulative(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    x = ctx.operand(op, 0)
    axis, kind = op.attributes["axis"].value, op.attributes["kind"].value
    t: TensorType = op.results[0].type
    sizes = ctx.sizes_of(x)
    out = ctx.alloc(t, sizes)
    with _rows(ctx, sizes, axis) as at:
        init = lb.scalar_const(identity(kind, t.element), t.element)
        with lb.for_(lb.const(0), sizes[axis], inits=[init]) as loop:
            acc = lb.scalar(COMBINE[kind], [loop.iter_args[0], lb.load(x, at(loop.iv))])
            lb.store(acc, out, at(loop.iv))
            lb.yield_(loop, [acc])
    ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)


def _after(lb, a: Value, b: Value, is_float: bool) -> Value:
    """a must come after b: a > b, or a is NaN and b is not (stable: equal never swaps)."""
    later = lb.scalar("gt", [a, b])
    if is_float:
        a_nan, b_ok = lb.scalar("ne", [a, a]), lb.scalar("eq", [b, b])
        later = lb.scalar("or", [later, lb.scalar("and", [a_nan, b_ok])])
    return later


# passes at most: the run width doubles each pass (the last doubling reaches 2^62, so the
# carried width never overflows), enough for any row of fewer than 2^62 elements
MAX_PASSES = 62


@lowering("tensor.sort")
def _sort(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    x = ctx.operand(op, 0)
    axis, kind = op.attributes["axis"].value, op.attributes["kind"].value
    t: TensorType = op.results[0].type
    xt: TensorType = op.operand(0).type
    sizes = ctx.sizes_of(x)
    keys = ctx.alloc(xt, sizes)  # the values, sorted in place
    ctx.copy(x, keys, sizes)
    spare = ctx.alloc(xt, sizes)  # where a pass merges to
    perm = ctx.alloc(t, sizes) if kind == "indices" else None
    spare_perm = ctx.alloc(t, sizes) if perm is not None else None
    n = sizes[axis]
    with _rows(ctx, sizes, axis) as at:
        if perm is not None:
            with lb.for_(lb.const(0), n) as init:
                lb.store(lb.cast(init.iv, i64), perm, at(init.iv))
        with lb.for_(lb.const(0), lb.const(MAX_PASSES), inits=[lb.const(1)]) as passes:
            width = passes.iter_args[0]
            with lb.when(lb.scalar("lt", [width, n])):
                _merge_pass(lb, at, n, width, (keys, perm), (spare, spare_perm), xt.element.is_float)
            lb.yield_(passes, [lb.mul(width, lb.const(2))])
    result = perm if perm is not None else keys
    ctx.bind(op.results[0], result, ctx.sizes_of(result), contiguous=True)


def _merge_pass(lb, at: Callable[[Index], list[Index]], n: Index, width: Index, src: tuple, dst: tuple,
                is_float: bool) -> None:
    """Merge each pair of sorted runs of `width` of the row from `src` into `dst` (keys, and
    indices when sorting them too), then copy the row back."""
    one = lb.const(1)
    with lb.for_(lb.const(0), n, lb.mul(width, lb.const(2))) as run:
        lo = run.iv
        mid = lb.min(lb.add(lo, width), n)
        hi = lb.min(lb.add(mid, width), n)
        with lb.for_(lo, hi, inits=[lo, mid]) as merge:
            i, j = merge.iter_args
            left, right = at(lb.min(i, lb.sub(mid, one))), at(lb.min(j, lb.sub(hi, one)))
            a, b = lb.load(src[0], left), lb.load(src[0], right)
            right_open = lb.scalar("lt", [j, hi])
            left_done = lb.scalar("ge", [i, mid])
            take_right = lb.scalar("and", [right_open, lb.scalar("or", [left_done, _after(lb, a, b, is_float)])])
            lb.store(lb.scalar("select", [take_right, b, a]), dst[0], at(merge.iv))
            if src[1] is not None:
                p, q = lb.load(src[1], left), lb.load(src[1], right)
                lb.store(lb.scalar("select", [take_right, q, p]), dst[1], at(merge.iv))
            lb.yield_(merge, [lb.scalar("select", [take_right, i, lb.add(i, one)]),
                              lb.scalar("select", [take_right, lb.add(j, one), j])])
    with lb.for_(lb.const(0), n) as back:
        for from_, to in zip(dst, src):
            if from_ is not None:
                lb.store(lb.load(from_, at(back.iv)), to, at(back.iv))
