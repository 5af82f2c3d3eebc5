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

from ..ir.diagnostics import Diagnostic
from .basic import add, as_tensor_variable, cast, flatten, stack, zeros_like
from .evaluate import evaluate
from .gradient_rules import op_grad, sum_to_pattern
from .graph import Constant, Variable, graph_inputs, toposort
from .rop_rules import op_rop
from .shared import SharedVariable


class DisconnectedInputError(ValueError):
    """`wrt` does not influence the cost through differentiable operations."""


def _disconnected_message(v: Variable) -> str:
    return ("grad method was asked to compute the gradient with respect to a variable that is not "
            "part of the computational graph of the cost, or is used only by a non-differentiable "
            f"operator: {v} ({v.type}); pass disconnected_inputs='ignore' (or 'warn') to get zeros")


def _sum_all(parts: list[Variable]) -> Variable:
    total = parts[0]
    for p in parts[1:]:
        total = add(total, p)
    return total


def _connected(roots: Sequence[Variable], wrt: Sequence[Variable], stop: set[int]) -> set[int]:
    """Ids of the variables on a path from some `wrt` to the roots (forward sweep)."""
    depends: set[int] = {id(w) for w in wrt}
    for node in toposort(roots):
        if any(id(i) in depends and id(i) not in stop for i in node.inputs):
            depends.update(id(o) for o in node.outputs)
    return depends


def _check_policy(disconnected_inputs: str) -> None:
    if disconnected_inputs not in ("raise", "warn", "ignore"):
        raise ValueError("disconnected_inputs must be 'raise', 'warn' or 'ignore', "
                         f"got {disconnected_inputs!r}")


def _as_wrt_list(wrt: Variable | Sequence[Variable], who: str) -> tuple[bool, list[Variable]]:
    single = isinstance(wrt, Variable)
    if not single and not isinstance(wrt, (list, tuple)):
        raise TypeError(f"{who}: wrt must be a symbolic variable or a list of them (the variables to "
                        f"differentiate with respect to), got {type(wrt).__name__} {wrt!r}")
    wrt_list = [wrt] if single else list(wrt)
    for k, w in enumerate(wrt_list):
        if not isinstance(w, Variable):
            raise TypeError(f"{who}: wrt[{k}] must be a symbolic variable, got {type(w).__name__} {w!r}")
    return single, wrt_list


def _backprop(roots: Sequence[Variable], seeds: dict[int, list[Variable]], wrt_list: Sequence[Variable],
              consider_constant: Sequence[Variable] | None, disconnected_inputs: str) -> list[Variable]:
    """Reverse mode from `roots`, whose gradients are `seeds` (by id), to each of `wrt_list`."""
    stop = {id(v) for v in (consider_constant or ()) if all(v is not w for w in wrt_list)}
    connected = _connected(roots, wrt_list, stop)
    contributions = {k: list(v) for k, v in seeds.items()}
    for node in reversed(toposort(roots)):
        out_grads = [sum_to_pattern(_sum_all(contributions[id(o)]), o.broadcastable)
                     if id(o) in contributions else None for o in node.outputs]
        if all(g is None for g in out_grads):
            continue
        wanted = [id(i) in connected and id(i) not in stop and i.type.is_float for i in node.inputs]
        if not any(wanted):
            continue
        try:
            in_grads = op_grad(node.op, node.inputs, node.outputs, out_grads)
        except NotImplementedError as e:  # say which node of the user's program
            raise NotImplementedError(Diagnostic(f"T.grad: {e}", node.location).render()) from None
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
                warnings.warn(_disconnected_message(w), stacklevel=3)
            results.append(zeros_like(w, w.dtype if w.type.is_float else "floatX"))
            continue
        g = sum_to_pattern(_sum_all(parts), w.broadcastable)
        results.append(cast(g, w.dtype) if w.type.is_float else g)
    return results


def grad(cost: Variable, wrt: Variable | Sequence[Variable],
         consider_constant: Sequence[Variable] | None = None,
         disconnected_inputs: str = "raise", known_grads: dict | None = None) -> Any:
    """d cost / d wrt for a 0-d `cost`; `wrt` a variable or a list (the result has the same
    structure). `consider_constant` variables are treated as constants (no gradient flows
    through them). `disconnected_inputs`: 'raise', 'warn' or 'ignore' (zeros)."""
    _check_policy(disconnected_inputs)
    cost = as_tensor_variable(cost)
    if cost.ndim != 0:
        raise TypeError(f"cost must be a scalar (0-d), got ndim={cost.ndim} ({cost.type}); "
                        f"reduce it first (e.g. .sum() or .mean())")
    single, wrt_list = _as_wrt_list(wrt, "grad")
    seeds: dict[int, list[Variable]] = {}
    if cost.type.is_float:
        seeds[id(cost)] = [Constant(cost.type, np.ones((), cost.dtype))]
    for var, g in (known_grads or {}).items():
        seeds.setdefault(id(var), []).append(as_tensor_variable(g))
    results = _backprop([cost], seeds, wrt_list, consider_constant, disconnected_inputs)
    return results[0] if single else results


def Lop(f: Variable | Sequence[Variable], wrt: Variable | Sequence[Variable],
        eval_points: Variable | Sequence[Variable], consider_constant: Sequence[Variable] | None = None,
        disconnected_inputs: str = "raise") -> Any:
    """The vector-Jacobian product v . (d f / d wrt): `eval_points` (one per output in `f`,
    each of its output's shape) pulled back to each `wrt` (the result has wrt's structure)."""
    _check_policy(disconnected_inputs)
    fs = [f] if isinstance(f, Variable) else list(f)
    vs = [eval_points] if isinstance(eval_points, Variable) or not isinstance(eval_points, (list, tuple)) \
        else list(eval_points)
    if len(fs) != len(vs):
        raise ValueError(f"Lop: {len(fs)} output(s) but {len(vs)} eval point(s)")
    seeds: dict[int, list[Variable]] = {}
    for out, v in zip(fs, vs):
        v = as_tensor_variable(v)
        if v.ndim != out.ndim:
            raise TypeError(f"Lop: eval point {v} ({v.type}) must have the ndim of its output {out} ({out.type})")
        seeds.setdefault(id(out), []).append(cast(v, out.dtype))
    single, wrt_list = _as_wrt_list(wrt, "Lop")
    results = _backprop(fs, seeds, wrt_list, consider_constant, disconnected_inputs)
    return results[0] if single else results


def Rop(f: Variable | Sequence[Variable], wrt: Variable | Sequence[Variable],
        eval_points: Variable | Sequence[Variable]) -> Any:
    """The Jacobian-vector product (d f / d wrt) . v by forward mode: `eval_points` (one per
    `wrt`, of its type) pushed through each op's R-op rule; the result has f's structure (an
    output that does not depend on `wrt` gets zeros)."""
    single_f = isinstance(f, Variable)
    fs = [f] if single_f else list(f)
    _, wrt_list = _as_wrt_list(wrt, "Rop")
    vs = [eval_points] if isinstance(wrt, Variable) else list(eval_points)
    if len(vs) != len(wrt_list):
        raise ValueError(f"Rop: {len(wrt_list)} wrt variable(s) but {len(vs)} eval point(s)")
    tangents: dict[int, Variable] = {}
    for w, v in zip(wrt_list, vs):
        v = as_tensor_variable(v)
        if v.ndim != w.ndim:
            raise TypeError(f"Rop: eval point {v} ({v.type}) must have the ndim of {w} ({w.type})")
        tangents[id(w)] = cast(v, w.dtype) if w.type.is_float else v
    for node in toposort(fs, blockers=wrt_list):
        ins = [tangents.get(id(i)) for i in node.inputs]
        if all(t is None for t in ins):
            continue
        # as Theano: a leaf that is not differentiated gets a zero tangent (so `Rop(dot(x, W),
        # W, V)` still reads W, and a function given W does not find it unused)
        ins = [zeros_like(i) if t is None and i.owner is None and i.type.is_float else t
               for i, t in zip(node.inputs, ins)]
        for out, t in zip(node.outputs, op_rop(node, ins)):
            if t is not None:
                tangents[id(out)] = t
    results = [tangents[id(o)] if id(o) in tangents else zeros_like(o) for o in fs]
    return results[0] if single_f else results


def _flat_elements(v: Variable, n: int) -> list[Variable]:
    flat = flatten(v) if v.ndim != 1 else v
    return [flat[i] for i in range(n)]


def jacobian(expression: Variable, wrt: Variable | Sequence[Variable], consider_constant=None,
             disconnected_inputs: str = "raise", size: int | None = None) -> Any:
    """d expression / d wrt, stacked: one gradient per element of the (≤1-d) expression.

    Symbolic sizes are not known when the graph is built, so a vector `expression` needs
    `size` (its length) unless its length is static; one grad is built per element."""
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
    leaves = [i for i in graph_inputs(v) if not isinstance(i, Constant) and not isinstance(i, SharedVariable)]
    if all(hasattr(i.tag, "test_value") for i in leaves):
        return int(np.shape(evaluate(v, {i: i.tag.test_value for i in leaves}))[0])
    raise ValueError("jacobian/hessian: the length of the expression is not known when the graph "
                     "is built; pass size=N (or set x.tag.test_value)")
