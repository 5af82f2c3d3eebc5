"""Graph ops of the softmax family along the last axis — `Softmax`, `LogSoftmax` and
`SoftmaxGrad` (Theano's `Softmax`, `LogSoftmax`, `SoftmaxGrad`) — lowering to
`tensor.softmax`, `tensor.log_softmax` and `tensor.softmax_grad`. Ops rather than
compositions, so that the gradient of a softmax stays one op that `stabilize` can simplify
(a cross-entropy's gradient at the logits becomes `p·Σy - y`, no division by p). Their
gradients and R-ops are in irc/frontend/gradient_rules.py and rop_rules.py."""
from __future__ import annotations

from .graph import Apply, Op, Variable, infer_via_dialect


class _RowOp(Op):
    arity = 1

    def make_node(self, *inputs: Variable) -> Apply:  # type: ignore[override]
        xs = list(inputs)
        for x in xs:
            if not isinstance(x, Variable):
                raise TypeError(f"{self}: inputs must be symbolic (T.nnet.softmax converts), got "
                                f"{type(x).__name__}")
        if len(xs) != self.arity:
            raise TypeError(f"{self}: expects {self.arity} input(s), got {len(xs)}")
        types = infer_via_dialect(self.ir_name, [x.type for x in xs], {})
        assert types is not None, f"the tensor dialect has no {self.ir_name}"
        return Apply(self, xs, [Variable(types[0])])


class Softmax(_RowOp):
    """exp(x - max) / Σ exp(x - max) along the last axis."""

    ir_name = "tensor.softmax"


class LogSoftmax(_RowOp):
    """x - max - log Σ exp(x - max) along the last axis."""

    ir_name = "tensor.log_softmax"


class SoftmaxGrad(_RowOp):
    """(g - Σ g·p)·p along the last axis: the gradient at x when g is the one at softmax(x)."""

    ir_name = "tensor.softmax_grad"
    arity = 2
