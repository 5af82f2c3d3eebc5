"""The reverse-mode rule of every built-in op, in one registry.

Ops sit below the `T.*` functions in the layering, yet their gradients are most naturally
written with those functions (`dot(gz, b.T)`). So the rules live here, above both, keyed by op
class; `op_grad` finds the rule of an op (through its class's MRO) and falls back to the op's
own `grad` method, which is where a user-defined op states its gradient (Theano's protocol).

A rule takes `(op, inputs, outputs, output_grads)` and returns one gradient (or None: no
gradient flows) per input; output grads are None for outputs the cost does not depend on."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from ..dialects.tensor_base import NO_BOUND
from .advanced_index import AdvancedIncSubtensor, AdvancedSubtensor
from .basic import (add, cast, dimshuffle, elemwise, eq, exp, fill, lt, mul, reshape, shape, subtensor_static,
                    switch, take, true_div, zeros_like)
from .blas import Dot
from .complex_ops import conj, real
from .creation import arange
from .creation_ops import AllocShape, Iota
from .elemwise import Cast, Elemwise
from .gradient_ops import DisconnectedGrad, GradClip, GradientOverride, GradScale, ZeroGrad
from .graph import Op, Variable
from .ifelse_op import IfElse
from .integer_index import IntegerIndex, SetIntegerIndex
from .join import Join
from .mathops import clip, keep_dims, sum as sum_
from .matrix_products import dot
from .order_ops import CumOp, Sort
from .reduce import CAReduce
from .shape_functions import patternbroadcast
from .shape_ops import Alloc, DimShuffle, Reshape, Shape_i
from .softmax_ops import LogSoftmax, Softmax, SoftmaxGrad
from .subtensor import DynamicSubtensor, IncSubtensor, Subtensor
from .user_op import UserOp

GradRule = Callable[[Op, Sequence[Variable], Sequence[Variable], Sequence["Variable | None"]],
                    "list[Variable | None]"]
GRAD_RULES: dict[type, GradRule] = {}


def grad_rule(*op_classes: type) -> Callable[[GradRule], GradRule]:
    """Register the decorated function as the gradient of `op_classes` (and subclasses)."""
    def register(rule: GradRule) -> GradRule:
        for cls in op_classes:
            GRAD_RULES[cls] = rule
        return rule
    return register


def op_grad(op: Op, inputs: Sequence[Variable], outputs: Sequence[Variable],
            output_grads: Sequence[Variable | None]) -> list[Variable | None]:
    """The gradients of `op`'s inputs: the registered rule or `grad` method nearest to its
    class (so a user's subclass of a built-in op that defines `grad` gets its own)."""
    for cls in type(op).__mro__:
        rule = GRAD_RULES.get(cls)
        if rule is not None:
            return rule(op, inputs, outputs, output_grads)
        if "grad" in vars(cls) and cls is not Op:
            break
    if isinstance(op, UserOp):
        return user_op_grad(op, inputs, outputs, output_grads)
    return op.grad(inputs, outputs, output_grads)


class NoGradient:
    """An input's gradient that does not exist (jv's order, tri_gamma's argument): reverse mode
    raises NotImplementedError with `message` only where that input leads to a `wrt` (Theano's
    `grad_undefined`, which is an error only where it is used)."""

    def __init__(self, message: str):
        self.message = message


def user_op_grad(op: UserOp, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 output_grads: Sequence[Variable | None]) -> list[Variable | None]:
    """Theano's protocol for user ops: `L_op(inputs, outputs, output_grads)` when defined, else
    `grad(inputs, output_grads)`; an output the cost does not read gets zeros (the user's rule
    may add them up), and a `DisconnectedType()()` gradient is no gradient."""
    grads = [g if g is not None else zeros_like(o) for g, o in zip(output_grads, outputs)]
    if type(op).L_op is not UserOp.L_op:
        result = op.L_op(list(inputs), list(outputs), grads)
    elif type(op).grad is not UserOp.grad:
        result = op.grad(list(inputs), grads)
    else:
        raise NotImplementedError(f"{op} defines no grad(inputs, output_grads): irc cannot differentiate it")
    if isinstance(result, Variable) or not isinstance(result, (list, tuple)) or len(result) != len(inputs):
        raise TypeError(f"{op}.grad must return a list of {len(inputs)} gradient(s), one per input, "
                        f"got {result!r}")
    out: list[Variable | None] = []
    for i, (g, x) in enumerate(zip(result, inputs)):
        if g is None or not isinstance(g, Variable):
            if g is not None and type(getattr(g, "type", None)).__name__ != "DisconnectedType":
                raise TypeError(f"{op}.grad: gradient #{i} is a {type(g).__name__}, not a symbolic variable")
            out.append(None)
            continue
        if g.ndim != x.ndim:
            raise TypeError(f"{op}.grad: gradient #{i} has {g.ndim} dimension(s), but input #{i} ({x.type}) "
                            f"has {x.ndim}")
        out.append(g)
    return out


def sum_to_pattern(g: Variable, broadcastable: Sequence[bool]) -> Variable:
    """`g` summed over the dims that are broadcastable in the input but not in `g` (the dims
    the input was broadcast along), keeping them as size-1 dims."""
    axes = [d for d, b in enumerate(broadcastable) if b and not g.broadcastable[d]]
    return sum_(g, axis=axes, keepdims=True) if axes else g


def build_expression(expr: Any, env: dict[str, Variable]) -> Variable | float:
    """A table expression (symbols, float constants, (op, *args) tuples) as graph nodes."""
    if isinstance(expr, str):
        return env[expr]
    if isinstance(expr, (int, float)):
        return float(expr)
    return elemwise(expr[0], *[build_expression(a, env) for a in expr[1:]])


# ---------------------------------------------------------------------------- elementwise
@grad_rule(Elemwise)
def elemwise_grad(op: Elemwise, inputs, outputs, output_grads):
    """The table row's derivative expressions, times the output gradient, summed back over
    the dims each input was broadcast along."""
    gz = output_grads[0]
    if gz is None or not outputs[0].type.is_continuous:
        return [None] * len(inputs)
    env = dict(zip(("x", "y", "z"), inputs))
    env.update(out=outputs[0], gz=gz)
    grads: list[Variable | NoGradient | None] = []
    derivative = op.row.derivative
    holomorphic = op.scalar_op not in NOT_HOLOMORPHIC and any(v.type.is_complex for v in (*inputs, *outputs))
    if inputs[0].type.is_complex:
        derivative = COMPLEX_DERIVATIVES.get(op.scalar_op, derivative)
    if holomorphic:  # gz·conj(f'(z)) = conj(conj(gz)·f'(z)): the table's expression, conjugated
        env["gz"] = conj(gz)
    for x, expr in zip(inputs, derivative):
        if expr is None and x.type.is_continuous:  # (a zero would be silently wrong: say so, if it is needed)
            grads.append(NoGradient(f"{op} has no gradient with respect to its float input {x} yet"))
        elif expr is None or not x.type.is_continuous:
            grads.append(None)
        elif isinstance(expr, (int, float)):
            grads.append(zeros_like(x) if expr == 0 else fill(x, float(expr)))
        else:
            g = build_expression(expr, env)
            g = fill(gz, g) if not isinstance(g, Variable) else g
            g = conj(g) if holomorphic else g
            grads.append(to_input_dtype(sum_to_pattern(g, x.broadcastable), x))
    return grads


# Gradients through complex numbers: the gradient of a real cost f with respect to z = x + iy is
# G = ∂f/∂x + i·∂f/∂y, so that a real input's gradient is the real part of what reaches it. Through
# a holomorphic w = h(z) (the table's complex rows but these) it is G_w·conj(h'(z)); the others
# give theirs here or in the table (real: complex(gz, 0); imag: complex(0, gz); conj: conj(gz)).
NOT_HOLOMORPHIC = ("abs", "real", "imag", "conj", "angle", "complex", "complex_from_polar")
COMPLEX_DERIVATIVES = {"abs": (("div", ("mul", "gz", "x"), "out"),)}  # d|z| = gz·z/|z|


def to_input_dtype(g: Variable, x: Variable) -> Variable:
    """Gradient `g` in `x`'s dtype; a complex gradient reaching a real input keeps its real
    part (the derivative of a real cost along a real direction)."""
    if g.type.is_complex and not x.type.is_complex:
        g = real(g)
    return cast(g, x.dtype)


@grad_rule(Cast)
def cast_grad(op: Cast, inputs, outputs, output_grads):
    (x,), (gz,) = inputs, output_grads
    if gz is None:
        return [None]
    # an integer cast to float gets the float gradient (never cast back to an integer)
    return [to_input_dtype(gz, x) if x.type.is_continuous else gz]


@grad_rule(GradientOverride)
def gradient_override_grad(op: GradientOverride, inputs, outputs, output_grads):
    """`zero_grad`: zeros (still connected); `disconnected_grad`: none; `grad_clip`: clipped;
    `grad_scale`: scaled."""
    (gz,) = output_grads
    if gz is None or isinstance(op, DisconnectedGrad):
        return [None]
    if isinstance(op, ZeroGrad):
        return [zeros_like(gz)]
    if isinstance(op, GradClip):
        return [clip(gz, op.lower, op.upper)]
    if isinstance(op, GradScale):
        return [gz * op.multiplier]
    return [gz]


@grad_rule(IfElse)
def ifelse_grad(op: IfElse, inputs, outputs, output_grads):
    """The output gradient flows to the taken branch's value, zeros to the other: one ifelse
    of them (lazy too), none to the condition."""
    thens, elses = op.branches(inputs)
    flowing = [k for k, (g, out) in enumerate(zip(output_grads, outputs)) if g is not None and out.type.is_continuous]
    if not flowing:
        return [None] * len(inputs)
    # both branches have the output's dtype (joined_type), and a float sum keeps it
    gs = {k: cast(output_grads[k], outputs[k].dtype) for k in flowing}
    to_then = [sum_to_pattern(gs[k], thens[k].broadcastable) for k in flowing]
    to_else = [sum_to_pattern(gs[k], elses[k].broadcastable) for k in flowing]
    zeros_then = [zeros_like(thens[k]) for k in flowing]
    zeros_else = [zeros_like(elses[k]) for k in flowing]
    n = len(flowing)
    res = IfElse(2 * n).make_node(inputs[0], *to_then, *zeros_else, *zeros_then, *to_else).outputs
    grads: list[Variable | None] = [None] * len(inputs)
    for j, k in enumerate(flowing):
        grads[1 + k] = res[j]
        grads[1 + op.n_outs + k] = res[n + j]
    return grads


# ---------------------------------------------------------------------------- reductions, products
@grad_rule(CAReduce)
def reduce_grad(op: CAReduce, inputs, outputs, output_grads):
    (x,), (out,), (gz,) = inputs, outputs, output_grads
    if gz is None or not x.type.is_continuous or op.kind in ("argmax", "argmin"):
        return [None]
    gk = keep_dims(gz, op.axes, x.ndim)
    if op.kind == "sum":
        return [Alloc()(gk, x)]
    outk = keep_dims(out, op.axes, x.ndim)
    if op.kind in ("max", "min"):  # every element equal to the extremum gets the gradient
        return [mul(eq(x, outk), gk)]
    if op.kind == "prod":  # d(prod)/dx_i = prod / x_i (assumes no zeros)
        return [true_div(mul(gk, outk), x)]
    raise NotImplementedError(f"no gradient for reduction '{op.kind}'")


@grad_rule(Dot)
def dot_grad(op: Dot, inputs, outputs, output_grads):
    """Each gradient with its input's broadcast pattern (as Theano's Dot.grad: where only one
    operand knows that a contracted dim has size 1, the products give another one)."""
    (a, b), (gz,) = inputs, output_grads
    if outputs[0].type.is_complex:  # G·conj(f'): the rule below with conjugated operands
        a, b = (conj(v) if v.type.is_complex else v for v in (a, b))
    if a.ndim == 1 and b.ndim == 1:      # z = sum_k a_k b_k
        grads = [gz * b, gz * a]
    elif a.ndim == 2 and b.ndim == 1:    # z_i = sum_k a_ik b_k
        grads = [dimshuffle(gz, (0, "x")) * dimshuffle(b, ("x", 0)), dot(a.T, gz)]
    elif a.ndim == 1 and b.ndim == 2:    # z_j = sum_k a_k b_kj
        grads = [dot(b, gz), dimshuffle(a, (0, "x")) * dimshuffle(gz, ("x", 0))]
    else:
        grads = [dot(gz, b.T), dot(a.T, gz)]
    return [g if g.broadcastable == x.broadcastable else patternbroadcast(g, x.broadcastable)
            for g, x in zip(grads, (a, b))]


# ---------------------------------------------------------------------------- shapes
@grad_rule(DimShuffle)
def dimshuffle_grad(op: DimShuffle, inputs, outputs, output_grads):
    (x,), (gz,) = inputs, output_grads
    new_axes = [k for k, p in enumerate(op.new_order) if p == "x" and not gz.broadcastable[k]]
    if new_axes:
        gz = sum_(gz, axis=new_axes, keepdims=True)
    where = {p: k for k, p in enumerate(op.new_order) if p != "x"}
    # dims of x the pattern dropped were broadcastable: put them back as 'x'
    return [dimshuffle(gz, [where[d] if d in where else "x" for d in range(x.ndim)])]


@grad_rule(Reshape)
def reshape_grad(op: Reshape, inputs, outputs, output_grads):
    return [reshape(output_grads[0], shape(inputs[0]))] + [None] * (len(inputs) - 1)


@grad_rule(Shape_i, Iota)
def no_grad(op: Op, inputs, outputs, output_grads):
    return [None] * len(inputs)


@grad_rule(Alloc)
def alloc_grad(op: Alloc, inputs, outputs, output_grads):
    return [sum_to_pattern(output_grads[0], inputs[0].broadcastable), None]


# ---------------------------------------------------------------------------- slices and joins
@grad_rule(Subtensor)
def subtensor_grad(op: Subtensor, inputs, outputs, output_grads):
    (x,), (gz,) = inputs, output_grads
    if not x.type.is_continuous:
        return [None]
    return [IncSubtensor(op.starts, op.stops, op.steps)(zeros_like(x), gz)]


@grad_rule(IncSubtensor)
def inc_subtensor_grad(op: IncSubtensor, inputs, outputs, output_grads):
    (dest, src), (gz,) = inputs, output_grads
    g_dest = op(gz, zeros_like(src)) if dest.type.is_continuous else None
    g_src = None
    if src.type.is_continuous:
        g_src = sum_to_pattern(Subtensor(op.starts, op.stops, op.steps)(gz), src.broadcastable)
    return [g_dest, g_src]


@grad_rule(DynamicSubtensor)
def dynamic_subtensor_grad(op: DynamicSubtensor, inputs, outputs, output_grads):
    """gz written into zeros at the rows the slice read: from its start (negative counts from
    the end, then clipped to [0, n], numpy's rule), as many as gz has."""
    (x, start, stop), (gz,) = inputs, output_grads
    if not x.type.is_continuous:
        return [None, None, None]
    n = shape(x)[op.axis]
    first = clip(switch(lt(start, 0), add(start, n), start), 0, n)
    rows = add(arange(shape(gz)[op.axis]), first)
    order = [op.axis] + [d for d in range(x.ndim) if d != op.axis]
    moved = AdvancedIncSubtensor(set_instead_of_inc=True)(dimshuffle(zeros_like(x), order),
                                                          dimshuffle(gz, order), rows)
    return [dimshuffle(moved, [order.index(d) for d in range(x.ndim)]), None, None]


@grad_rule(IntegerIndex)
def integer_index_grad(op: IntegerIndex, inputs, outputs, output_grads):
    x, indices, gz = inputs[0], inputs[1:], output_grads[0]
    gx = SetIntegerIndex(op.axes)(zeros_like(x), gz, *indices) if x.type.is_continuous else None
    return [gx] + [None] * len(indices)


@grad_rule(SetIntegerIndex)
def set_integer_index_grad(op: SetIntegerIndex, inputs, outputs, output_grads):
    dest, src, indices, gz = inputs[0], inputs[1], inputs[2:], output_grads[0]
    g_dest = op(gz, zeros_like(src), *indices) if dest.type.is_continuous else None
    g_src = None
    if src.type.is_continuous:
        g_src = sum_to_pattern(IntegerIndex(op.axes)(gz, *indices), src.broadcastable)
    return [g_dest, g_src] + [None] * len(indices)


@grad_rule(AdvancedSubtensor)
def advanced_subtensor_grad(op: AdvancedSubtensor, inputs, outputs, output_grads):
    """A gather's gradient scatters-adds into zeros (a row read twice gets both gradients)."""
    x, indices, gz = inputs[0], inputs[1:], output_grads[0]
    gx = AdvancedIncSubtensor()(zeros_like(x), gz, *indices) if x.type.is_continuous else None
    return [gx] + [None] * len(indices)


@grad_rule(AdvancedIncSubtensor)
def advanced_inc_subtensor_grad(op: AdvancedIncSubtensor, inputs, outputs, output_grads):
    """Theano's rule: dest gets gz (for set, with the written places zeroed), src gets gz
    gathered at the indices (for set with repeated indices, every write: Theano's answer)."""
    dest, src, indices, gz = inputs[0], inputs[1], inputs[2:], output_grads[0]
    g_dest = None
    if dest.type.is_continuous:
        g_dest = op(gz, zeros_like(src), *indices) if op.set_instead_of_inc else gz
    g_src = None
    if src.type.is_continuous:
        g_src = sum_to_pattern(AdvancedSubtensor()(gz, *indices), src.broadcastable)
    return [g_dest, g_src] + [None] * len(indices)


# ---------------------------------------------------------------------------- softmax family
@grad_rule(Softmax)
def softmax_grad(op: Softmax, inputs, outputs, output_grads):
    return [SoftmaxGrad()(output_grads[0], outputs[0])]


@grad_rule(LogSoftmax)
def log_softmax_grad(op: LogSoftmax, inputs, outputs, output_grads):
    gz = output_grads[0]
    return [gz - sum_(gz, -1, keepdims=True) * exp(outputs[0])]


@grad_rule(SoftmaxGrad)
def softmax_grad_grad(op: SoftmaxGrad, inputs, outputs, output_grads):
    (g, p), gz = inputs, output_grads[0]
    s = sum_(g * p, -1, keepdims=True)
    return [SoftmaxGrad()(gz, p), gz * (g - s) - g * sum_(gz * p, -1, keepdims=True)]


@grad_rule(Join)
def join_grad(op: Join, inputs, outputs, output_grads):
    """Slices of the gradient: static ones where every input has one row along `axis` (a
    broadcastable dim, as in T.stack), else the rows `start + arange(size)` of each input,
    gathered (a gather's size is the input's, which the caller of native code can compute
    before the call; a slice with run-time bounds would not be)."""
    gz = output_grads[0]
    if all(t.broadcastable[op.axis] for t in inputs):
        return [subtensor_static(gz, {op.axis: (k, k + 1, 1)}, keep_ones=(op.axis,)) if t.type.is_continuous else None
                for k, t in enumerate(inputs)]
    grads: list[Variable | None] = []
    start: Any = None
    for t in inputs:
        rows = arange(t.shape[op.axis])
        grads.append(take(gz, rows if start is None else add(rows, start), axis=op.axis)
                     if t.type.is_continuous else None)
        start = t.shape[op.axis] if start is None else add(start, t.shape[op.axis])
    return grads


@grad_rule(AllocShape)
def alloc_shape_grad(op: AllocShape, inputs, outputs, output_grads):
    value = inputs[0]
    return [sum_to_pattern(output_grads[0], value.broadcastable)] + [None] * (len(inputs) - 1)


# ---------------------------------------------------------------------------- order along an axis
def reverse(x: Variable, axis: int) -> Variable:
    """`x` reversed along `axis` (a slice with step -1)."""
    return subtensor_static(x, {axis: (NO_BOUND, NO_BOUND, -1)})


@grad_rule(CumOp)
def cumulative_grad(op: CumOp, inputs, outputs, output_grads):
    """cumsum: each input counts in every later sum, so its gradient is the reversed running
    sum of gz; cumprod: that of gz * out, divided by x (assumes no zeros, as Theano)."""
    (x,), (out,), (gz,) = inputs, outputs, output_grads
    if not x.type.is_continuous:
        return [None]
    if op.kind == "sum":
        return [reverse(CumOp(op.axis, "sum")(reverse(gz, op.axis)), op.axis)]
    return [true_div(reverse(CumOp(op.axis, "sum")(reverse(mul(gz, out), op.axis)), op.axis), x)]


def permutation_hits(perm: Variable, axis: int, dtype: str) -> tuple[Variable, list[int], list]:
    """For `perm` (argsort along `axis`): the 0/1 tensor hit[..., i, j] = (perm[..., i] == j)
    with `axis` moved last (i) and a new last axis (j); the order used and its inverse."""
    n = perm.ndim
    order = [d for d in range(n) if d != axis] + [axis]
    p = dimshuffle(perm, order)
    j = Iota()(shape(perm)[axis])
    hit = eq(dimshuffle(p, (*range(n), "x")), dimshuffle(j, ("x",) * n + (0,)))
    inverse = [order.index(d) for d in range(n)]
    return cast(hit, dtype), order, inverse


@grad_rule(Sort)
def sort_grad(op: Sort, inputs, outputs, output_grads):
    """out[i] = x[perm[i]], so x[j] gets gz[i] where perm[i] == j (an n x n one-hot product
    per row: the tensor dialect has no scatter)."""
    (x,), (gz,) = inputs, output_grads
    if op.kind == "indices" or not x.type.is_continuous:
        return [None]
    hit, order, inverse = permutation_hits(Sort(op.axis, "indices")(x), op.axis, x.dtype)
    g = dimshuffle(dimshuffle(gz, order), (*range(x.ndim), "x"))
    return [dimshuffle(sum_(mul(hit, g), axis=x.ndim - 1), inverse)]
