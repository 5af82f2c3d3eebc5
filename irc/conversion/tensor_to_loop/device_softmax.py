"""The softmax family over device buffers (`tensor.softmax`, `log_softmax`, `softmax_grad`):
a short row (at most `SHORT_ROW` items: 10 classes) is one thread's, statistics in registers,
one launch; a longer one has its statistics by the deterministic reduction passes of
`device_reduce.py`, then one elementwise nest writing the result. Both are compiled; the
sizes choose when the call is planned (the other way's launches have no work).

One thread per row is what the host lowering does (`softmax.py`, a row in L1): fine for 10
classes, idle SMs for 1000 long rows. A long row's max and its sum of exponentials are chunked
like any reduction keeping the leading axes (many threads per row), so every shape fills the
device; the cost is a pass over the data per statistic (max, Σ exp(x - max), then the store: up
to 5 launches; `softmax_grad`: Σ g·p, then the store: 3). The chunk counts depend on the sizes only:
the results are the same bits on every run. Sums of f16 accumulate in f32, as on the host."""
from __future__ import annotations

from typing import Callable

from ...dialects.builtin import MemRefType, TensorType
from ...dialects.tensor_semantics import accumulator_type
from ...ir.core import Operation, Value
from ...ir.types import ScalarType
from ..loop_builder import Index
from .context import FuncLowering
from .device_reduce import Reducer, device_reduce

SHORT_ROW = 64  # items of a row up to which one thread does the whole row (10 classes: one launch)


def device_softmax(ctx: FuncLowering, op: Operation, bufs: list[Value], out: Value) -> None:
    """Fill device buffer `out` with `op`'s result from its operands' buffers `bufs`: rows of at
    most `SHORT_ROW` items one thread each, longer ones chunked (the other way's launches then
    have no work and are dropped)."""
    lb = ctx.lb
    sizes = ctx.sizes_of(out)
    one = lb.const(1)
    short = lb.sub(one, lb.min(one, lb.floordiv(sizes[-1], lb.const(SHORT_ROW + 1))))
    _short_rows(ctx, op, bufs, out, short)
    _chunked_rows(ctx, op, bufs, out, lb.sub(one, short))


def _short_rows(ctx: FuncLowering, op: Operation, bufs: list[Value], out: Value, active: Index) -> None:
    """One thread per row: its statistics in registers, then its results (one launch)."""
    lb = ctx.lb
    t: TensorType = op.results[0].type
    sizes = ctx.sizes_of(out)
    wide = accumulator_type("sum", t.element)
    rows = sizes[:-1] or [lb.const(1)]  # (a vector: one row)
    rows = [lb.mul(rows[0], active)] + rows[1:]
    zero = lb.const(0)

    def over_row(red: Reducer, item: Callable[[Index], Value]) -> Value:
        with lb.for_(zero, sizes[-1], inits=red.identity(lb)) as loop:
            lb.yield_(loop, red.combine(lb, list(loop.iter_args), [item(loop.iv)]))
        return red.results(lb, list(loop.results))[0]

    with lb.parallel(rows) as ivs:
        row = ivs if len(sizes) > 1 else []
        x = lambda j: lb.load(bufs[0], row + [j])  # noqa: E731
        if op.op_name == "tensor.softmax_grad":
            p = lambda j: lb.load(bufs[1], row + [j])  # noqa: E731
            s = over_row(Reducer("sum", [wide], wide), lambda j: lb.cast(lb.scalar("mul", [x(j), p(j)]), wide))
            value = lambda j: lb.scalar("mul", [lb.scalar("sub", [lb.cast(x(j), wide), s]),  # noqa: E731
                                                lb.cast(p(j), wide)])
        else:
            top = over_row(Reducer("max", [t.element], t.element), x)
            shifted = lambda j: lb.scalar("exp", [lb.scalar("sub", [x(j), top])])  # noqa: E731
            s = over_row(Reducer("sum", [wide], wide), lambda j: lb.cast(shifted(j), wide))
            if op.op_name == "tensor.log_softmax":
                shift = lb.scalar("add", [lb.cast(top, wide), lb.scalar("log", [s])])
                value = lambda j: lb.scalar("sub", [lb.cast(x(j), wide), shift])  # noqa: E731
            else:
                value = lambda j: lb.scalar("div", [lb.cast(shifted(j), wide), s])  # noqa: E731
        with lb.for_(zero, sizes[-1]) as loop:
            lb.store(lb.cast(value(loop.iv), t.element), out, row + [loop.iv])
            lb.yield_(loop, [])


def _chunked_rows(ctx: FuncLowering, op: Operation, bufs: list[Value], out: Value, active: Index) -> None:
    """Rows' statistics by the reduction passes, then one elementwise nest writing `out`."""
    lb = ctx.lb
    t: TensorType = op.results[0].type
    sizes = ctx.sizes_of(out)
    last = len(sizes) - 1
    element = t.element
    wide = accumulator_type("sum", element)

    def at(buf: Value) -> Callable[[list[Index]], Value]:
        return lambda idx: lb.load(buf, idx)

    def per_row(kind: str, item: Callable[[list[Index]], Value], dtype: ScalarType) -> Value:
        stats = _row_buffer(ctx, sizes[:-1], dtype, t.device)
        device_reduce(ctx, kind, sizes, [last], lambda idx: [item(idx)], [stats], dtype, active=active)
        return stats

    gated = [lb.mul(sizes[0], active)] + sizes[1:]  # the store nests: no thread when inactive

    x = at(bufs[0])
    if op.op_name == "tensor.softmax_grad":
        g, p = x, at(bufs[1])
        s = per_row("sum", lambda idx: lb.cast(lb.scalar("mul", [g(idx), p(idx)]), wide), wide)
        with lb.parallel(gated) as idx:
            d = lb.scalar("sub", [lb.cast(g(idx), wide), lb.load(s, idx[:-1])])
            lb.store(lb.cast(lb.scalar("mul", [d, lb.cast(p(idx), wide)]), element), out, idx)
        return
    top = per_row("max", x, element)

    def shifted_exp(idx: list[Index]) -> Value:
        return lb.scalar("exp", [lb.scalar("sub", [x(idx), lb.load(top, idx[:-1])])])

    s = per_row("sum", lambda idx: lb.cast(shifted_exp(idx), wide), wide)
    with lb.parallel(gated) as idx:
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
