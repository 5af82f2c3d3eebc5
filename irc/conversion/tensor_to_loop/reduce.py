"""Loop lowerings of reductions, shaped so that LLVM vectorizes the inner loop:

* a reduction over the innermost axis is a `loop.for` with an accumulator marked `reduction`
  (code generation gives the combining op `reassoc`);
* a reduction that keeps the innermost axis accumulates into the output row by row, so the
  inner loop runs along the contiguous axis with independent iterations; a sum over the rows
  of a matrix (`sum(axis=0)`) does so into private rows of partials per chunk of rows
  (`column_sums.py`), reading the matrix as it lies;
* `tensor.fused_reduce` computes its fused body where the reduction loads and stores its
  elementwise results from the same iteration (one pass);
* sums and products combine in `accumulator_type` (f32 for f16), rounded once at the end;
* over device buffers, both ops are the chunked, deterministic passes of `device_reduce.py`.
"""
from __future__ import annotations

from ...dialects import loop as L
from ...dialects.builtin import MemRefType, TensorType
from ...dialects.tensor_semantics import accumulator_type
from ...ir.core import Operation, Value
from ...ir.types import ScalarType
from ..loop_builder import Index, LoopBuilder
from .arg_reduce import arg_reduce
from .collapse_axes import Collapsed, collapse, merged_load, merged_view, operand_views
from .column_sums import column_sums
from .context import FuncLowering, inplace_target, lowering
from .device_epilogue import absorb_consumer
from .device_reduce import device_reduce
from .linalg_common import is_transposed, line_of, line_view, named
from .reduction_kinds import COMBINE, identity

# `_reduce_outer` splits the kept innermost axis into blocks of this many elements (the unit of
# parallel work; a block's slice of a row is contiguous)
OUTER_BLOCK = 256
# a reduction to numbers (`_reduce_in_parts`): its first axis in parts of at least this many
# elements (~10 µs of a sum), at most MAX_PARTS of them
PART_ELEMENTS = 1 << 15
MAX_PARTS = 64
@lowering("tensor.reduce")
def _reduce(ctx: FuncLowering, op: Operation) -> None:
    kind = op.attributes["kind"].value
    axes = tuple(op.attributes["axes"])
    x = ctx.operand(op, 0)
    rank = x.type.rank
    sizes = ctx.sizes_of(x)
    kept = [a for a in range(rank) if a not in axes]
    t: TensorType = op.results[0].type
    load = lambda idx: [ctx.lb.load(x, idx)]  # noqa: E731
    assert_not_empty(ctx, op, kind, sizes, axes)
    if t.device is not None and axes:
        out = ctx.alloc(t, [sizes[a] for a in kept])
        order = (1, 0) if rank == 2 and is_transposed(x) else None  # read in memory order
        if not kept and rank > 1 and x in ctx.contiguous:  # one number: one loop per thread
            x, axes, order = _flat(ctx, x, sizes), (0,), None
            sizes = ctx.sizes_of(x)
            load = lambda idx: [ctx.lb.load(x, idx)]  # noqa: E731
        ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)
        device_reduce(ctx, kind, sizes, axes, load, [out], x.type.element, order,
                      epilogue=absorb_consumer(ctx, op, [op.results[0]]))
        return
    if axes and not kept and kind in COMBINE:  # one number: held as a scalar (scalars.py)
        ctx.scalars[op.results[0]] = _reduce_inner(ctx, kind, load, rank, sizes, axes, kept,
                                                   [None], [t.element], [])[0]
        return
    out = ctx.alloc(t, [sizes[a] for a in kept])
    out_sizes = ctx.sizes_of(out)
    if not axes:
        ctx.copy(x, out, out_sizes)
    elif kind in ("argmax", "argmin"):
        arg_reduce(ctx, kind, x, sizes, axes[0], out, out_sizes)
    elif rank - 1 in axes:
        _reduce_inner(ctx, kind, load, rank, sizes, axes, kept, [out], [t.element], out_sizes)
    elif sums_rows(kind, axes, rank, [t.element]) and x.type.element == t.element and not is_transposed(x):
        column_sums(ctx, line_of(ctx.lb, x, sizes, 1), sizes[0], sizes[1], out, t.element, anchor=x)
    else:
        _reduce_outer(ctx, kind, load, rank, sizes, kept, [out], out_sizes)
    ctx.bind(op.results[0], out, out_sizes, contiguous=True)


def _flat(ctx: FuncLowering, x: Value, sizes: list[Index]) -> Value:
    """A contiguous buffer as a vector of all its elements."""
    lb = ctx.lb
    total = lb.const(1)
    for s in sizes:
        total = lb.mul(total, s)
    flat = lb.create(L.ReshapeOp, [x, total], {}, MemRefType((None,), x.type.element, device=x.type.device))
    ctx.sizes[flat] = [total]
    return flat


@lowering("tensor.fused_reduce")
def _fused_reduce(ctx: FuncLowering, op: Operation) -> None:
    """The reduction's loops with the fused body computed where `tensor.reduce` loads: one pass
    over the operands; the elementwise results are stored from the same iteration."""
    kind, axes = op.attributes["kind"].value, tuple(op.attributes["axes"])
    block = op.regions[0].blocks[0]
    rank = op.operand(0).type.rank
    n = op.num_elementwise
    sizes = ctx.broadcast_sizes(op, list(op.operands), rank)
    if n:
        sizes = ctx.result_sizes(op.results[0].type, sizes)
    assert_not_empty(ctx, op, kind, sizes, axes)
    kept = [a for a in range(rank) if a not in axes]
    elementwise = [inplace_target(ctx, op, j) or ctx.alloc(r.type, sizes)
                   for j, r in enumerate(op.results[:n])]
    elements = [r.type.element for r in op.results[n:]]
    on_device = op.results[-1].type.device is not None
    if kept or on_device:
        reduced = [ctx.alloc(r.type, [sizes[a] for a in kept]) for r in op.results[n:]]
        out_sizes = ctx.sizes_of(reduced[0])
    else:  # every axis reduced: the results are numbers, held as scalars (scalars.py)
        reduced, out_sizes = [None] * len(elements), []

    read = lambda v, idx: ctx.broadcast_load(v, idx)  # noqa: E731
    targets = elementwise
    merged = None if on_device else _merged_reduced_axes(ctx, op, elementwise, sizes, axes, kind, elements)
    if merged is not None:  # runs of reduced axes as one (N×C×12×12 summed over 0, 2, 3: N×C×144)
        views = operand_views(ctx, list(op.operands), merged)
        read = lambda v, idx: merged_load(ctx, v, idx, merged, views)  # noqa: E731
        targets = [merged_view(ctx, out, sizes, merged) for out in elementwise]
        axes = tuple(k for k, g in enumerate(merged.groups) if g[0] in axes)
        rank, sizes = len(merged.groups), merged.sizes
        kept = [a for a in range(rank) if a not in axes]

    def load(idx: list[Index]) -> list[Value]:
        values = ctx.lb.inline(block, [read(v, idx) for v in op.operands])
        for v, out in zip(values[:n], targets):
            ctx.lb.store(v, out, idx)
        return values[n:]

    if on_device:
        for r, out in zip(op.results[n:], reduced):  # (bound first: the epilogue reads their sizes)
            ctx.bind(r, out, out_sizes, contiguous=True)
        device_reduce(ctx, kind, sizes, axes, load, reduced, elements[0],
                      epilogue=absorb_consumer(ctx, op, list(op.results[n:])))
        values = [None] * len(reduced)
    elif rank - 1 in axes:
        values = _reduce_inner(ctx, kind, load, rank, sizes, axes, kept, reduced, elements, out_sizes)
    elif sums_rows(kind, axes, rank, elements):
        column_sums(ctx, _fused_rows(ctx, op, elementwise, sizes), sizes[0], sizes[1], reduced[0],
                    elements[0], anchor=_widest_operand(ctx, op))
        values = [None]
    else:
        _reduce_outer(ctx, kind, load, rank, sizes, kept, reduced, out_sizes)
        values = [None] * len(reduced)
    for r, out in zip(op.results, elementwise):
        ctx.bind(r, out, ctx.sizes_of(out), contiguous=True)
    for r, out, v in zip(op.results[n:], reduced, values):
        if out is None:
            ctx.scalars[r] = v
        else:
            ctx.bind(r, out, out_sizes, contiguous=True)


def _merged_reduced_axes(ctx: FuncLowering, op: Operation, elementwise: list[Value], sizes: list[Index],
                         axes: tuple[int, ...], kind: str, elements: list[ScalarType]) -> Collapsed | None:
    """Adjacent reduced axes that every operand reads alike, as one (`collapse_axes.py`); kept
    axes stay apart, so the reduced results keep their shape. None when nothing merges, or
    when the merged op would be `column_sums`' case (which reads the operands in their own shape)."""
    rank = len(sizes)
    apart = {i + 1 for i in range(rank - 1) if not (i in axes and i + 1 in axes)}
    merged = collapse(ctx, list(op.operands), elementwise, sizes, apart)
    if not merged.merges:
        return None
    new_axes = tuple(k for k, g in enumerate(merged.groups) if g[0] in axes)
    if sums_rows(kind, new_axes, len(merged.groups), elements):
        return None
    return merged


def _widest_operand(ctx: FuncLowering, op: Operation) -> Value | None:
    """The buffer of the first operand of a 2-d `fused_reduce` that is a whole matrix (not a
    row, a column or a number): the one whose alignment the column sums follow."""
    for v in op.operands:
        if v not in ctx.scalars and v.type.shape[0] != 1 and v.type.shape[1] != 1:
            return ctx.buf[v]
    return None


def _fused_rows(ctx: FuncLowering, op: Operation, elementwise: list[Value], sizes: list[Index]):
    """The rows of a 2-d `fused_reduce`'s body for `column_sums`: for row r, one-row views of
    the operands and of the elementwise results made before the loop along the row (as
    `line_of`: a unit-stride access LLVM vectorizes, not gathers); a column operand (n×1) is
    one load per row. Each element's body stores its elementwise results and gives the value
    summed."""
    lb = ctx.lb
    block = op.regions[0].blocks[0]
    zero = lb.const(0)

    def row(r: Index):
        reads: list = []
        for v in op.operands:
            if v in ctx.scalars:
                reads.append(lambda j, s=ctx.scalars[v]: s)
                continue
            at = zero if v.type.shape[0] == 1 else r
            buf = ctx.buf[v]
            if v.type.shape[1] == 1:
                value = lb.load(buf, [at, zero])
                reads.append(lambda j, value=value: value)
            else:
                view = line_view(lb, buf, ctx.sizes_of(buf), 1, at)
                reads.append(lambda j, view=view: lb.load(view, [zero, j]))
        outs = [line_view(lb, out, sizes, 1, r) for out in elementwise]

        def element(j: Index) -> Value:
            values = lb.inline(block, [read(j) for read in reads])
            for v, out in zip(values, outs):
                lb.store(v, out, [zero, j])
            return values[len(outs)]
        return element
    return row


def sums_rows(kind: str, axes: tuple[int, ...], rank: int, elements: list[ScalarType]) -> bool:
    """A float sum over the rows of a matrix, to one result: `column_sums`' case."""
    return kind == "sum" and axes == (0,) and rank == 2 and len(elements) == 1 and elements[0].is_float


def assert_not_empty(ctx: FuncLowering, op: Operation, kind: str, sizes: list[Index],
                     axes: tuple[int, ...]) -> None:
    """max, min and their arg forms have no identity: over no element they fail, as in numpy
    (never a silent -inf)."""
    if kind in ("sum", "prod") or not axes:
        return
    lb = ctx.lb
    count = lb.const(1)
    for a in axes:
        count = lb.mul(count, sizes[a])
    one = lb.const(1)
    lb.assert_eq(lb.min(count, one), one, f"'{op.op_name}': {kind} over an empty axis (it has no identity)")


def _reduce_inner(ctx, kind, load, rank, sizes, axes, kept, outs, elements, out_sizes) -> list:
    """Innermost axis reduced: one accumulator per output element (and per output, of type
    `elements[k]`), carried through the loops; `load(index)` gives one value per output. With
    every axis reduced (`kept` empty) the outputs are given as None and not stored: their
    values are returned (`_reduce_in_parts`)."""
    if not kept:
        return _reduce_in_parts(ctx, kind, load, rank, sizes, axes, elements)
    lb = ctx.lb
    with lb.parallel(out_sizes) as ivs:
        index = dict(zip(kept, ivs))
        inits = [lb.scalar_const(identity(kind, e), accumulator_type(kind, e)) for e in elements]
        results = _nest(lb, kind, load, rank, sizes, axes, index, inits)
        for result, e, out in zip(results, elements, outs):
            lb.store(lb.cast(result, e), out, ivs)
    return [None] * len(outs)


def _nest(lb: LoopBuilder, kind: str, load, rank: int, sizes: list[Index], axes: tuple[int, ...],
          index: dict[int, Index], accs: list[Value], first: tuple[Index, Index] | None = None) -> list[Value]:
    """The loops over `axes` in order (the first over `first` where given, else its whole
    size), carrying `accs` and combining `load(index)` into them; their final values."""
    def level(k: int, accs: list[Value]) -> list[Value]:
        axis = axes[k]
        lo, hi = first if (k == 0 and first is not None) else (lb.const(0), sizes[axis])
        with lb.for_(lo, hi, inits=accs, reduction=True) as loop:
            index[axis] = loop.iv
            if k + 1 < len(axes):
                values = level(k + 1, loop.iter_args)
            else:
                vs = load([index[a] for a in range(rank)])
                values = [lb.scalar(COMBINE[kind], [acc, lb.cast(v, acc.type)])
                          for acc, v in zip(loop.iter_args, vs)]
            lb.yield_(loop, values)
        return loop.results
    return level(0, accs)


def _reduce_in_parts(ctx, kind, load, rank, sizes, axes, elements) -> list[Value]:
    """Every axis reduced, to numbers: the first axis cut into parts of at least PART_ELEMENTS
    elements (at most MAX_PARTS), each reduced into a partial of its own in parallel, then the
    partials combined in order on the calling thread. The parts depend on the shape only, so
    the bits do not depend on the thread count. An input too small for two parts is one loop
    nest, as before, with no buffer and no dispatch (a `loop.if` on the part count)."""
    lb = ctx.lb
    one = lb.const(1)
    total = one
    for size in sizes:
        total = lb.mul(total, size)
    rows = sizes[axes[0]]
    parts = lb.max(one, lb.min(lb.min(lb.const(MAX_PARTS), lb.floordiv(total, lb.const(PART_ELEMENTS))), rows))
    acc_types = [accumulator_type(kind, e) for e in elements]

    def identities() -> list[Value]:
        return [lb.scalar_const(identity(kind, e), t) for e, t in zip(elements, acc_types)]

    def in_parts() -> list[Value]:
        per = lb.floordiv(lb.add(rows, lb.sub(parts, one)), parts)
        partials = [lb.alloc(MemRefType((None,), t), [parts]) for t in acc_types]
        for buf in partials:
            buf.name_hint = "partial"
        with lb.parallel([parts]) as (p,):
            lo = lb.min(lb.mul(named(p, "part"), per), rows)
            hi = lb.min(lb.add(lo, per), rows)
            for value, buf in zip(_nest(lb, kind, load, rank, sizes, axes, {}, identities(), (lo, hi)), partials):
                lb.store(value, buf, [p])
        with lb.for_(lb.const(0), parts, inits=identities()) as loop:
            lb.yield_(loop, [lb.scalar(COMBINE[kind], [acc, lb.load(buf, [loop.iv])])
                             for acc, buf in zip(loop.iter_args, partials)])
        return loop.results

    results = lb.if_else(lb.scalar("gt", [parts, one]), acc_types, in_parts,
                         lambda: _nest(lb, kind, load, rank, sizes, axes, {}, identities()))
    return [lb.cast(r, e) for r, e in zip(results, elements)]


def _reduce_outer(ctx, kind, load, rank, sizes, kept, outs, out_sizes) -> None:
    """Innermost axis kept: fill with the identity, then combine rows into the outputs in the
    input's order, so the inner loop walks them contiguously. The innermost axis is cut into
    blocks of OUTER_BLOCK elements, the parallel loop outermost over the blocks: every block
    owns its slice of the outputs, so threads never write the same element. An output whose
    accumulator type differs (f16 sums) is accumulated in a temporary, then rounded into it."""
    lb = ctx.lb
    accs = []
    for out in outs:
        acc_t = accumulator_type(kind, out.type.element)
        accs.append(out if acc_t == out.type.element else lb.alloc(MemRefType(out.type.shape, acc_t),
                                                                  out_sizes))
    with lb.parallel(out_sizes) as ivs:
        for acc in accs:
            element = acc.type.element
            lb.store(lb.scalar_const(identity(kind, element), element), acc, ivs)
    index: dict[int, Index] = {}
    inner = rank - 1
    width, block = sizes[inner], lb.const(OUTER_BLOCK)
    blocks = lb.floordiv(lb.add(width, lb.const(OUTER_BLOCK - 1)), block)

    def nest(axis: int, start: Index, stop: Index) -> None:
        if axis == rank:
            out_idx = [index[a] for a in kept]
            for v, acc in zip(load([index[a] for a in range(rank)]), accs):
                combined = lb.scalar(COMBINE[kind], [lb.load(acc, out_idx), lb.cast(v, acc.type.element)])
                lb.store(combined, acc, out_idx)
            return
        lo, hi = (start, stop) if axis == inner else (lb.const(0), sizes[axis])
        with lb.for_(lo, hi) as loop:
            index[axis] = loop.iv
            nest(axis + 1, start, stop)

    with lb.parallel([blocks]) as (blk,):
        start = lb.mul(blk, block)
        nest(0, start, lb.min(lb.add(start, block), width))
    for acc, out in zip(accs, outs):
        if acc is not out:
            with lb.parallel(out_sizes) as ivs:
                lb.store(lb.cast(lb.load(acc, ivs), out.type.element), out, ivs)


