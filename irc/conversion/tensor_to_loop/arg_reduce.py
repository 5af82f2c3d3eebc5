"""argmax / argmin on the host: the first extremum along an axis, a NaN winning over any
number (numpy's rule).

Carrying the best value and its index through one loop is a chain of compares and selects
that LLVM cannot vectorize: 4.5 ns an element, 190× numpy's time on a vector. So:

* the reduced axis is the innermost one (rows, or a vector): two passes over each row, both
  reductions LLVM vectorizes: the extremum (`maximum`/`minimum`, which propagate NaN), then
  the least index holding it (or holding a NaN when the extremum is NaN): a `min` of
  `k if hit else n`;
* the innermost axis is kept (argmax over the rows of a matrix): the rows are walked in memory
  order, each updating the running extremum and index of every column it crosses, so the
  update is elementwise along a contiguous row, in blocks of columns run in parallel;
* otherwise the single carried loop.

Every variant keeps the first index of the extremum, so all give numpy's answer.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from ...dialects.builtin import MemRefType
from ...ir.core import Value
from ...ir.types import i64
from ..loop_builder import Index
from .context import FuncLowering

COLUMN_BLOCK = 256  # columns a task of the row-walking variant updates


def arg_reduce(ctx: FuncLowering, kind: str, x: Value, sizes: list[Index], axis: int, out: Value,
               out_sizes: list[Index]) -> None:
    rank = x.type.rank
    if axis == rank - 1:
        _two_passes(ctx, kind, x, sizes, axis, out, out_sizes)
    elif rank == 2 and axis == 0:
        _walk_rows(ctx, kind, x, sizes, out)
    else:
        _carried(ctx, kind, x, sizes, axis, out, out_sizes)


def _better(ctx: FuncLowering, kind: str, v: Value, best: Value) -> Value:
    """`v` replaces `best`: strictly beyond it, or a NaN where `best` is not one."""
    lb = ctx.lb
    better = lb.scalar("gt" if kind == "argmax" else "lt", [v, best])
    if v.type.is_float:
        v_nan = lb.scalar("ne", [v, v])
        best_ok = lb.scalar("eq", [best, best])
        better = lb.scalar("or", [better, lb.scalar("and", [v_nan, best_ok])])
    return better


@contextmanager
def _lines(ctx: FuncLowering, x: Value, axis: int, out_sizes: list[Index]) -> Iterator[tuple[list, Callable]]:
    """A parallel loop over the outputs; gives their indices and `at(k)`, the load of element
    k along `axis` of the output's line."""
    lb = ctx.lb
    kept = [a for a in range(x.type.rank) if a != axis]
    with lb.parallel(out_sizes) as ivs:
        index = dict(zip(kept, ivs))

        def at(k: Index) -> Value:
            index[axis] = k
            return lb.load(x, [index[a] for a in range(x.type.rank)])
        yield ivs, at


def _two_passes(ctx, kind, x, sizes, axis, out, out_sizes) -> None:
    lb = ctx.lb
    n = sizes[axis]
    with _lines(ctx, x, axis, out_sizes) as (ivs, at):
        with lb.for_(lb.const(1), n, inits=[at(lb.const(0))], reduction=True) as extremum:
            combined = lb.scalar("maximum" if kind == "argmax" else "minimum", [extremum.iter_args[0],
                                                                               at(extremum.iv)])
            lb.yield_(extremum, [combined])
        best = extremum.results[0]
        past = lb.cast(n, i64)
        with lb.for_(lb.const(0), n, inits=[past], reduction=True) as first:
            v = at(first.iv)
            hit = lb.scalar("eq", [v, best])
            if v.type.is_float:  # the extremum is NaN only where a NaN is: find the first
                hit = lb.scalar("or", [hit, lb.scalar("and", [lb.scalar("ne", [best, best]),
                                                              lb.scalar("ne", [v, v])])])
            k = lb.scalar("select", [hit, lb.cast(first.iv, i64), past])
            lb.yield_(first, [lb.scalar("minimum", [first.iter_args[0], k])])
        lb.store(first.results[0], out, ivs)


def _walk_rows(ctx, kind, x, sizes, out) -> None:
    lb = ctx.lb
    rows, width = sizes
    best = lb.alloc(MemRefType((None,), x.type.element), [width])
    block = lb.const(COLUMN_BLOCK)
    blocks = lb.floordiv(lb.add(width, lb.const(COLUMN_BLOCK - 1)), block)
    with lb.parallel([blocks]) as (b,):
        start = lb.mul(b, block)
        stop = lb.min(lb.add(start, block), width)
        with lb.for_(start, stop) as j:
            lb.store(lb.load(x, [lb.const(0), j.iv]), best, [j.iv])
            lb.store(lb.scalar_const(0, i64), out, [j.iv])
        with lb.for_(lb.const(1), rows) as r:
            row_index = lb.cast(r.iv, i64)
            with lb.for_(start, stop) as j:
                v = lb.load(x, [r.iv, j.iv])
                held = lb.load(best, [j.iv])
                better = _better(ctx, kind, v, held)
                lb.store(lb.scalar("select", [better, v, held]), best, [j.iv])
                lb.store(lb.scalar("select", [better, row_index, lb.load(out, [j.iv])]), out, [j.iv])


def _carried(ctx, kind, x, sizes, axis, out, out_sizes) -> None:
    lb = ctx.lb
    with _lines(ctx, x, axis, out_sizes) as (ivs, at):
        with lb.for_(lb.const(1), sizes[axis], inits=[at(lb.const(0)), lb.scalar_const(0, i64)]) as loop:
            v = at(loop.iv)
            best, where = loop.iter_args
            better = _better(ctx, kind, v, best)
            lb.yield_(loop, [lb.scalar("select", [better, v, best]),
                             lb.scalar("select", [better, lb.cast(loop.iv, i64), where])])
        lb.store(loop.results[1], out, ivs)
