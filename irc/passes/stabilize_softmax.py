"""`stabilize` rules of the softmax family (along the last axis), after Theano's
`local_softmax`, `local_log_softmax` and `crossentropy_softmax_1hot` rewrites:

    exp(x - max(x)) / sum(exp(x - max(x)))      -> softmax(x)     (also unshifted: exp(x)/sum(exp(x)))
    (x - max(x)) - log(sum(exp(x - max(x))))   -> log_softmax(x)  (also x - log(sum(exp(x))))
    log(softmax(x))                             -> log_softmax(x)
    softmax_grad(a / p, p)                      -> a - p·sum(a)    (p = softmax(x))

max and sum are over the last axis, kept as a size-1 dim (`keepdims`). The last rule is the
gradient of a cross-entropy: with a = -gz·y it gives gz·(p·Σy - y) — `p - y` for a one-hot y
and a unit gz — with no division by p (exact: (a/p - Σ(a/p)·p)·p = a - p·Σa), so the gradient
stays finite where p underflows to 0.
"""
from __future__ import annotations

from ..ir.attributes import DenseArrayAttr, StringAttr
from ..ir.core import Operation, Value
from ..ir.rewriter import PatternRewriter, RewritePattern
from .tensor_match import is_float_tensor, producer


def keepdims_reduce(value: Value, kind: str) -> Value | None:
    """x when `value` is `dimshuffle(reduce_kind(x, last axis), keepdims)`, else None."""
    shuffle = producer(value, "tensor.dimshuffle")
    if shuffle is None:
        return None
    reduce = producer(shuffle.operands[0], "tensor.reduce")
    if reduce is None or reduce.attributes["kind"].value != kind:
        return None
    x = reduce.operands[0]
    rank = x.type.rank
    if tuple(reduce.attributes["axes"]) != (rank - 1,):
        return None
    if tuple(shuffle.attributes["pattern"]) != tuple(range(rank - 1)) + (-1,):
        return None
    return x


def shifted_source(value: Value) -> Value:
    """x when `value` is `x - max(x)` (kept dims, last axis); otherwise `value` itself (the
    unshifted form, which the fused op makes stable)."""
    sub = producer(value, "tensor.sub")
    if sub is not None and keepdims_reduce(sub.operands[1], "max") is sub.operands[0]:
        return sub.operands[0]
    return value


class HandWrittenSoftmax(RewritePattern):
    """`exp(s) / sum(exp(s))`, s = x - max(x) or x → `softmax(x)`."""

    root = "tensor.div"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        e, total = op.operands
        exp = producer(e, "tensor.exp")
        if exp is None or not is_float_tensor(op.result) or keepdims_reduce(total, "sum") is not e:
            return False
        x = shifted_source(exp.operands[0])
        if x.type != op.result.type:
            return False
        rewriter.replace_op(op, rewriter.create("tensor.softmax", [x]))
        return True


class HandWrittenLogSoftmax(RewritePattern):
    """`s - log(sum(exp(s)))`, s = x - max(x) or x → `log_softmax(x)`."""

    root = "tensor.sub"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        s, log_total = op.operands
        log = producer(log_total, "tensor.log")
        if log is None or not is_float_tensor(op.result):
            return False
        summed = keepdims_reduce(log.operands[0], "sum")
        exp = producer(summed, "tensor.exp") if summed is not None else None
        if exp is None or exp.operands[0] is not s:
            return False
        x = shifted_source(s)
        if x.type != op.result.type:
            return False
        rewriter.replace_op(op, rewriter.create("tensor.log_softmax", [x]))
        return True


class LogOfSoftmax(RewritePattern):
    """`log(softmax(x))` → `log_softmax(x)`."""

    root = "tensor.log"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        softmax = producer(op.operands[0], "tensor.softmax")
        if softmax is None:
            return False
        rewriter.replace_op(op, rewriter.create("tensor.log_softmax", [softmax.operands[0]]))
        return True


class SoftmaxGradOfQuotient(RewritePattern):
    """`softmax_grad(a / p, p)` → `a - p·sum(a)` (sum over the last axis, kept)."""

    root = "tensor.softmax_grad"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        g, p = op.operands
        div = producer(g, "tensor.div")
        if div is None or div.operands[1] is not p or div.operands[0].type != p.type:
            return False
        a = div.operands[0]
        rank = a.type.rank
        total = rewriter.create("tensor.reduce", [a], {"kind": StringAttr("sum"),
                                                      "axes": DenseArrayAttr((rank - 1,))})
        kept = rewriter.create("tensor.dimshuffle", [total.results[0]],
                               {"pattern": DenseArrayAttr(tuple(range(rank - 1)) + (-1,))})
        scaled = rewriter.create("tensor.mul", [p, kept.results[0]])
        rewriter.replace_op(op, rewriter.create("tensor.sub", [a, scaled.results[0]]))
        return True


SOFTMAX_PATTERNS: tuple[RewritePattern, ...] = (
    HandWrittenSoftmax(), HandWrittenLogSoftmax(), LogOfSoftmax(), SoftmaxGradOfQuotient(),
)
