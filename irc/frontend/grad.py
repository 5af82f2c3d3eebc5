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
from .basic import add, as_tensor_variable, cast, fill, flatten, stack, zeros_like
from .elemwise import Cast, Elemwise
from .evaluate import evaluate
from .gradient_ops import DisconnectedGrad, GradClip, GradScale, ZeroGrad
from .complex_refusal import refuse_complex
from .gradient_rules import NoGradient, op_grad, sum_to_pattern, to_input_dtype
from .graph import Constant, Variable, graph_inputs, toposort
from .ifelse_op import IfElse
from .reduce import CAReduce
from .rop_rules import op_rop
from .shared import SharedVariable
from .tensor_type import TensorType, floatX


class DisconnectedInputError(ValueError):
    """`wrt` does not influence the cost through differentiable operations."""


class EvalPointError(TypeError, ValueError):
    """An R-op eval point that does not fit its variable (a TypeError, and Theano's ValueError)."""


class DisconnectedType:
    """The type of Theano's placeholder for the gradient of a disconnected variable (zero,
    and known to be); `grad(..., return_disconnected='Disconnected')` returns such values. It is
    no tensor: only a marker for the caller (and, in `known_grads`, "no gradient here")."""

    def __call__(self) -> "DisconnectedValue":
        return DisconnectedValue(self)

    def __str__(self) -> str:
        return "DisconnectedType"

    __repr__ = __str__


class DisconnectedValue:
    """A value of `DisconnectedType` (Theano's `disconnected_type()`)."""

    def __init__(self, type: DisconnectedType):
        self.type = type
        self.name: str | None = None
        self.owner = None

    def __repr__(self) -> str:
        return "<DisconnectedType>"


disconnected_type = DisconnectedType()
RETURN_DISCONNECTED = ("zero", "None", "Disconnected")


def _disconnected_message(v: Variable) -> str:
    return ("grad method was asked to compute the gradient with respect to a variable that is not "
            f"part of the computational graph of the cost: {v} ({v.type}); pass "
            "disconnected_inputs='ignore' (or 'warn') to get zeros")


def _zero_gradient(w: Variable) -> Variable:
    """Zeros that read `w` (Theano's fill: a function given w as input uses it); floatX for an
    integer `w`."""
    dtype = w.dtype if w.type.is_continuous else floatX()
    return fill(w, Constant(TensorType(dtype, ()), np.zeros((), dtype)))


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


def _connects(node: Any, inp: Variable) -> bool:
    """Whether the gradient connects input `inp` of `node` to its outputs (Theano's
    `connection_pattern`): not through `disconnected_grad`, nor from a tensor to its sizes
    (`x.shape`), nor from an integer input that indexes or sizes (of any op but elementwise
    math, casts, reductions and `ifelse`, whose integer inputs are values)."""
    op = node.op
    if isinstance(op, DisconnectedGrad) or getattr(op, "ir_name", None) == "tensor.dim":
        return False
    return inp.type.is_continuous or isinstance(op, (Elemwise, Cast, CAReduce, IfElse))


def _reaches(roots: Sequence[Variable], w: Variable, stop: set[int]) -> bool:
    """Whether `w` is in the graph of one of `roots` through connected inputs (`_connects`),
    not through a `consider_constant` variable."""
    depends = {id(w)}
    for node in toposort(roots):
        if any(id(i) in depends and id(i) not in stop and _connects(node, i) for i in node.inputs):
            depends.update(id(o) for o in node.outputs)
    return any(id(r) in depends for r in roots)


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
              consider_constant: Sequence[Variable] | None, disconnected_inputs: str,
              return_disconnected: str = "zero") -> list[Any]:
    """Reverse mode from `roots`, whose gradients are `seeds` (by id), to each of `wrt_list`.
    Only float values carry gradients through ops, and integers where they are cast to float
    (an integer result, e.g. of argmax or of a cast to int, sends none back); a seed on an
    integer variable reaches it when it is itself in `wrt` (Theano's d x / d x = 1)."""
    stop = {id(v) for v in (consider_constant or ()) if all(v is not w for w in wrt_list)}
    connected = _connected(roots, wrt_list, stop)
    contributions = {k: list(v) for k, v in seeds.items()}
    for node in reversed(toposort(roots)):
        out_grads = [sum_to_pattern(_sum_all(contributions[id(o)]), o.broadcastable)
                     if id(o) in contributions and o.type.is_continuous else None for o in node.outputs]
        if all(g is None for g in out_grads):
            continue
        # float values carry gradients; so does an integer cast to float (Theano: the gradient
        # with respect to an integer is the one with respect to the same values as floats)
        into_float = isinstance(node.op, Cast) and node.outputs[0].type.is_continuous
        wanted = [id(i) in connected and id(i) not in stop and (i.type.is_continuous or into_float)
                  for i in node.inputs]
        if not any(wanted):
            continue
        try:
            in_grads = op_grad(node.op, node.inputs, node.outputs, out_grads)
        except NotImplementedError as e:  # say which node of the user's program
            raise NotImplementedError(Diagnostic(f"T.grad: {e}", node.location).render()) from None
        for inp, g, want in zip(node.inputs, in_grads, wanted):
            if want and isinstance(g, NoGradient):
                raise NotImplementedError(Diagnostic(f"T.grad: {g.message}", node.location).render())
            if want and g is not None and not isinstance(g, NoGradient):
                contributions.setdefault(id(inp), []).append(g)

    results = []
    seeded = [r for r in roots if id(r) in seeds]
    for w in wrt_list:
        parts = contributions.get(id(w))
        if not parts and _reaches(seeded, w, stop):
            # on a path to the cost, through ops without a gradient (argmax, a comparison, an
            # integer): Theano's zero gradient, not a disconnected input
            parts = [_zero_gradient(w)]
        if not parts:
            if disconnected_inputs == "raise":
                raise DisconnectedInputError(_disconnected_message(w))
            if disconnected_inputs == "warn":
                warnings.warn(_disconnected_message(w), stacklevel=3)
            if return_disconnected == "None":
                results.append(None)
            elif return_disconnected == "Disconnected":
                results.append(disconnected_type())
            else:
                results.append(_zero_gradient(w))
            continue
        g = sum_to_pattern(_sum_all(parts), w.broadcastable)
        results.append(to_input_dtype(g, w) if w.type.is_continuous else g)
    return results


def grad(cost: Variable | None, wrt: Variable | Sequence[Variable],
         consider_constant: Sequence[Variable] | None = None,
         disconnected_inputs: str = "raise", add_names: bool = True, known_grads: dict | None = None,
         return_disconnected: str = "zero", null_gradients: str = "raise") -> Any:
    """d cost / d wrt for a 0-d `cost`; `wrt` a variable or a list/tuple (the result has the
    same structure). `known_grads` ({variable: its gradient}) seeds reverse mode at other
    variables too, and stands alone with `cost=None`. `consider_constant` variables are
    treated as constants (no gradient flows through them). A `wrt` the cost does not reach:
    `disconnected_inputs` 'raise' (DisconnectedInputError, a ValueError), 'warn' or 'ignore';
    it then gets `return_disconnected` 'zero' (zeros of its shape), 'None' or 'Disconnected'
    (`disconnected_type()`). `add_names`: a gradient is named `(dcost/dx)` when both are
    named. `null_gradients` ('raise' or 'return') is accepted: no irc op has an undefined
    gradient that grad could return (such ops raise NotImplementedError naming the op)."""
    _check_policy(disconnected_inputs)
    if return_disconnected not in RETURN_DISCONNECTED:
        raise ValueError(f"return_disconnected must be one of {', '.join(map(repr, RETURN_DISCONNECTED))}, "
                         f"got {return_disconnected!r}")
    if null_gradients not in ("raise", "return"):
        raise ValueError(f"null_gradients must be 'raise' or 'return', got {null_gradients!r}")
    if cost is None and not known_grads:
        raise ValueError("grad: cost and known_grads can't both be None (give a cost, or the gradients "
                         "you know as known_grads={variable: gradient})")
    if isinstance(wrt, (set, frozenset)):
        raise TypeError("grad: wrt must not be a set: sets have no defined iteration order, so the "
                        "gradients could not be returned in a matching order (pass a list)")
    if cost is not None:
        cost = as_tensor_variable(cost)
        if cost.ndim != 0:
            raise TypeError(f"cost must be a scalar (0-d), got ndim={cost.ndim} ({cost.type}); "
                            f"reduce it first (e.g. .sum() or .mean())")
    single, wrt_list = _as_wrt_list(wrt, "grad")
    seeds = _seeds(cost, known_grads or {})
    roots = ([cost] if cost is not None else []) + [v for v in (known_grads or {}) if isinstance(v, Variable)]
    results = _backprop(roots, seeds, wrt_list, consider_constant, disconnected_inputs, return_disconnected)
    if add_names and cost is not None and cost.name is not None:
        given = {id(g) for g in (known_grads or {}).values()}
        for w, g in zip(wrt_list, results):
            if isinstance(g, Variable) and g.owner is not None and id(g) not in given and w.name is not None:
                g.name = f"(d{cost.name}/d{w.name})"
    if isinstance(wrt, tuple):
        return tuple(results)
    return results[0] if single else results


def _seeds(cost: Variable | None, known_grads: dict) -> dict[int, list[Variable]]:
    """The gradients reverse mode starts from: 1 for the cost (in floatX for an integer cost:
    a gradient is never an integer), and the known ones (a `disconnected_type()` value there:
    none). Known gradients must be float."""
    seeds: dict[int, list[Variable]] = {}
    if cost is not None and cost.type.is_complex:  # (gradients are of real costs: complex_ops.py)
        refuse_complex("T.grad's cost", cost, hint="a cost must be real: take T.real, T.imag or T.abs of it")
    if cost is not None and id(cost) not in {id(v) for v in known_grads}:
        # an integer cost's seed reads the cost (Theano's ones_like): `grad(i, i).eval({i: 3})`
        # is then a function of i
        seeds[id(cost)] = [Constant(cost.type, np.ones((), cost.dtype)) if cost.type.is_continuous
                           else fill(cost, Constant(TensorType(floatX(), ()), np.ones((), floatX())))]
    for var, g in known_grads.items():
        if not isinstance(var, Variable):
            raise TypeError(f"known_grads: the keys must be symbolic variables, got {type(var).__name__} {var!r}")
        if isinstance(g, DisconnectedValue):
            continue
        g = as_tensor_variable(g)
        if not g.type.is_continuous:
            raise TypeError(f"known_grads: gradients must be float, but the one given for {var} is "
                            f"{g.type}")
        if g.ndim != var.ndim:
            raise TypeError(f"known_grads: the gradient of {var} ({var.type}) must have its number of "
                            f"dimensions, got {g.type}")
        seeds.setdefault(id(var), []).append(to_input_dtype(g, var) if var.type.is_continuous else g)
    return seeds


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
        eval_points: Variable | Sequence[Variable], disconnected_outputs: str = "raise",
        return_disconnected: str = "zero") -> Any:
    """The Jacobian-vector product (d f / d wrt) . v by forward mode: `eval_points` (one per
    `wrt`, of its type) pushed through each op's R-op rule; the result has f's structure.

    An output no tangent reaches — it does not depend on `wrt`, or only through an op that is
    not differentiable (argmax, a shape, a user op whose `R_op` gives None) — is, as in Theano,
    a `DisconnectedInputError` (a ValueError) with `disconnected_outputs="raise"`; with "warn"
    or "ignore" it is zeros (`return_disconnected="zero"`), None or `disconnected_type()`."""
    _check_policy(disconnected_outputs)
    if return_disconnected not in ("zero", "None", "Disconnected"):
        raise ValueError("return_disconnected must be 'zero', 'None' or 'Disconnected', "
                         f"got {return_disconnected!r}")
    single_f = not isinstance(f, (list, tuple))
    fs = [as_tensor_variable(f)] if single_f else [as_tensor_variable(v) for v in f]
    _, wrt_list = _as_wrt_list(wrt, "Rop")
    vs = [eval_points] if isinstance(wrt, Variable) else list(eval_points)
    if len(vs) != len(wrt_list):
        raise ValueError(f"Rop: {len(wrt_list)} wrt variable(s) but {len(vs)} eval point(s)")
    tangents: dict[int, Variable] = {}
    for w, v in zip(wrt_list, vs):
        v = as_tensor_variable(v)
        if v.ndim != w.ndim:
            raise EvalPointError(f"Rop: eval point {v} ({v.type}) must have the ndim of {w} ({w.type})")
        tangents[id(w)] = cast(v, w.dtype) if w.type.is_continuous else v
    for node in toposort(fs, blockers=wrt_list):
        ins = [tangents.get(id(i)) for i in node.inputs]
        if all(t is None for t in ins):
            continue
        # as Theano: a leaf that is not differentiated gets a zero tangent (so `Rop(dot(x, W),
        # W, V)` still reads W, and a function given W does not find it unused)
        ins = [zeros_like(i) if t is None and i.owner is None and i.type.is_continuous else t
               for i, t in zip(node.inputs, ins)]
        for out, t in zip(node.outputs, op_rop(node, ins)):
            if t is not None:
                tangents[id(out)] = t
    results = [tangents[id(o)] if id(o) in tangents else
               _disconnected_output(k, o, disconnected_outputs, return_disconnected) for k, o in enumerate(fs)]
    if single_f:
        return results[0]
    return tuple(results) if isinstance(f, tuple) else results


def _disconnected_output(k: int, out: Variable, policy: str, give: str) -> Any:
    """What `Rop` returns for output #k that no tangent reaches, or the error it raises."""
    message = (f"Rop: output #{k} ({out}) does not change with the variables it is differentiated "
               f"with respect to (it does not depend on them, or only through an op that is not "
               f"differentiable); pass disconnected_outputs='ignore' to get zeros")
    if policy == "raise":
        raise DisconnectedInputError(message)
    if policy == "warn":
        warnings.warn(message, stacklevel=3)
    if give == "None":
        return None
    if give == "Disconnected":
        return disconnected_type()
    return zeros_like(out)


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


# ---------------------------------------------------------------------------- gradient controls
def zero_grad(x: Any) -> Variable:
    """`x`, whose gradient is zero: `T.grad` through it gives zeros (x stays connected)."""
    return ZeroGrad()(as_tensor_variable(x))


def disconnected_grad(x: Any) -> Variable:
    """`x`, through which no gradient flows: what reaches the cost only through it is
    disconnected (`T.grad` raises `DisconnectedInputError` by default)."""
    return DisconnectedGrad()(as_tensor_variable(x))


def consider_constant(x: Any) -> Variable:
    """Theano's deprecated spelling of `zero_grad` (with a DeprecationWarning)."""
    warnings.warn("consider_constant() is deprecated, use zero_grad() or disconnected_grad() instead",
                  DeprecationWarning, stacklevel=2)
    return zero_grad(x)


def grad_clip(x: Any, lower_bound: float, upper_bound: float) -> Variable:
    """`x`, whose gradient is clipped to [lower_bound, upper_bound] on its way back."""
    return GradClip(lower_bound, upper_bound)(as_tensor_variable(x))


def grad_scale(x: Any, multiplier: float) -> Variable:
    """`x`, whose gradient is multiplied by `multiplier` on its way back."""
    return GradScale(multiplier)(as_tensor_variable(x))
