"""The softmax family over device buffers (`tensor.softmax`, `log_softmax`, `softmax_grad`).

Rows of up to `SHORT_ROW` elements (10 classes) take a warp each, in one kernel (`_warp_rows`):
lane k reads the row's elements k, k + 32, ... (one load instruction reads a whole short row), a
butterfly of `gpu.shuffle_xor` gives every lane the row's max, then its sum of exponentials
(each step combines two states symmetrically: the same bits in every lane, on every run), and
each lane stores its own elements. (A thread per row, the host lowering's nest, read its 10
classes one after another, three times over: each load waited for by the next step.) A row
reduction reading the result runs in the same kernel (`softmax_row_reader.py`). Longer rows
would take many rounds per lane, so their max and sum of exponentials are chunked like any
reduction keeping the leading axes (`device_reduce.py`: many threads per long row), then one
elementwise nest stores the result: a pass over the data per statistic (max, Σ exp(x - max),
the store: 5 launches; `softmax_grad`: Σ g·p, the store: 3). Where the row length is known only
at run time both are emitted and the host plan launches one of them. The chunk counts depend on
the sizes only: the results are the same bits on every run. Sums of f16 accumulate in f32, as
on the host."""
from __future__ import annotations

from typing import Callable

from ...dialects import gpu as G
from ...dialects.builtin import MemRefType, TensorType
from ...dialects.tensor_semantics import accumulator_type
from ...ir.core import Operation, Value
from ...ir.types import ScalarType, i64
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering
from .device_reduce import Reducer, device_reduce
from .softmax_row_reader import RowReader, row_reader


# rows up to this long take a warp each (one kernel); longer ones are chunked by the reduction
# passes
SHORT_ROW = 64


def device_softmax(ctx: FuncLowering, op: Operation, bufs: list[Value], out: Value) -> None:
    """Fill device buffer `out` with `op`'s result from its operands' buffers `bufs`: short
    rows a warp each, long ones the chunked passes. Where the row length is only known at run
    time both are emitted, each over a first axis cut to 0 rows by index arithmetic when the
    other applies: the host plan then drops the launches that have no work."""
    lb = ctx.lb
    sizes = ctx.sizes_of(out)
    ctx.bind(op.results[0], out, sizes, contiguous=True)  # (the reader's sizes are checked against it)
    found = row_reader(ctx, op)
    reader = RowReader(ctx, op, found, sizes) if found is not None else None
    if len(sizes) < 2:  # one row: chunked
        _chunked(ctx, op, bufs, out, sizes)
        return
    n = sizes[-1]
    known = lb.static_value(n)
    if known is not None:
        if known <= SHORT_ROW:
            _warp_rows(ctx, op, bufs, out, sizes[:-1], reader)
        else:
            _chunked(ctx, op, bufs, out, sizes, reader)
        return
    zero, one = lb.const(0), lb.const(1)
    short = lb.min(lb.max(lb.sub(lb.const(SHORT_ROW + 1), n), zero), one)  # 1 when n <= SHORT_ROW
    _warp_rows(ctx, op, bufs, out, [lb.mul(sizes[0], short), *sizes[1:-1]], reader)
    _chunked(ctx, op, bufs, out, [lb.mul(sizes[0], lb.sub(one, short)), *sizes[1:]], reader)


def _warp_rows(ctx: FuncLowering, op: Operation, bufs: list[Value], out: Value, rows: list[Index],
               reader: RowReader | None) -> None:
    """The rows `rows` of `out` (every axis but the last; the first may be cut to none), a warp
    each (see the module doc), and `reader`'s results over them."""
    lb = ctx.lb
    t: TensorType = op.results[0].type
    element, n = t.element, ctx.sizes_of(out)[-1]
    wide = accumulator_type("sum", element)
    lanes = lb.const(G.WARP_SIZE)
    with lb.parallel([*rows, lanes]) as ivs:
        row, lane = ivs[:-1], ivs[-1]

        def at(buf: Value):
            return lambda j: lb.load(buf, [*row, j])

        def over_row(kind: str, dtype: ScalarType, item) -> Value:
            return _over_warp(lb, Reducer(kind, [dtype], dtype), n, lane, item)

        def store_each(value) -> None:
            if reader is None:
                with lb.for_(lane, n, lanes) as loop:
                    lb.store(lb.cast(value(loop.iv), element), out, [*row, loop.iv])
                return
            red = reader.reducer
            with lb.for_(lane, n, lanes, inits=red.identity(lb)) as loop:
                v = lb.cast(value(loop.iv), element)
                lb.store(v, out, [*row, loop.iv])
                lb.yield_(loop, red.combine(lb, loop.iter_args, reader.items([*row, loop.iv], v)))
            results = red.results(lb, _butterfly(lb, red, loop.results))
            with lb.when(lb.scalar("eq", [lb.cast(lane, i64), lb.scalar_const(0, i64)])):
                reader.store(row, results)

        x = at(bufs[0])
        if op.op_name == "tensor.softmax_grad":
            g, p = x, at(bufs[1])
            s = over_row("sum", wide, lambda j: lb.cast(lb.scalar("mul", [g(j), p(j)]), wide))
            store_each(lambda j: lb.scalar("mul", [lb.scalar("sub", [lb.cast(g(j), wide), s]), lb.cast(p(j), wide)]))
            return
        top = over_row("max", element, x)

        def shifted_exp(j: Index) -> Value:
            return lb.scalar("exp", [lb.scalar("sub", [x(j), top])])

        s = over_row("sum", wide, lambda j: lb.cast(shifted_exp(j), wide))
        if op.op_name == "tensor.log_softmax":
            shift = lb.scalar("add", [lb.cast(top, wide), lb.scalar("log", [s])])
            store_each(lambda j: lb.scalar("sub", [lb.cast(x(j), wide), shift]))
        else:
            inv = lb.scalar("div", [lb.scalar_const(1, wide), s])
            store_each(lambda j: lb.scalar("mul", [lb.cast(shifted_exp(j), wide), inv]))


def _over_warp(lb: LoopBuilder, red: Reducer, n: Index, lane: Index, item) -> Value:
    """`red` over item(j) for j = lane, lane + 32, ... < n in order, then over the warp's lanes
    by a butterfly of shuffles: every lane holds the same bits."""
    with lb.for_(lane, n, lb.const(G.WARP_SIZE), inits=red.identity(lb)) as loop:
        lb.yield_(loop, red.combine(lb, loop.iter_args, [item(loop.iv)]))
    return _butterfly(lb, red, loop.results)[0]


def _butterfly(lb: LoopBuilder, red: Reducer, state: list[Value]) -> list[Value]:
    """`state` combined over the warp's lanes, each step symmetric: every lane holds the same bits."""
    offset = G.WARP_SIZE // 2
    while offset:
        state = red.combine(lb, state, [lb.create(G.ShuffleXorOp, [v, lb.const(offset)], {}, v.type) for v in state])
        offset //= 2
    return state


def _chunked(ctx: FuncLowering, op: Operation, bufs: list[Value], out: Value, sizes: list[Index],
             reader: RowReader | None = None) -> None:
    """Rows `sizes[:-1]` of `out` by the reduction passes (max, Σ exp), then one store; then
    `reader`'s results over those rows, one device reduction over the stored result."""
    _chunked_rows(ctx, op, bufs, out, sizes)
    if reader is not None:
        lb = ctx.lb
        device_reduce(ctx, reader.reducer.kind, sizes, [len(sizes) - 1],
                      lambda idx: reader.items(idx, lb.load(out, idx)), reader.reduced, reader.reducer.elements[0])


def _chunked_rows(ctx: FuncLowering, op: Operation, bufs: list[Value], out: Value, sizes: list[Index]) -> None:
    lb = ctx.lb
    t: TensorType = op.results[0].type
    last = len(sizes) - 1
    element = t.element
    wide = accumulator_type("sum", element)

    def at(buf: Value) -> Callable[[list[Index]], Value]:
        return lambda idx: lb.load(buf, idx)

    def per_row(kind: str, item: Callable[[list[Index]], Value], dtype: ScalarType) -> Value:
        stats = _row_buffer(ctx, sizes[:-1], dtype, t.device)
        device_reduce(ctx, kind, sizes, [last], lambda idx: [item(idx)], [stats], dtype)
        return stats

    x = at(bufs[0])
    if op.op_name == "tensor.softmax_grad":
        g, p = x, at(bufs[1])
        s = per_row("sum", lambda idx: lb.cast(lb.scalar("mul", [g(idx), p(idx)]), wide), wide)
        with ctx.nest(sizes, t.device) as idx:
            d = lb.scalar("sub", [lb.cast(g(idx), wide), lb.load(s, idx[:-1])])
            lb.store(lb.cast(lb.scalar("mul", [d, lb.cast(p(idx), wide)]), element), out, idx)
        return
    top = per_row("max", x, element)

    def shifted_exp(idx: list[Index]) -> Value:
        return lb.scalar("exp", [lb.scalar("sub", [x(idx), lb.load(top, idx[:-1])])])

    s = per_row("sum", lambda idx: lb.cast(shifted_exp(idx), wide), wide)
    with ctx.nest(sizes, t.device) as idx:
        row = idx[:-1]
        if op.op_name == "tensor.log_softmax":
            shift = lb.scalar("add", [lb.cast(lb.load(top, row), wide), lb.scalar("log", [lb.load(s, row)])])
            value = lb.scalar("sub", [lb.cast(x(idx), wide), shift])
        else:
            value = lb.scalar("div", [lb.cast(shifted_exp(idx), wide), lb.load(s, row)])
        lb.store(lb.cast(value, element), out, idx)


def _row_buffer(ctx: FuncLowering, rows: list[Index], dtype: ScalarType, device: str | None) -> Value:
    """A device buffer of one value per row (rank 0 for a vector's one row)."""
    m = ctx.lb.alloc(MemRefType((None,) * len(rows), dtype, device=device), rows)
    m.name_hint = "row_stats"
    ctx.sizes[m] = list(rows)
    ctx.contiguous.add(m)
    return m
