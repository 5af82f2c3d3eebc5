"""Graph ops of the softmax family along the last axis — `Softmax`, `LogSoftmax` and
`SoftmaxGrad` (Theano's `Softmax`, `LogSoftmax`, `SoftmaxGrad`) — lowering to
`tensor.softmax`, `tensor.log_softmax` and `tensor.softmax_grad`. Ops rather than
compositions, so that the gradient of a softmax stays one op that `stabilize` can simplify
(a cross-entropy's gradient at the logits becomes `p·Σy - y`, no division by p)."""
from __future__ import annotations

from .graph import Apply, Op, Variable, infer_via_dialect


class _RowOp(Op):
    arity = 1

    def make_node(self, *inputs: Variable) -> Apply:  # type: ignore[override]
        from .basic import as_tensor_variable
        xs = [as_tensor_variable(x) for x in inputs]
        if len(xs) != self.arity:
            raise TypeError(f"{self}: expects {self.arity} input(s), got {len(xs)}")
        types = infer_via_dialect(self.ir_name, [x.type for x in xs], {})
        assert types is not None, f"the tensor dialect has no {self.ir_name}"
        return Apply(self, xs, [Variable(types[0])])


class Softmax(_RowOp):
    """exp(x - max) / Σ exp(x - max) along the last axis."""

    ir_name = "tensor.softmax"

    def grad(self, inputs, outputs, output_grads):
        return [SoftmaxGrad()(output_grads[0], outputs[0])]


class LogSoftmax(_RowOp):
    """x - max - log Σ exp(x - max) along the last axis."""

    ir_name = "tensor.log_softmax"

    def grad(self, inputs, outputs, output_grads):
        from .basic import exp
        from .mathops import sum as sum_
        gz = output_grads[0]
        return [gz - sum_(gz, -1, keepdims=True) * exp(outputs[0])]


class SoftmaxGrad(_RowOp):
    """(g - Σ g·p)·p along the last axis: the gradient at x when g is the one at softmax(x)."""

    ir_name = "tensor.softmax_grad"
    arity = 2

    def grad(self, inputs, outputs, output_grads):
        from .mathops import sum as sum_
        (g, p), gz = inputs, output_grads[0]
        s = sum_(g * p, -1, keepdims=True)
        return [SoftmaxGrad()(gz, p), gz * (g - s) - g * sum_(gz * p, -1, keepdims=True)]
