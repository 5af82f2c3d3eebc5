"""Loop kernels of matrix-vector products, out[i] = alpha·Σ_q M[i,q]·x[q] + beta·y[i], one per
layout of the matrix (`linalg.py` picks):

* `row_dots` — M's rows are contiguous (A·x): each iteration of the parallel loop takes
  GEMV_ROWS rows and walks them together in one reduction loop with one accumulator per row,
  so every load of x[q] serves several multiply-adds (a single dot product per row is
  load-bound: two loads per multiply-add).
* `combine_rows` — M's columns are contiguous (Aᵀ·x, the gradient of X·w; x·B): out is a
  combination of the rows of X = Mᵀ. A sequential `out[j] += X[r,j]·x[r]` sweep is bound by the
  load and store of out[j] and cannot be split over threads, so X's rows (the reduction) are cut
  into ROW_CHUNKS contiguous chunks, each summed into a private row of a ROW_CHUNKS×n buffer of
  partials (in parallel, nothing shared), ROWS_PER_STEP rows of X per pass over the row of
  partials (unroll-and-jam: one load and store of part[c, j] per several products); then one
  parallel pass adds the partials.
"""
from __future__ import annotations

from ...dialects.builtin import MemRefType
from ...ir.core import Value
from ...ir.types import ScalarType
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering
from .linalg_common import Line, Load1, axpby, balanced_sum, named

GEMV_ROWS = 4       # rows of M per reduction loop in `row_dots` (accumulators sharing x[q])
ROW_CHUNKS = 8      # chunks of X's rows in `combine_rows`: its parallel width
ROWS_PER_STEP = 4   # rows of X combined per pass over a row of partials


# ---------------------------------------------------------------------------- rows of M · x
def row_dots(ctx: FuncLowering, row: Line, load_x: Load1, m: Index, k: Index, out: Value,
             element: ScalarType, alpha: float, load_y: Load1 | None, beta: float) -> None:
    """out[i] = alpha·Σ_q M[i,q]·x[q] (+ beta·y[i]) for i < m: a parallel loop over the m div
    GEMV_ROWS full blocks of rows, then one over the rows left (fewer than GEMV_ROWS, one at a
    time). Every loop bound is known before the loops, so the thread pool's work estimate is
    exact (the second loop is usually too small to be split: it stays on the calling thread)."""
    lb = ctx.lb
    R = lb.const(GEMV_ROWS)
    blocks = lb.floordiv(m, R)
    with lb.parallel([blocks]) as (blk,):
        first = lb.mul(named(blk, "blk"), R)
        _dot_rows(ctx, [lb.add(first, lb.const(t)) for t in range(GEMV_ROWS)], row, load_x, k,
                  out, element, alpha, load_y, beta)
    done = lb.mul(blocks, R)
    rest = lb.sub(m, done)
    if lb.static_value(rest) != 0:
        with lb.parallel([rest]) as (t,):
            _dot_rows(ctx, [lb.add(done, named(t, "t"))], row, load_x, k, out, element, alpha, load_y, beta)


def dot_rows(lb: LoopBuilder, row: Line, load_x: Load1, rows: list[Index], k: Index,
             element: ScalarType) -> list[Value]:
    """Σ_q M[r, q]·x[q] for each of `rows`, in one reduction loop (one accumulator per row)."""
    lines = [row(r) for r in rows]
    zero = lb.scalar_const(0, element)
    with lb.for_(lb.const(0), k, inits=[zero] * len(rows), reduction=True) as loop:
        xq = load_x(named(loop, "q"))
        lb.yield_(loop, [lb.scalar("add", [acc, lb.scalar("mul", [line(loop.iv), xq])])
                         for line, acc in zip(lines, loop.iter_args)])
    return loop.results


def _dot_rows(ctx: FuncLowering, rows: list[Index], row: Line, load_x: Load1, k: Index,
              out: Value, element: ScalarType, alpha: float, load_y: Load1 | None, beta: float) -> None:
    """`dot_rows`, stored as out[r] = alpha·sum + beta·y[r]."""
    lb = ctx.lb
    for r, acc in zip(rows, dot_rows(lb, row, load_x, rows, k, element)):
        lb.store(axpby(lb, acc, alpha, load_y(r) if load_y else None, beta), out, [r])


# ---------------------------------------------------------------------------- x · rows of X
def combine_rows(ctx: FuncLowering, row: Line, coef: Load1, k: Index, n: Index, out: Value,
                 element: ScalarType, alpha: float, load_y: Load1 | None, beta: float) -> None:
    """out[j] = alpha·Σ_{r<k} coef[r]·X[r,j] (+ beta·y[j]) for j < n, through ROW_CHUNKS rows of
    partial sums (see the module docstring).

    Why chunks of X's *rows*: the thread pool splits the outermost parallel loop into equal
    contiguous ranges, one per thread, so each thread sums the same contiguous part of X's rows
    that it read in the forward product X·w (also parallel over rows, in `row_dots`): that part
    is still in its own L2 cache. Chunks past the end of X (k < ROW_CHUNKS) stay zero."""
    lb = ctx.lb
    P = lb.const(ROW_CHUNKS)
    part = lb.alloc(MemRefType((ROW_CHUNKS, None), element), [P, n])
    part.name_hint = "part"
    chunk = lb.floordiv(lb.add(k, lb.const(ROW_CHUNKS - 1)), P)  # ceil(k / P) rows per chunk
    with lb.parallel([P]) as (c,):
        lo = lb.min(lb.mul(named(c, "c"), chunk), k)
        hi = lb.min(lb.add(lo, chunk), k)
        with lb.for_(lb.const(0), n) as j:
            lb.store(lb.scalar_const(0, element), part, [c, named(j, "j")])
        U = lb.const(ROWS_PER_STEP)
        stepped = lb.add(lo, lb.mul(lb.floordiv(lb.sub(hi, lo), U), U))
        with lb.for_(lo, stepped, U) as step:
            first = named(step, "r")
            add_rows(lb, part, c, [lb.add(first, lb.const(u)) for u in range(ROWS_PER_STEP)], row,
                     coef, (lb.const(0), n))
        with lb.for_(stepped, hi) as last:
            add_rows(lb, part, c, [named(last, "r")], row, coef, (lb.const(0), n))
    with lb.parallel([n]) as (j,):
        total = lb.load(part, [lb.const(0), named(j, "j")])
        for p in range(1, ROW_CHUNKS):
            total = lb.scalar("add", [total, lb.load(part, [lb.const(p), j])])
        lb.store(axpby(lb, total, alpha, load_y(j) if load_y else None, beta), out, [j])


def add_rows(lb: LoopBuilder, part: Value, c: Index, rows: list[Index], row: Line,
             coef: Load1 | None, columns: tuple[Index, Index], split: Index | None = None) -> None:
    """part[c, j] += Σ_r coef[r]·X[r, j] over `rows` (just Σ_r X[r, j] without coef), for j in
    the range `columns`, in one pass over the row of partials — in two loops where `split`
    (within the range) is given: each column's sum is the same either way."""
    weights = [coef(r) for r in rows] if coef is not None else [None] * len(rows)
    lines = [row(r) for r in rows]
    lo, hi = columns
    for bounds in ((lo, hi),) if split is None else ((lo, split), (split, hi)):
        with lb.for_(*bounds) as loop:
            j = named(loop, "j")
            total = balanced_sum(lb, [line(j) if w is None else lb.scalar("mul", [line(j), w])
                                      for line, w in zip(lines, weights)])
            lb.store(lb.scalar("add", [lb.load(part, [c, j]), total]), part, [c, j])
