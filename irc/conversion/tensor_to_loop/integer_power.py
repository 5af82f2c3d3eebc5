"""Integer `**` fails on a negative exponent, as numpy's does ("Integers to negative integer
powers are not allowed.", a ValueError).

The power itself is computed in a `loop.parallel` nest (or as a scalar), where nothing can make
the function fail. So before an op that raises integers to powers — `tensor.pow` on integers,
or a `tensor.fused` / `tensor.fused_reduce` whose body has an integer `scalar.pow` — one
sequential nest reads every exponent (recomputing it from the operands when the fused body
computes it) and fails the function at the first negative one, as `gather.py` checks its
indices. Host tensors only: on a device the exponents stay unchecked. Where the exponent is a
constant the frontend refused a negative one already (irc/frontend/integer_power.py).
"""
from __future__ import annotations

from ...dialects import scalar as S
from ...ir.core import Block, Operation, Value
from ...ir.types import ScalarType, index
from ..loop_builder import Index
from .context import PRE_CHECKS, FuncLowering

MESSAGE = "Integers to negative integer powers are not allowed."
FUSED = ("tensor.fused", "tensor.fused_reduce")


def _is_integer(t: object) -> bool:
    element = getattr(t, "element", t)
    return isinstance(element, ScalarType) and element.is_integer and element.bitwidth != 1


def _integer_pows(op: Operation) -> list[Operation]:
    """The integer powers `op` computes: itself, or the `scalar.pow`s of its fused body."""
    if op.op_name == "tensor.pow":
        return [op] if _is_integer(op.results[0].type) else []
    if op.op_name in FUSED:
        return [inner for inner in op.regions[0].blocks[0].ops
                if isinstance(inner, S.ScalarPowOp) and _is_integer(inner.results[0].type)]
    return []


def _exponent(ctx: FuncLowering, op: Operation, power: Operation, ivs: list[Index],
              cloned: dict[Value, Value]) -> Value:
    """The exponent of `power` at `ivs`: an operand's element, or the fused body's ops it
    depends on replayed on the operands' elements (`cloned` maps body values to replayed ones)."""
    if power is op:
        return ctx.broadcast_load(op.operand(1), ivs)
    block: Block = op.regions[0].blocks[0]
    for v in _slice(block, power.operand(1)):
        if v in cloned:
            continue
        if v in block.args:
            cloned[v] = ctx.broadcast_load(op.operand(block.args.index(v)), ivs)
        else:
            ctx.lb.b.insert(v.owner.clone(cloned))  # (clone maps the owner's results)
    return cloned[power.operand(1)]


def _slice(block: Block, value: Value) -> list[Value]:
    """The block values `value` depends on (itself included), in an order that defines each
    before its uses."""
    seen: set[Value] = set()
    order: list[Value] = []

    def visit(v: Value) -> None:
        if v in seen:
            return
        seen.add(v)
        if v not in block.args:
            for operand in v.owner.operands:
                visit(operand)
        order.append(v)

    visit(value)
    return order


def check_integer_exponents(ctx: FuncLowering, op: Operation) -> None:
    """Fail the function where an integer power of `op` meets a negative exponent."""
    powers = _integer_pows(op)
    if not powers or any(getattr(r.type, "device", None) is not None for r in op.results):
        return
    rank = max(v.type.rank for v in op.operands)
    sizes = ctx.broadcast_sizes(op, list(op.operands), rank)
    lb = ctx.lb
    saved = lb.location
    with lb.serial(sizes, one_trip_at_rank_0=True) as ivs:
        cloned: dict[Value, Value] = {}
        for power in powers:
            lb.location = power.location
            exponent = _exponent(ctx, op, power, ivs, cloned)
            lb.assert_nonnegative(lb.cast(exponent, index), f"'tensor.pow': {MESSAGE}")
    lb.location = saved


PRE_CHECKS.append(check_integer_exponents)
