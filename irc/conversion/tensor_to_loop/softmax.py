"""Loop lowerings of the softmax family (`tensor.softmax`, `log_softmax`, `softmax_grad`):
parallel over the rows (every axis but the last); per row, reduction loops (max, then the sum
of exp(x - max), storing the exponentials as it goes) and one loop writing the result, all over
a row that stays in L1 — one pass over the data per row, where the composition of primitives
would make a reduction, a broadcast and an elementwise pass over the whole matrix each. Over
device buffers, `device_softmax.py` (a warp per short row, long rows chunked over the grid)."""
from __future__ import annotations

from ...dialects.builtin import TensorType
from ...dialects.tensor_semantics import accumulator_type
from ...ir.core import Operation, Value
from ..loop_builder import Index
from .context import FuncLowering, lowering
from .device_softmax import device_softmax
from .reduction_kinds import identity


def _row_reduce(ctx: FuncLowering, kind: str, n: Index, value, element) -> Value:
    """The `kind` (max or add) of value(j) over j < n, a reduction loop that vectorizes; sums
    accumulate in `accumulator_type` (f32 for f16)."""
    lb = ctx.lb
    acc_t = element if kind == "maximum" else accumulator_type("sum", element)
    init = lb.scalar_const(identity("max" if kind == "maximum" else "sum", acc_t), acc_t)
    with lb.for_(lb.const(0), n, inits=[init], reduction=True) as loop:
        lb.yield_(loop, [lb.scalar(kind, [loop.iter_args[0], lb.cast(value(loop.iv), acc_t)])])
    return loop.results[0]


@lowering("tensor.softmax", "tensor.log_softmax", "tensor.softmax_grad")
def _softmax(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    t: TensorType = op.results[0].type
    bufs = [ctx.operand(op, i) for i in range(op.num_operands)]
    sizes = ctx.sizes_of(bufs[0])
    if op.num_operands == 2:
        for axis, (a, b) in enumerate(zip(sizes, ctx.sizes_of(bufs[1]))):
            lb.assert_eq(a, b, f"'{op.op_name}': the operands differ in size in dim {axis}")
    out = ctx.alloc(t, sizes)
    sizes = ctx.sizes_of(out)
    if t.device is not None:  # short rows a warp each, long ones chunked: device_softmax.py
        device_softmax(ctx, op, bufs, out)
    else:
        _by_rows(ctx, op, bufs, out, sizes[:-1])
    ctx.bind(op.results[0], out, sizes, contiguous=True)


def _by_rows(ctx: FuncLowering, op: Operation, bufs: list[Value], out: Value, row_sizes: list[Index]) -> None:
    """One parallel nest over the rows `row_sizes` (every axis but the last), each row in one
    pass."""
    lb = ctx.lb
    n, element = ctx.sizes_of(out)[-1], op.results[0].type.element
    with lb.parallel(row_sizes) as rows:
        def at(buf: Value):
            return lambda j: lb.load(buf, [*rows, j])
        x = at(bufs[0])
        if op.op_name == "tensor.softmax_grad":
            g, p = x, at(bufs[1])
            s = _row_reduce(ctx, "add", n, lambda j: lb.scalar("mul", [g(j), p(j)]), element)
            wide = s.type
            with lb.for_(lb.const(0), n) as j:
                d = lb.scalar("mul", [lb.scalar("sub", [lb.cast(g(j.iv), wide), s]), lb.cast(p(j.iv), wide)])
                lb.store(lb.cast(d, element), out, [*rows, j.iv])
        else:
            _softmax_row(ctx, op.op_name == "tensor.log_softmax", x, out, rows, n, element)


def _softmax_row(ctx: FuncLowering, log: bool, x, out: Value, rows: list[Index], n: Index,
                 element) -> None:
    """One row of softmax (or log_softmax) of x into out."""
    lb = ctx.lb
    top = _row_reduce(ctx, "maximum", n, x, element)

    def shifted_exp(j: Index) -> Value:
        return lb.scalar("exp", [lb.scalar("sub", [x(j), top])])
    if log:
        s = _row_reduce(ctx, "add", n, shifted_exp, element)
        wide = s.type
        shift = lb.scalar("add", [lb.cast(top, wide), lb.scalar("log", [s])])
        with lb.for_(lb.const(0), n) as j:
            lb.store(lb.cast(lb.scalar("sub", [lb.cast(x(j.iv), wide), shift]), element), out, [*rows, j.iv])
    else:
        def exp_stored(j: Index) -> Value:
            e = shifted_exp(j)
            lb.store(e, out, [*rows, j])
            return e
        s = _row_reduce(ctx, "add", n, exp_stored, element)
        inv = lb.scalar("div", [lb.scalar_const(1, s.type), s])
        with lb.for_(lb.const(0), n) as j:
            idx = [*rows, j.iv]
            lb.store(lb.cast(lb.scalar("mul", [lb.cast(lb.load(out, idx), s.type), inv]), element), out, idx)
