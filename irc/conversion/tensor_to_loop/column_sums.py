"""Sums over the rows of a row-major matrix (`sum(axis=0)`: every bias gradient is one) at
memory speed.

Summing column by column, or a block of columns at a time down all the rows, walks the matrix
across its rows: short contiguous runs and a load and store of the output per element. Here
the matrix is read as it lies, whole rows at a time: its rows are cut into `chunks` contiguous
chunks, each summed into a private row of partial sums (ROWS_PER_STEP rows per pass over that
row: one load and store of a partial per several elements, vectorized along the row), in
parallel over (chunk, block of COLUMN_BLOCK columns) — a task's slice of a row of partials
stays in L1. Then one pass adds the chunks' partials, in chunk order, and rounds them into the
output (f16 sums accumulate in f32). The chunking depends on the number of rows only, so the
result is bit-identical for any thread count.
"""
from __future__ import annotations

from ...dialects.builtin import MemRefType
from ...dialects.tensor_semantics import accumulator_type
from ...ir.core import Value
from ...ir.types import ScalarType
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering
from .gemv import ROWS_PER_STEP, add_rows
from .linalg_common import Line, named

COLUMN_BLOCK = 4096   # columns per parallel task (16 KiB of f32 partials)
MIN_CHUNK_ROWS = 64   # rows per chunk at least: fewer rows are not worth a row of partials
MAX_CHUNKS = 16       # chunks of rows at most: the parallel width along the rows


def column_sums(ctx: FuncLowering, row: Line, k: Index, n: Index, out: Value,
                element: ScalarType, anchor: Value | None = None) -> None:
    """out[j] = Σ_{r<k} X[r, j] for j < n, `row(r)` giving the loads of X's row r; the partials
    are kept in the sum's `accumulator_type` (f32 for f16) and rounded once into out. Where
    `anchor` (the k×n buffer read most) is given, each pass over rows splits its columns where
    the anchor's first row of the pass reaches a 64-byte address (`loop.align_gap`), so the
    vector loop after the split reads whole cache lines."""
    lb = ctx.lb
    one = lb.const(1)
    acc_t = accumulator_type("sum", element)
    chunks = lb.max(one, lb.min(lb.const(MAX_CHUNKS), lb.floordiv(k, lb.const(MIN_CHUNK_ROWS))))
    per_chunk = lb.floordiv(lb.add(k, lb.sub(chunks, one)), chunks)
    blocks = lb.floordiv(lb.add(n, lb.const(COLUMN_BLOCK - 1)), lb.const(COLUMN_BLOCK))
    part = lb.alloc(MemRefType((None, None), acc_t), [chunks, n])
    part.name_hint = "part"
    zero = lb.scalar_const(0, acc_t)

    def widened(r: Index):
        line = row(r)
        return lambda j: lb.cast(line(j), acc_t)

    with lb.parallel([lb.mul(chunks, blocks)]) as (task,):
        c = lb.floordiv(named(task, "task"), blocks)
        b = lb.sub(task, lb.mul(c, blocks))
        lo = lb.min(lb.mul(c, per_chunk), k)
        hi = lb.min(lb.add(lo, per_chunk), k)
        j0 = lb.mul(b, lb.const(COLUMN_BLOCK))
        columns = (j0, lb.min(lb.add(j0, lb.const(COLUMN_BLOCK)), n))
        with lb.for_(*columns) as j:
            lb.store(zero, part, [c, named(j, "j")])
        U = lb.const(ROWS_PER_STEP)
        stepped = lb.add(lo, lb.mul(lb.floordiv(lb.sub(hi, lo), U), U))
        with lb.for_(lo, stepped, U) as step:
            first = named(step, "r")
            add_rows(lb, part, c, [lb.add(first, lb.const(u)) for u in range(ROWS_PER_STEP)],
                     widened, None, columns, aligned_split(lb, anchor, first, columns))
        with lb.for_(stepped, hi) as last:
            r = named(last, "r")
            add_rows(lb, part, c, [r], widened, None, columns, aligned_split(lb, anchor, r, columns))
    first_chunk = lb.const(0)
    with lb.parallel([blocks]) as (b,):
        j0 = lb.mul(named(b, "b"), lb.const(COLUMN_BLOCK))
        columns = (j0, lb.min(lb.add(j0, lb.const(COLUMN_BLOCK)), n))
        with lb.for_(one, chunks) as c:
            with lb.for_(*columns) as j:
                idx = [first_chunk, named(j, "j")]
                lb.store(lb.scalar("add", [lb.load(part, idx), lb.load(part, [named(c, "c"), j.iv])]),
                         part, idx)
        with lb.for_(*columns) as j:
            lb.store(lb.cast(lb.load(part, [first_chunk, named(j, "j")]), element), out, [j.iv])


def aligned_split(lb: LoopBuilder, anchor: Value | None, r: Index, columns: tuple[Index, Index]) -> Index | None:
    """The first column of `columns` whose element of row r of `anchor` lies on a 64-byte
    address (the range's start where no element can, its end where it is shorter); None
    without an anchor."""
    if anchor is None:
        return None
    j0, j1 = columns
    return lb.min(lb.add(j0, lb.align_gap(anchor, [r, j0])), j1)
