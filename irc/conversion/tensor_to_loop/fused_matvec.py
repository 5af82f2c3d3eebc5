"""Loop lowering of `tensor.fused_matvec` (z = A·x, a row-wise body, out = alpha·Aᵀ·g + beta·y2):
one pass over the rows of A.

A's rows are cut into ROW_CHUNKS contiguous chunks, the outer dimension of one `loop.parallel`
(the thread pool gives each thread the same chunks at every call, so a thread re-reads rows
that are still in its own cache). Each chunk owns a row of partial sums part[c, :] (set to 0)
and one accumulator per reduced result, and walks its rows in blocks of BLOCK_ROWS:

* z[r] = A[r, :]·x for the block's rows in one reduction loop (one accumulator per row, each
  load of x[q] serving all of them), kept in a small buffer zg;
* the body for each row of the block, written out row by row (straight-line code, which the
  SLP vectorizer can widen across the rows; a loop of 4 trips stays scalar — kept only for a
  chunk's first block, to compile less): the elementwise results stored, the reductions
  carried, g written over z in zg;
* part[c, j] += g[r0]·A[r0, j] + ... + g[r3]·A[r3, j]: one load and store of part[c, j] per
  block, the block's rows read again while they are still in L1.

Software pipelining: the sum of a block and the dot products of the next one share one loop
over the columns, so the new rows stream in from memory while the cached ones are summed
(measured on the 400×784 float32 logistic-regression step, one thread: 21.2 µs instead of 22.4
with the two loops one after the other; writing the body out per row instead of as a loop
over the block's 4 rows saved another 1 to 2 µs). Rows left after the whole blocks (fewer
than BLOCK_ROWS per chunk) go one at a time. Then one parallel pass computes
out[j] = alpha·Σ_c part[c, j] + beta·y2[j], and each reduction combines its ROW_CHUNKS partial
values. A is read from memory once per call instead of twice.

`dot_rows`/`add_rows` are `gemv.py`'s kernels.
"""
from __future__ import annotations

from ...dialects.builtin import MemRefType, TensorType
from ...ir.core import Operation, Value
from ...ir.types import ScalarType
from ..loop_builder import Index, LoopBuilder
from .context import BY_ELEMENT, FuncLowering, lowering
from .gemv import GEMV_ROWS, ROW_CHUNKS, add_rows, dot_rows
from .linalg_common import Line, Load1, axpby, balanced_sum, line_of, named, vector
from .reduction_kinds import COMBINE, identity

BLOCK_ROWS = GEMV_ROWS  # rows per block: 4 accumulators sharing x; 4 rows per pass over part


def dot_and_add_rows(lb: LoopBuilder, row: Line, load_x: Load1, rows: list[Index], part: Value,
                     c: Index, done: list[Index], coef: Load1, k: Index, element: ScalarType) -> list[Value]:
    """`dot_rows` of `rows` and `add_rows` of the rows `done` in one loop over the columns."""
    lines = [row(r) for r in rows]
    weights = [coef(r) for r in done]
    cached = [row(r) for r in done]
    zero = lb.scalar_const(0, element)
    with lb.for_(lb.const(0), k, inits=[zero] * len(rows), reduction=True) as loop:
        j = named(loop, "j")
        xj = load_x(j)
        sums = [lb.scalar("add", [acc, lb.scalar("mul", [line(j), xj])])
                for line, acc in zip(lines, loop.iter_args)]
        terms = [lb.scalar("mul", [line(j), w]) for line, w in zip(cached, weights)]
        lb.store(lb.scalar("add", [lb.load(part, [c, j]), balanced_sum(lb, terms)]), part, [c, j])
        lb.yield_(loop, sums)
    return loop.results


@lowering("tensor.fused_matvec")
def _fused_matvec(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    acc = op.acc
    A, x = ctx.materialize(op.operand(0)), ctx.materialize(op.operand(1))
    y2 = ctx.materialize(acc) if acc is not None else None
    m, k = ctx.sizes_of(A)
    lb.assert_eq(k, ctx.sizes_of(x)[0], "'tensor.fused_matvec': inner dimensions differ")
    if y2 is not None:
        lb.assert_eq(k, ctx.sizes_of(y2)[0], "'tensor.fused_matvec': y2 differs from A's columns")
    rows = op.row_operands
    for i, v in enumerate(rows):
        if v.type.shape[0] != 1:
            lb.assert_eq(m, ctx.sizes_of(ctx.materialize(v))[0],
                         f"'tensor.fused_matvec': row operand #{i} differs from A's rows")
    element: ScalarType = op.operand(0).type.element
    n = op.num_elementwise
    outs = [ctx.alloc(r.type, [m]) for r in op.results[:n]]
    out_t: TensorType = op.out.type
    out = ctx.alloc(out_t, [k])
    k = ctx.sizes_of(out)[0]
    reduced = op.reduced_results
    kind = op.kind
    kinds = [r.type.element for r in reduced]
    P, B = lb.const(ROW_CHUNKS), lb.const(BLOCK_ROWS)
    zg = lb.alloc(MemRefType((None,), element), [m])
    zg.name_hint = "zg"
    part = lb.alloc(MemRefType((ROW_CHUNKS, None), element), [P, k])
    part.name_hint = "part"
    red = [lb.alloc(MemRefType((ROW_CHUNKS,), t), []) for t in kinds]
    row = line_of(lb, A, ctx.sizes_of(A), 1)
    load_x, load_g = vector(lb, x), vector(lb, zg)
    block = op.body

    def body(r: Index, accs: list[Value]) -> list[Value]:
        """The body at row r (z read from zg, g written back there); the new accumulators."""
        values = lb.inline(block, [lb.load(zg, [r])] + [ctx.broadcast_load(v, [r]) for v in rows])
        for v, buf in zip(values[:n], outs):
            lb.store(v, buf, [r])
        lb.store(values[-1], zg, [r])
        return [lb.scalar(COMBINE[kind], [a, v]) for a, v in zip(accs, values[n:-1])]

    def block_rows(first: Index) -> list[Index]:
        return [lb.add(first, lb.const(t)) for t in range(BLOCK_ROWS)]

    def store_z(rs: list[Index], zs: list[Value]) -> None:
        for r, z in zip(rs, zs):
            lb.store(z, zg, [r])

    def bodies(rs: list[Index], scope) -> None:
        """The bodies of rows `rs`, written out one after the other; yields the accumulators."""
        accs = scope.iter_args
        for r in rs:
            accs = body(r, accs)
        if kinds:
            lb.yield_(scope, accs)

    def body_loop(lo: Index, hi: Index, scope) -> None:
        """The bodies of rows [lo, hi) as a loop (once per chunk: less code to compile)."""
        with lb.for_(lo, hi, inits=scope.iter_args, reduction=bool(kinds)) as each:
            bodies([named(each, "r")], each)
        if kinds:
            lb.yield_(scope, each.results)

    chunk = lb.floordiv(lb.add(m, lb.const(ROW_CHUNKS - 1)), P)  # ceil(m / P) rows per chunk
    with lb.parallel([P]) as (c,):
        lo = lb.min(lb.mul(named(c, "c"), chunk), m)
        hi = lb.min(lb.add(lo, chunk), m)
        with lb.for_(lb.const(0), k) as j:
            lb.store(lb.scalar_const(0, element), part, [c, named(j, "j")])
        accs = [lb.scalar_const(identity(kind, t), t) for t in kinds]
        full = lb.add(lo, lb.mul(lb.floordiv(lb.sub(hi, lo), B), B))  # end of the whole blocks
        # the first whole block (a loop of 0 or 1 trip): its dot products, its bodies (a loop)
        with lb.for_(lo, lb.min(lb.add(lo, B), full), B, inits=accs) as first:
            r0 = named(first, "blk")
            rs = block_rows(r0)
            store_z(rs, dot_rows(lb, row, load_x, rs, k, element))
            body_loop(r0, lb.add(r0, B), first)
        # each next whole block: its dot products and the previous block's sum in one loop
        # over the columns, then its bodies
        with lb.for_(lb.add(lo, B), full, B, inits=first.results) as nxt:
            r0 = named(nxt, "blk")
            rs = block_rows(r0)
            store_z(rs, dot_and_add_rows(lb, row, load_x, rs, part, c, block_rows(lb.sub(r0, B)),
                                         load_g, k, element))
            bodies(rs, nxt)
        # the last whole block's sum (0 or 1 trip)
        with lb.for_(lb.max(lb.sub(full, B), lo), full, B) as last:
            add_rows(lb, part, c, block_rows(named(last, "blk")), row, load_g, (lb.const(0), k))
        # the rows after the whole blocks, one at a time
        with lb.for_(full, hi) as rest:
            r = named(rest, "r")
            store_z([r], dot_rows(lb, row, load_x, [r], k, element))
        with lb.for_(full, hi, inits=nxt.results, reduction=bool(kinds)) as tail:
            bodies([named(tail, "r")], tail)
        with lb.for_(full, hi) as rest:
            add_rows(lb, part, c, [named(rest, "r")], row, load_g, (lb.const(0), k))
        for buf, v in zip(red, tail.results):
            lb.store(v, buf, [c])
    with lb.parallel([k]) as (j,):
        total = lb.load(part, [lb.const(0), named(j, "j")])
        for p in range(1, ROW_CHUNKS):
            total = lb.scalar("add", [total, lb.load(part, [lb.const(p), j])])
        lb.store(axpby(lb, total, op.alpha, lb.load(y2, [j]) if y2 is not None else None, op.beta), out, [j])
    for r, buf in zip(reduced, red):
        v = lb.load(buf, [lb.const(0)])
        for p in range(1, ROW_CHUNKS):
            v = lb.scalar(COMBINE[kind], [v, lb.load(buf, [lb.const(p)])])
        ctx.scalars[r] = v
    for r, buf in zip(op.results[:n], outs):
        ctx.bind(r, buf, ctx.sizes_of(buf), contiguous=True)
    ctx.bind(op.out, out, [k], contiguous=True)


BY_ELEMENT.add("tensor.fused_matvec")  # row operands are read with `broadcast_load` (scalars allowed)
