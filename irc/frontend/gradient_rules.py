"""Gradient rules shared by several ops: elementwise derivatives built from the table's
expressions, undoing broadcasting, and the gradients of reductions."""
from __future__ import annotations

from typing import Any, Sequence

from .graph import Variable


def sum_to_pattern(g: Variable, broadcastable: Sequence[bool]) -> Variable:
    """`g` summed over the dims that are broadcastable in the input but not in `g` (the dims
    the input was broadcast along), keeping them as size-1 dims."""
    from .mathops import sum as sum_
    axes = [d for d, b in enumerate(broadcastable) if b and not g.broadcastable[d]]
    return sum_(g, axis=axes, keepdims=True) if axes else g


def build_expression(expr: Any, env: dict[str, Variable]) -> Variable | float:
    """A table expression (symbols, float constants, (op, *args) tuples) as graph nodes."""
    from .basic import elemwise
    if isinstance(expr, str):
        return env[expr]
    if isinstance(expr, (int, float)):
        return float(expr)
    return elemwise(expr[0], *[build_expression(a, env) for a in expr[1:]])


def elemwise_grad(op, inputs: Sequence[Variable], outputs: Sequence[Variable],
                  output_grads: Sequence[Variable | None]) -> list[Variable | None]:
    from .basic import cast, fill, zeros_like
    gz = output_grads[0]
    row = op.row
    if gz is None or not outputs[0].type.is_float:
        return [None] * len(inputs)
    env = dict(zip(("x", "y", "z"), inputs))
    env.update(out=outputs[0], gz=gz)
    grads: list[Variable | None] = []
    for x, expr in zip(inputs, row.derivative):
        if expr is None or not x.type.is_float:
            grads.append(None)
        elif isinstance(expr, (int, float)):
            grads.append(zeros_like(x) if expr == 0 else fill(x, float(expr)))
        else:
            g = build_expression(expr, env)
            g = fill(gz, g) if not isinstance(g, Variable) else g
            grads.append(cast(sum_to_pattern(g, x.broadcastable), x.dtype))
    return grads


def reduce_grad(op, inputs: Sequence[Variable], outputs: Sequence[Variable],
                output_grads: Sequence[Variable | None]) -> list[Variable | None]:
    from .basic import eq, mul, true_div
    from .mathops import _keep
    from .shape_ops import Alloc
    (x,), (out,), (gz,) = inputs, outputs, output_grads
    if gz is None or not x.type.is_float or op.kind in ("argmax", "argmin"):
        return [None]
    gk = _keep(gz, op.axes, x.ndim)
    if op.kind == "sum":
        return [Alloc()(gk, x)]
    outk = _keep(out, op.axes, x.ndim)
    if op.kind in ("max", "min"):  # every element equal to the extremum gets the gradient
        return [mul(eq(x, outk), gk)]
    if op.kind == "prod":  # d(prod)/dx_i = prod / x_i (assumes no zeros)
        return [true_div(mul(gk, outk), x)]
    raise NotImplementedError(f"no gradient for reduction '{op.kind}'")
