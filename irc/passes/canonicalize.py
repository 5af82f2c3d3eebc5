"""`canonicalize`: constant folding, algebraic identities, cast clean-up, CSE and DCE, to a fixpoint.

    x * 1 -> x     x + 0 -> x     x - 0 -> x     x / 1 -> x     neg(neg(x)) -> x
    cast(x : T to T) -> x         cast(cast(x, B), C) -> cast(x, C)  when A -> B is exact
    x - x -> 0  and  x * 0 -> 0   for integers only (inf - inf and inf * 0 are NaN in floats)
    dim(f(a, b), k) -> dim(a, k)  f elementwise, a's dim k not a static 1
    dim(gather(x, i), k) -> dim(i, k) or x's dim;  dim(scatter(d, ...), k) -> dim(d, k)
    dim(dimshuffle(x, p), k) -> dim(x, p[k])
    dimshuffle(dimshuffle(x, p), q) -> dimshuffle(x, p after q);  an identity dimshuffle -> x

Broadcasting: an identity only fires when the result has exactly the type of the value that
replaces it (`x: tensor<1xf32>` times `ones: tensor<3xf32>` is a broadcast, not `x`).
`x + 0 -> x` drops the sign of a float zero (-0.0 + 0.0 is +0.0), as Theano does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dialects.builtin import DenseAttr, TensorType
from ..dialects.tensor_base import FOLD_MAX_ELEMENTS, num_elements
from ..ir.attributes import DenseArrayAttr, IntegerAttr, TypeAttr
from ..ir.core import OP_REGISTRY, BlockArgument, ElementwiseTrait, Operation, Value
from ..ir.pass_manager import Pass, option, register_pass
from ..ir.rewriter import PatternRewriter, RewritePattern, apply_patterns_greedily
from ..ir.transforms import eliminate_common_subexpressions, eliminate_dead_code
from ..ir.types import ScalarType
from .tensor_match import is_splat, producer


# ---------------------------------------------------------------------------- helpers
def _element(value: Value) -> ScalarType | None:
    t = value.type
    return t.element if isinstance(t, TensorType) else None


def _is_integer(value: Value) -> bool:
    e = _element(value)
    return e is not None and e.is_integer and not e.is_bool


def _other_if_splat(op: Operation, number: float, commutative: bool) -> Value | None:
    """For `op(x, c)` (or `op(c, x)` when commutative) with `c` a splat of `number`, return `x`
    if `op`'s result has exactly x's type (no broadcast hides in the op)."""
    a, b = op.operands
    candidates = [(a, b), (b, a)] if commutative else [(a, b)]
    for x, c in candidates:
        if is_splat(c, number) and x.type == op.results[0].type:
            return x
    return None


def _zeros_like(rewriter: PatternRewriter, like: Value) -> Value:
    """A zero tensor of like's type: a constant when the shape is static and small, else a
    one-element zero broadcast to `like`'s shape."""
    t = like.type
    assert isinstance(t, TensorType)
    n = num_elements(t.shape)
    small = t if n is not None and n <= FOLD_MAX_ELEMENTS else TensorType((1,) * t.rank, t.element, t.device)
    attr = DenseAttr.from_array(np.zeros(small.shape, dtype=t.element.numpy_name), small)
    zero = rewriter.create("tensor.constant", [], {"value": attr}).result
    if small == t:
        return zero
    return rewriter.create("tensor.broadcast", [zero, like]).result


# ---------------------------------------------------------------------------- identities
class DropIdentityElement(RewritePattern):
    """`x op e -> x` where `e` is a splat of op's identity element (one instance per rule)."""

    def __init__(self, name: str, root: str, element: float, commutative: bool, summary: str):
        self.name, self.root, self.element, self.commutative = name, root, element, commutative
        self.summary = summary

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        x = _other_if_splat(op, self.element, commutative=self.commutative)
        if x is None:
            return False
        rewriter.replace_op(op, [x])
        return True


IDENTITY_PATTERNS = (
    DropIdentityElement("MulByOne", "tensor.mul", 1.0, True, "`x * 1 -> x` (either side)."),
    DropIdentityElement("AddZero", "tensor.add", 0.0, True, "`x + 0 -> x` (either side)."),
    DropIdentityElement("SubZero", "tensor.sub", 0.0, False, "`x - 0 -> x`."),
    DropIdentityElement("DivByOne", "tensor.div", 1.0, False, "`x / 1 -> x`."),
)


class NegNeg(RewritePattern):
    """`neg(neg(x)) -> x`."""

    root = "tensor.neg"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        inner = producer(op.operands[0], "tensor.neg")
        if inner is None or inner.operands[0].type != op.results[0].type:
            return False
        rewriter.replace_op(op, [inner.operands[0]])
        return True


class SubSelf(RewritePattern):
    """`x - x -> 0` for integers (floats: inf - inf and nan - nan are nan, not 0)."""

    root = "tensor.sub"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        a, b = op.operands
        if a is not b or not _is_integer(a) or a.type != op.results[0].type:
            return False
        rewriter.replace_op(op, [_zeros_like(rewriter, a)])
        return True


class MulByZero(RewritePattern):
    """`x * 0 -> 0` for integers (floats: inf * 0 and nan * 0 are nan)."""

    root = "tensor.mul"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        result = op.results[0]
        if not _is_integer(result):
            return False
        a, b = op.operands
        for x, zero in ((a, b), (b, a)):
            if not is_splat(zero, 0.0):
                continue
            if zero.type == result.type:  # the zero operand already has the result's shape
                rewriter.replace_op(op, [zero])
                return True
            if x.type == result.type:
                rewriter.replace_op(op, [_zeros_like(rewriter, x)])
                return True
        return False


# ---------------------------------------------------------------------------- casts
_MANTISSA_BITS = {16: 11, 32: 24, 64: 53}


def is_exact_conversion(src: ScalarType, dst: ScalarType) -> bool:
    """Whether every value of `src` is exactly representable in `dst` (a widening cast)."""
    if src == dst or src.is_bool:
        return True
    if dst.is_bool:
        return False
    if src.is_float:
        return dst.is_float and dst.bitwidth > src.bitwidth
    if dst.is_float:  # signed integers: magnitudes up to 2**(width-1)
        return src.bitwidth - 1 <= _MANTISSA_BITS[dst.bitwidth]
    return dst.bitwidth >= src.bitwidth


class CastToSameType(RewritePattern):
    """`cast(x) -> x` when the cast changes nothing."""

    root = "tensor.cast"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        x = op.operands[0]
        if x.type != op.results[0].type:
            return False
        rewriter.replace_op(op, [x])
        return True


class CastOfWideningCast(RewritePattern):
    """`cast(cast(x: A, B), C) -> cast(x, C)` (or `x`) when the cast A -> B is exact.

    The second cast then sees x's value unchanged, so going through B makes no difference."""

    root = "tensor.cast"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        inner = producer(op.operands[0], "tensor.cast")
        if inner is None:
            return False
        x = inner.operands[0]
        a, b = _element(x), _element(inner.results[0])
        if a is None or b is None or not is_exact_conversion(a, b):
            return False
        result_type = op.results[0].type
        if x.type == result_type:
            rewriter.replace_op(op, [x])
            return True
        target = _element(op.results[0])
        if not isinstance(result_type, TensorType) or x.type != result_type.with_element(a):
            return False  # a shape or placement differs: leave it to the verifier's rules
        rewriter.replace_op(op, rewriter.create("tensor.cast", [x], {"to": TypeAttr(target)}))
        return True


# ---------------------------------------------------------------------------- shapes
class DimOfElementwise(RewritePattern):
    """`dim(f(a, b), k) -> dim(a, k)` for an elementwise `f` (or a broadcast) when a's dim k
    is not a static 1: the size is the operands' (Theano's broadcasting), so the size no
    longer waits for `f`'s value — fusion can then put `f` with what uses the size."""

    root = "tensor.dim"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        owner = op.operands[0].owner
        if not isinstance(owner, Operation) or not owner.op_name.startswith("tensor."):
            return False
        if owner.op_name == "tensor.broadcast":
            candidates = list(owner.operands)
        elif owner.has_trait(ElementwiseTrait):
            candidates = sorted(owner.operands, key=lambda v: not isinstance(v, BlockArgument))
        else:
            return False
        axis = op.attributes["axis"].value
        rank = op.operands[0].type.rank
        for v in candidates:
            t = v.type
            if isinstance(t, TensorType) and t.rank == rank and t.shape[axis] != 1 \
                    and t.device == op.operands[0].type.device:
                rewriter.replace_op(op, rewriter.create("tensor.dim", [v], dict(op.attributes)))
                return True
        return False


class DimFromSource(RewritePattern):
    """`dim(gather(x, i, j), a)` -> the index arrays' dim a (one not a static 1) for the
    broadcast dims, else x's matching dim; `dim(scatter(dest, ...), a) -> dim(dest, a)`;
    `dim(dimshuffle(x, p), a) -> dim(x, p[a])`: so a size (`set_subtensor`'s broadcast of its
    value, say) never keeps a gather alive."""

    root = "tensor.dim"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        owner = op.operands[0].owner
        axis = op.attributes["axis"].value
        if not isinstance(owner, Operation):
            return False
        if owner.op_name == "tensor.scatter":
            source, at = owner.operands[0], axis
        elif owner.op_name == "tensor.dimshuffle":
            source, at = owner.operands[0], owner.attributes["pattern"].value[axis]
            if at < 0:
                return False  # a new axis: a static 1, which the type already says
        elif owner.op_name == "tensor.gather":
            indices = owner.operands[1:]
            rank = indices[0].type.rank
            if axis >= rank:
                source, at = owner.operands[0], axis - rank + len(indices)
            else:
                wide = [v for v in indices if v.type.shape[axis] != 1]
                if not wide:
                    return False
                source, at = wide[0], axis
        else:
            return False
        rewriter.replace_op(op, rewriter.create("tensor.dim", [source], {"axis": IntegerAttr(at)}))
        return True


class DimShuffleOfDimShuffle(RewritePattern):
    """`dimshuffle(dimshuffle(x, p), q) -> dimshuffle(x, [p[k] for k in q])` (-1 stays -1), and
    a dimshuffle that changes nothing -> x: the `[-1]` then `[]` a gradient of a sum makes."""

    root = "tensor.dimshuffle"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        x = op.operands[0]
        pattern = tuple(op.attributes["pattern"])
        if pattern == tuple(range(x.type.rank)) and x.type == op.results[0].type:
            rewriter.replace_op(op, [x])
            return True
        inner = producer(x, "tensor.dimshuffle")
        if inner is None:
            return False
        outer = tuple(inner.attributes["pattern"])
        composed = tuple(-1 if k == -1 else outer[k] for k in pattern)
        new = rewriter.create("tensor.dimshuffle", [inner.operands[0]], {"pattern": DenseArrayAttr(composed)})
        if new.results[0].type != op.results[0].type:  # cannot happen; keep the op if it did
            rewriter.erase_op(new)
            return False
        rewriter.replace_op(op, new)
        return True


CANONICALIZE_PATTERNS: tuple[RewritePattern, ...] = (
    *IDENTITY_PATTERNS, NegNeg(), SubSelf(), MulByZero(),
    CastToSameType(), CastOfWideningCast(), DimOfElementwise(), DimFromSource(), DimShuffleOfDimShuffle(),
)


def canonicalization_patterns() -> list[RewritePattern]:
    """This file's patterns plus those every registered op class contributes."""
    patterns = list(CANONICALIZE_PATTERNS)
    for cls in list(OP_REGISTRY.values()):
        for p in cls.canonicalize_patterns:
            patterns.append(p() if isinstance(p, type) else p)
    return patterns


# ---------------------------------------------------------------------------- the pass
@register_pass
@dataclass
class Canonicalize(Pass):
    """Folds, simplifies and cleans up, repeating until nothing changes."""

    name = "canonicalize"
    summary = "Constant folding, algebraic identities, cast clean-up, CSE and DCE, to a fixpoint"
    tags = ("canonicalize", "fast_run", "fast_compile")
    statistics = {
        "folded": "ops folded (to constants or existing values)",
        "erased-dead": "dead ops erased by the rewrite driver",
        "cse": "ops replaced by an equivalent dominating op",
        "dce": "dead ops erased after CSE",
        "did not converge": "rewrite rounds stopped by max-iterations",
        **{p.name: getattr(p, "summary", None) or (type(p).__doc__ or "").strip().splitlines()[0]
           for p in CANONICALIZE_PATTERNS},
    }
    max_iterations: int = option(10, "rewrite rounds at most (then CSE, and again)", minimum=1)
    cse: bool = True

    def run(self, module: Operation) -> None:
        patterns = canonicalization_patterns()
        for _ in range(max(1, self.max_iterations)):
            apply_patterns_greedily(module, patterns, max_iterations=self.max_iterations, stats=self.stats)
            if not self.cse:
                return
            merged = eliminate_common_subexpressions(module)
            if not merged:
                return
            self.stats["cse"] += merged
            self.stats["dce"] += eliminate_dead_code(module)
        self.stats["did not converge"] += 1
