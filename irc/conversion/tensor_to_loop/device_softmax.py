"""The softmax family over device buffers (`tensor.softmax`, `log_softmax`, `softmax_grad`):
the rows' statistics by the deterministic reduction passes of `device_reduce.py`, then one
elementwise nest writing the result.

The host lowering (`softmax.py`: one thread per row, a row in L1) would leave a GPU with one
thread per row — fine for 10 classes, idle SMs for 1000 long rows. Here a row's max and its sum
of exponentials are chunked like any reduction keeping the leading axes (many threads per long
row, one per short row), so every shape fills the device; the cost is a pass over the data per
statistic (max, Σ exp(x - max), then the store: 5 launches; `softmax_grad`: Σ g·p, then the
store: 3) where one row-per-thread kernel makes 1. The chunk counts depend on the sizes only:
the results are the same bits on every run. Sums of f16 accumulate in f32, as on the host."""
from __future__ import annotations

from typing import Callable

from ...dialects.builtin import MemRefType, TensorType
from ...dialects.tensor_semantics import accumulator_type
from ...ir.core import Operation, Value
from ...ir.types import ScalarType
from ..loop_builder import Index
from .context import FuncLowering
from .device_reduce import device_reduce


def device_softmax(ctx: FuncLowering, op: Operation, bufs: list[Value], out: Value) -> None:
    """Fill device buffer `out` with `op`'s result from its operands' buffers `bufs`."""
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
