"""Device tensors whose every element is one number the host knows: no buffer, no kernel.

The gradient of a mean over a batch is `1/n` broadcast to the batch, then cast, negated and
reshaped on its way to the softmax's gradient: elementwise ops and views of a number computed
from a size. On a device each would be a kernel writing n copies of that number, between two
kernels that need it. Instead `lower-to-loops` keeps such a tensor as a *splat*
(`FuncLowering.splats`): its number, an SSA scalar of the host function computed by the host
plan once per shape signature like `1/n` itself, and its sizes, which carry the broadcast's
shape checks. The rules:

* a device elementwise op (a row of the table, a cast, `tensor.fused`) whose result is not one
  number and whose every operand it reads is a number on the host (`scalars.py`) or a splat
  is a splat; operands read only for their shape (a broadcast's second) need no value;
* a `tensor.broadcast` or `tensor.dimshuffle` of a splat is a splat;
* an op reading its operands element by element (`BY_ELEMENT`) uses the number; any other op
  gets the tensor filled into a buffer where it needs one (`FuncLowering.materialize`): the
  kernel the splat saved, only where it cannot be saved.
"""
from __future__ import annotations

from ...dialects.builtin import TensorType
from ...ir.core import Operation, Value
from .context import ELEMENTWISE_BODIES, SHORTCUTS, FuncLowering, one_number

SHAPE_ONLY = {"tensor.broadcast": (1,)}  # operands whose value an op does not read


def lower_splat(ctx: FuncLowering, op: Operation) -> bool:
    """Keep `op`'s results as splats when the rules above allow it (then True)."""
    if len(op.results) != 1 or not _device_tensor(op.results[0]) or one_number(op.results[0].type):
        return False
    if op.op_name == "tensor.dimshuffle":
        return _dimshuffle(ctx, op)
    read = _read_operands(op)
    if not read or not all(_number(ctx, op.operand(i)) is not None for i in read):
        return False
    if any(v not in ctx.buf and _number(ctx, v) is None for v in op.operands):
        return False  # a shape-only operand with no buffer yet
    sizes = ctx.broadcast_sizes(op, list(op.operands), op.results[0].type.rank)
    some = _number(ctx, op.operand(read[0]))  # (stands for the operands the body never reads)
    values = [some if n is None else n for n in (_number(ctx, v) for v in op.operands)]
    if op.op_name == "tensor.broadcast":
        value = values[0]
    else:
        (value,) = ELEMENTWISE_BODIES[op.op_name](ctx, op)(values)
    ctx.splats[op.results[0]] = (value, ctx.result_sizes(op.results[0].type, sizes))
    return True


SHORTCUTS.append(lower_splat)


def _device_tensor(v: Value) -> bool:
    return isinstance(v.type, TensorType) and v.type.device is not None


def _read_operands(op: Operation) -> list[int] | None:
    """The operands whose values `op` reads (None: not an op a splat can come from)."""
    if op.op_name in SHAPE_ONLY:
        return [i for i in range(len(op.operands)) if i not in SHAPE_ONLY[op.op_name]]
    if op.op_name not in ELEMENTWISE_BODIES or "inplace" in op.attributes:
        return None
    if op.op_name != "tensor.fused":
        return list(range(len(op.operands)))
    args = op.regions[0].blocks[0].args
    return [i for i, a in enumerate(args) if a.uses]


def _number(ctx: FuncLowering, v: Value) -> Value | None:
    """The host number every element of `v` is: a scalar's, or a splat's (None: neither)."""
    return ctx.broadcast_load(v, []) if ctx.holds_number(v) else None


def _dimshuffle(ctx: FuncLowering, op: Operation) -> bool:
    src = op.operand(0)
    splat = ctx.splats.get(src)
    if splat is None or src in ctx.buf:
        return False
    value, sizes = splat
    one = ctx.lb.const(1)
    ctx.splats[op.results[0]] = (value, [one if p < 0 else sizes[p] for p in op.attributes["pattern"]])
    return True
