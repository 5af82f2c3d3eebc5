"""Loop lowerings of `tensor.cumulative` and `tensor.sort`: a parallel loop over every
position of the other axes, and a sequential loop along `axis`.

Sort is a stable insertion sort written without branches (a compare-and-swap of neighbours
for every pair, O(n^2) per row): correct first; NaNs go last, as numpy puts them."""
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
    perm = ctx.alloc(t, sizes) if kind == "indices" else None
    one = lb.const(1)
    with _rows(ctx, sizes, axis) as at:
        if perm is not None:
            with lb.for_(lb.const(0), sizes[axis]) as init:
                lb.store(lb.cast(init.iv, i64), perm, at(init.iv))
        with lb.for_(one, sizes[axis]) as outer:
            with lb.for_(lb.const(0), outer.iv) as inner:
                j = lb.sub(outer.iv, inner.iv)        # i, i-1, ..., 1
                left, right = at(lb.sub(j, one)), at(j)
                a, b = lb.load(keys, left), lb.load(keys, right)
                swap = _after(lb, a, b, xt.element.is_float)
                lb.store(lb.scalar("select", [swap, b, a]), keys, left)
                lb.store(lb.scalar("select", [swap, a, b]), keys, right)
                if perm is not None:
                    p, q = lb.load(perm, left), lb.load(perm, right)
                    lb.store(lb.scalar("select", [swap, q, p]), perm, left)
                    lb.store(lb.scalar("select", [swap, p, q]), perm, right)
    result = perm if perm is not None else keys
    ctx.bind(op.results[0], result, ctx.sizes_of(result), contiguous=True)
