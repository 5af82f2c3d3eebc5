"""The forward-mode (R-op) rule of every built-in op, in one registry (as `gradient_rules`).

A rule takes `(op, inputs, outputs, tangents)` — one tangent per input, None where the input
does not depend on the variables `T.Rop` differentiates with respect to — and returns one
tangent per output (None: the output does not change with them). `op_rop` finds the rule of
an op through its class's MRO, then the op's own `R_op` method (Theano's protocol for user
ops); an op with neither raises NotImplementedError naming it and its user's line."""
from __future__ import annotations

from typing import Callable, Sequence

from .advanced_index import AdvancedIncSubtensor, AdvancedSubtensor
from .basic import add, cast, dimshuffle, eq, exp, mul, sub, true_div, zeros_like
from .blas import Dot
from .elemwise import Cast, Elemwise
from .creation_ops import AllocShape, Iota
from .gradient_rules import build_expression, permutation_hits
from .gradient_ops import DisconnectedGrad, GradientOverride, ZeroGrad
from .graph import Apply, Op, Variable
from .ifelse_op import IfElse
from .integer_index import IntegerIndex, SetIntegerIndex
from .join import Join
from .mathops import keep_dims, sum as sum_
from .matrix_products import dot
from .order_ops import CumOp, Sort
from .reduce import CAReduce
from .softmax_ops import LogSoftmax, Softmax, SoftmaxGrad
from .shape_ops import Alloc, DimShuffle, Reshape, Shape_i
from .subtensor import DynamicSubtensor, IncSubtensor, Subtensor

Tangents = Sequence["Variable | None"]
RopRule = Callable[[Op, Sequence[Variable], Sequence[Variable], Tangents], "list[Variable | None]"]
ROP_RULES: dict[type, RopRule] = {}


def rop_rule(*op_classes: type) -> Callable[[RopRule], RopRule]:
    """Register the decorated function as the R-op of `op_classes` (and subclasses)."""
    def register(rule: RopRule) -> RopRule:
        for cls in op_classes:
            ROP_RULES[cls] = rule
        return rule
    return register


def op_rop(node: Apply, tangents: Tangents) -> list[Variable | None]:
    """The tangents of `node`'s outputs given its inputs' tangents."""
    for cls in type(node.op).__mro__:  # the nearest rule or `R_op` of the op's class
        rule = ROP_RULES.get(cls)
        if rule is not None:
            return rule(node.op, node.inputs, node.outputs, tangents)
        if "R_op" in vars(cls):
            break
    own = getattr(node.op, "R_op", None)
    if own is None:
        raise NotImplementedError(f"{node.op} has no R-op (forward-mode) rule; built at {node.location}")
    return own(node.inputs, tangents)


def _or_zeros(tangents: Tangents, inputs: Sequence[Variable]) -> list[Variable]:
    return [t if t is not None else zeros_like(x) for t, x in zip(tangents, inputs)]


def _linear(op: Op, inputs, outputs, tangents):
    """Ops linear in their (float) inputs: the op applied to the tangents."""
    if not outputs[0].type.is_continuous:
        return [None]
    return [op(*_or_zeros(tangents, inputs))]


# Forward derivatives of the rows that take complex numbers apart or build them (the table's
# expressions are reverse-mode ones there; "gz" stands for the input's tangent): d|z| =
# Re(conj(z)·dz)/|z|, d angle(z) = Im(dz/z), d complex(x, y) = dx + i·dy,
# d(r·e^{iθ}) = e^{iθ}·dr + i·dθ·r·e^{iθ}. The holomorphic rows' expressions are f'(z)·dz already.
COMPLEX_TANGENTS = {
    "abs": (("div", ("real", ("mul", ("conj", "x"), "gz")), "out"),),
    "real": (("real", "gz"),),
    "imag": (("imag", "gz"),),
    "conj": (("conj", "gz"),),
    "angle": (("imag", ("div", "gz", "x")),),
    "complex": (("complex", "gz", 0.0), ("complex", 0.0, "gz")),
    "complex_from_polar": (("complex_from_polar", "gz", "y"), ("mul", ("complex", 0.0, "gz"), "out")),
}


@rop_rule(Elemwise)
def elemwise_rop(op: Elemwise, inputs, outputs, tangents):
    """sum_i d out / d x_i * v_i, from the table's derivative expressions, which are linear
    in the incoming gradient `gz`: putting the tangent v_i there gives the i-th term."""
    out = outputs[0]
    if not out.type.is_continuous:
        return [None]
    total = None
    derivative = op.row.derivative
    mixed = any(v.type.is_complex for v in (*inputs, out))
    if op.scalar_op in COMPLEX_TANGENTS and (op.scalar_op != "abs" or inputs[0].type.is_complex):
        derivative = COMPLEX_TANGENTS[op.scalar_op]
    for i, (x, v, expr) in enumerate(zip(inputs, tangents, derivative)):
        if v is None or expr is None or isinstance(expr, (int, float)) or not x.type.is_continuous:
            continue  # a constant derivative is 0 almost everywhere (floor, sign, ...)
        env = dict(zip(("x", "y", "z"), inputs))
        env.update(out=out, gz=cast(v, x.dtype if mixed else out.dtype))
        term = build_expression(expr, env)
        total = term if total is None else add(total, term)
    if total is None:
        return [None]
    if total.broadcastable != out.broadcastable:  # e.g. only a broadcast row had a tangent
        total = Alloc()(total, out)
    return [cast(total, out.dtype)]


@rop_rule(Cast)
def cast_rop(op: Cast, inputs, outputs, tangents):
    return [cast(tangents[0], op.dtype) if outputs[0].type.is_continuous and tangents[0] is not None else None]


@rop_rule(GradientOverride)
def gradient_override_rop(op: GradientOverride, inputs, outputs, tangents):
    """The tangent passes unchanged (`grad_clip`, `grad_scale` change reverse mode only), as
    Theano's: zero through `zero_grad`, none through `disconnected_grad`."""
    t = tangents[0]
    if t is None or isinstance(op, DisconnectedGrad):
        return [None]
    return [zeros_like(outputs[0]) if isinstance(op, ZeroGrad) else t]


@rop_rule(CAReduce)
def reduce_rop(op: CAReduce, inputs, outputs, tangents):
    (x,), (out,), (v,) = inputs, outputs, tangents
    if v is None or op.kind in ("argmax", "argmin") or not out.type.is_continuous:
        return [None]
    if op.kind == "sum":
        return [op(v)]
    outk = keep_dims(out, op.axes, x.ndim)
    if op.kind in ("max", "min"):  # the tangent at the extremum (averaged over ties)
        hit = cast(eq(x, outk), x.dtype)
        return [true_div(sum_(mul(hit, v), axis=op.axes), sum_(hit, axis=op.axes))]
    if op.kind == "prod":  # d prod = prod * sum(v / x) (assumes no zeros, as the gradient)
        return [mul(out, sum_(true_div(v, x), axis=op.axes))]
    raise NotImplementedError(f"no R-op for reduction '{op.kind}'")


@rop_rule(Dot)
def dot_rop(op: Dot, inputs, outputs, tangents):
    (a, b), (da, db) = inputs, tangents
    terms = [dot(da, b) if da is not None else None, dot(a, db) if db is not None else None]
    terms = [t for t in terms if t is not None]
    return [terms[0] if len(terms) == 1 else add(*terms)]


rop_rule(DimShuffle, Subtensor, Join, IncSubtensor)(_linear)


@rop_rule(Reshape)
def reshape_rop(op: Reshape, inputs, outputs, tangents):
    v = tangents[0]
    return [None if v is None else op(v, *inputs[1:])]


@rop_rule(Alloc)
def alloc_rop(op: Alloc, inputs, outputs, tangents):
    v = tangents[0]
    return [None if v is None else op(v, inputs[1])]


@rop_rule(Shape_i, Iota)
def shape_rop(op: Shape_i, inputs, outputs, tangents):
    return [None]



@rop_rule(AllocShape)
def alloc_shape_rop(op: AllocShape, inputs, outputs, tangents):
    v = tangents[0]
    return [None if v is None else op(v, *inputs[1:])]


@rop_rule(CumOp)
def cumulative_rop(op: CumOp, inputs, outputs, tangents):
    (x,), (out,), (v,) = inputs, outputs, tangents
    if v is None or not out.type.is_continuous:
        return [None]
    if op.kind == "sum":
        return [op(v)]
    return [mul(out, CumOp(op.axis, "sum")(true_div(v, x)))]  # d prod_{k<=i} = out_i sum v_k/x_k


@rop_rule(Sort)
def sort_rop(op: Sort, inputs, outputs, tangents):
    """The tangent follows its element: out'[i] = v[perm[i]]."""
    (x,), (v,) = inputs, tangents
    if v is None or op.kind == "indices" or not x.type.is_continuous:
        return [None]
    hit, order, inverse = permutation_hits(Sort(op.axis, "indices")(x), op.axis, x.dtype)
    vj = dimshuffle(dimshuffle(v, order), (*range(x.ndim - 1), "x", x.ndim - 1))
    return [dimshuffle(sum_(mul(hit, vj), axis=x.ndim), inverse)]


@rop_rule(IntegerIndex, AdvancedSubtensor, DynamicSubtensor)
def integer_index_rop(op: IntegerIndex, inputs, outputs, tangents):
    """Linear in x; the indices (and bounds) carry no tangent."""
    if tangents[0] is None or not outputs[0].type.is_continuous:
        return [None]
    return [op(tangents[0], *inputs[1:])]


@rop_rule(SetIntegerIndex, AdvancedIncSubtensor)
def set_integer_index_rop(op: SetIntegerIndex, inputs, outputs, tangents):
    """Linear in (dest, src); the indices carry no tangent."""
    if not outputs[0].type.is_continuous or (tangents[0] is None and tangents[1] is None):
        return [None]
    dest, src = _or_zeros(tangents[:2], inputs[:2])
    return [op(dest, src, *inputs[2:])]


@rop_rule(Softmax)
def softmax_rop(op: Softmax, inputs, outputs, tangents):
    """d softmax = (v - sum(v p)) p, which is SoftmaxGrad(v, p)."""
    return [None if tangents[0] is None else SoftmaxGrad()(tangents[0], outputs[0])]


@rop_rule(LogSoftmax)
def log_softmax_rop(op: LogSoftmax, inputs, outputs, tangents):
    v = tangents[0]
    return [None if v is None else sub(v, sum_(mul(v, exp(outputs[0])), -1, keepdims=True))]


@rop_rule(SoftmaxGrad)
def softmax_grad_rop(op: SoftmaxGrad, inputs, outputs, tangents):
    """out = (g - sum(g p)) p: linear in g; in p, (g - sum(g p)) vp - p sum(g vp)."""
    (g, p), (vg, vp) = inputs, tangents
    terms = []
    if vg is not None:
        terms.append(SoftmaxGrad()(vg, p))
    if vp is not None:
        s = sum_(mul(g, p), -1, keepdims=True)
        terms.append(sub(mul(sub(g, s), vp), mul(p, sum_(mul(g, vp), -1, keepdims=True))))
    return [None if not terms else terms[0] if len(terms) == 1 else add(*terms)]


@rop_rule(IfElse)
def ifelse_rop(op: IfElse, inputs, outputs, tangents):
    """The taken branch's tangents (zeros where a branch value has none)."""
    n = op.n_outs
    if all(t is None for t in tangents[1:]):
        return [None] * n
    values = _or_zeros(tangents[1:], inputs[1:])
    floats = [out.type.is_continuous for out in outputs]
    res = IfElse(n).make_node(inputs[0], *[cast(v, out.dtype) for v, out in zip(values[:n], outputs)],
                              *[cast(v, out.dtype) for v, out in zip(values[n:], outputs)]).outputs
    return [r if f else None for r, f in zip(res, floats)]
