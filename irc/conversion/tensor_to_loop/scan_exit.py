"""The early exit of a `tensor.scan` with `until` (Theano's while loop) in loop IR.

The step loop carries two values: `going` (i1, true until a step's condition holds) and
`count` (the steps run). Each step's body sits in a `loop.if` on `going`, whose then-branch
ends by yielding `(not condition, t + 1)` and whose else-branch passes both on, so the loop
means the same to any reader; the `loop.for` is marked `irc.while = 0` (`loop.WHILE`), which
lets code generation leave it as soon as `going` is false. The results are then the first
`count` rows of buffers sized by the step count.
"""
from __future__ import annotations

from ...dialects import loop as L
from ...ir.attributes import IntegerAttr
from ...ir.builder import InsertionPoint
from ...ir.core import Block, Region, Value
from ...ir.types import i1, index
from ..loop_builder import ForScope, Index
from .context import FuncLowering


def exit_state(ctx: FuncLowering) -> list[Value]:
    """The carried values before the first step: going, and no step run."""
    return [ctx.lb.scalar_const(True, i1), ctx.lb.const(0)]


class GuardedStep:
    """The `loop.if` on `going` around one step of a loop made with `exit_state()` carries:
    build the step into `block`, then `stop_when(cond)` inside it, then `close()` after it."""

    def __init__(self, ctx: FuncLowering, scope: ForScope):
        self.ctx, self.scope = ctx, scope
        scope.op.attributes[L.WHILE] = IntegerAttr(0)
        going, count = scope.iter_args
        self.op = L.IfOp([going], [i1, index], {}, [Region([Block([])]), Region([Block([])])], (),
                         ctx.lb.location)
        ctx.lb.b.insert(self.op)
        with ctx.lb.b.at(InsertionPoint.at_end(self.op.branch(False))):
            ctx.lb.b.create(L.YieldOp, [going, count], result_types=[])

    @property
    def block(self) -> Block:
        return self.op.branch(True)

    def stop_when(self, condition: Value) -> None:
        """End the step (inside `block`): go on unless the 0-d tensor `condition` holds."""
        lb = self.ctx.lb
        stop = self.ctx.broadcast_load(condition, [])
        lb.b.create(L.YieldOp, [lb.scalar("logical_not", [stop]), lb.add(self.scope.iv, lb.const(1))],
                    result_types=[])

    def close(self) -> None:
        """End the loop body (after the `loop.if`): carry what the step decided."""
        self.ctx.lb.yield_(self.scope, self.op.results)


def steps_run(scope_results: list[Value]) -> Index:
    """The step count a loop made with `exit_state()` carries out."""
    return scope_results[1]
