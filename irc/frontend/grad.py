"""Reverse-mode differentiation of a scalar cost over the symbolic graph (`T.grad`), and
`jacobian`/`hessian` built on it.

Gradients are new graph nodes: each op's `grad(inputs, outputs, output_grads)` states its
local rule (elementwise rules come from the table's derivative expressions). Integer and
boolean variables carry no gradient; a `wrt` the cost does not depend on through
differentiable ops is "disconnected" (an error by default, as in Theano)."""
from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from .gradient_rules import sum_to_pattern
from .graph import Constant, Variable, toposort


class DisconnectedInputError(ValueError):
    """`wrt` does not influence the cost through differentiable operations."""


def _disconnected_message(v: Variable) -> str:
    return ("grad method was asked to compute the gradient with respect to a variable that is not "
            "part of the computational graph of the cost, or is used only by a non-differentiable "
            f"operator: {v} ({v.type}); pass disconnected_inputs='ignore' (or 'warn') to get zeros")


def _sum_all(parts: list[Variable]) -> Variable:
    from .basic import add
    total = parts[0]
    for p in parts[1:]:
        total = add(total, p)
    return total


def _connected(cost: Variable, wrt: Sequence[Variable], stop: set[int]) -> set[int]:
    """Ids of the variables on a path from some `wrt` to `cost` (forward sweep)."""
    depends: set[int] = {id(w) for w in wrt}
    for node in toposort(cost):
        if any(id(i) in depends and id(i) not in stop for i in node.inputs):
            depends.update(id(o) for o in node.outputs)
    return depends


def grad(cost: Variable, wrt: Variable | Sequence[Variable],
         consider_constant: Sequence[Variable] | None = None,
         disconnected_inputs: str = "raise", known_grads: dict | None = None) -> Any:
    """d cost / d wrt for a 0-d `cost`; `wrt` a variable or a list (the result has the same
    structure). `consider_constant` variables are treated as constants (no gradient flows
    through them). `disconnected_inputs`: 'raise', 'warn' or 'ignore' (zeros)."""
    from .basic import as_tensor_variable, cast, zeros_like
    if disconnected_inputs not in ("raise", "warn", "ignore"):
        raise ValueError("disconnected_inputs must be 'raise', 'warn' or 'ignore', "
                         f"got {disconnected_inputs!r}")
    cost = as_tensor_variable(cost)
    if cost.ndim != 0:
        raise TypeError(f"cost must be a scalar (0-d), got ndim={cost.ndim} ({cost.type}); "
                        f"reduce it first (e.g. .sum() or .mean())")
    single = isinstance(wrt, Variable)
    if not single and not isinstance(wrt, (list, tuple)):
        raise TypeError(f"grad: wrt must be a symbolic variable or a list of them (the variables to "
                        f"differentiate with respect to), got {type(wrt).__name__} {wrt!r}")
    wrt_list = [wrt] if single else list(wrt)
    for k, w in enumerate(wrt_list):
        if not isinstance(w, Variable):
            raise TypeError(f"grad: wrt[{k}] must be a symbolic variable, got {type(w).__name__} {w!r}")
    stop = {id(v) for v in (consider_constant or ()) if all(v is not w for w in wrt_list)}
    connected = _connected(cost, wrt_list, stop)

    contributions: dict[int, list[Variable]] = {}
    if id(cost) in connected and cost.type.is_float:
        contributions[id(cost)] = [Constant(cost.type, np.ones((), cost.dtype))]
    for var, g in (known_grads or {}).items():
        contributions.setdefault(id(var), []).append(as_tensor_variable(g))
    for node in reversed(toposort(cost)):
        out_grads = [sum_to_pattern(_sum_all(contributions[id(o)]), o.broadcastable)
                     if id(o) in contributions else None for o in node.outputs]
        if all(g is None for g in out_grads):
            continue
        wanted = [id(i) in connected and id(i) not in stop and i.type.is_float for i in node.inputs]
        if not any(wanted):
            continue
        in_grads = node.op.grad(node.inputs, node.outputs, out_grads)
        for inp, g, want in zip(node.inputs, in_grads, wanted):
            if want and g is not None:
                contributions.setdefault(id(inp), []).append(g)

    results = []
    for w in wrt_list:
        parts = contributions.get(id(w))
        if not parts:
            if disconnected_inputs == "raise":
                raise DisconnectedInputError(_disconnected_message(w))
            if disconnected_inputs == "warn":
                warnings.warn(_disconnected_message(w), stacklevel=2)
            dtype = w.dtype if w.type.is_float else None
            results.append(zeros_like(w, dtype) if dtype else zeros_like(w, "floatX"))
            continue
        g = sum_to_pattern(_sum_all(parts), w.broadcastable)
        if w.type.is_float:
            g = cast(g, w.dtype)
        results.append(g)
    return results[0] if single else results


def _flat_elements(v: Variable, n: int) -> list[Variable]:
    from .basic import flatten
    flat = flatten(v) if v.ndim != 1 else v
    return [flat[i] for i in range(n)]


def jacobian(expression: Variable, wrt: Variable | Sequence[Variable], consider_constant=None,
             disconnected_inputs: str = "raise", size: int | None = None) -> Any:
    """d expression / d wrt, stacked: one gradient per element of the (≤1-d) expression.

    Symbolic sizes are not known when the graph is built, so a vector `expression` needs
    `size` (its length) unless its length is static; one grad is built per element."""
    from .basic import stack
    single = isinstance(wrt, Variable)
    wrt_list = [wrt] if single else list(wrt)
    if expression.ndim == 0:
        out = grad(expression, wrt_list, consider_constant, disconnected_inputs)
        return out[0] if single else out
    if expression.ndim != 1:
        raise TypeError(f"jacobian needs a 0-d or 1-d expression, got ndim={expression.ndim}")
    n = size if size is not None else _static_length(expression)
    rows = [grad(e, wrt_list, consider_constant, disconnected_inputs) for e in _flat_elements(expression, n)]
    out = [stack([r[k] for r in rows]) for k in range(len(wrt_list))]
    return out[0] if single else out


def hessian(cost: Variable, wrt: Variable | Sequence[Variable], consider_constant=None,
            disconnected_inputs: str = "raise", size: int | None = None) -> Any:
    """Second derivatives of a scalar `cost` with respect to each vector in `wrt`; `size` is
    the length of the vectors when it is not static."""
    single = isinstance(wrt, Variable)
    wrt_list = [wrt] if single else list(wrt)
    out = []
    for w in wrt_list:
        if w.ndim != 1:
            raise TypeError(f"hessian needs vector wrt, got {w.type}")
        g = grad(cost, w, consider_constant, disconnected_inputs)
        out.append(jacobian(g, w, consider_constant, disconnected_inputs, size=size))
    return out[0] if single else out


def _static_length(v: Variable) -> int:
    if v.broadcastable[0]:
        return 1
    if isinstance(v, Constant):
        return int(v.data.shape[0])
    from .evaluate import evaluate
    from .graph import graph_inputs
    leaves = [i for i in graph_inputs(v) if not isinstance(i, Constant) and not hasattr(i, "get_value")]
    if all(hasattr(i.tag, "test_value") for i in leaves):
        return int(np.shape(evaluate(v, {i: i.tag.test_value for i in leaves}))[0])
    raise ValueError("jacobian/hessian: the length of the expression is not known when the graph "
                     "is built; pass size=N (or set x.tag.test_value)")
