"""`IfElse`: Theano's lazy conditional as a graph op — inputs `(cond, *then_values,
*else_values)`, one output per pair — lowering to `tensor.if`, whose regions hold what only one
branch needs (`lowering.py` puts each branch's private subgraph inside its region), so only the
taken branch runs. Its gradient and R-op rules are in gradient_rules.py and rop_rules.py."""
from __future__ import annotations

from typing import Sequence

from .graph import Apply, Op, Variable
from .tensor_type import TensorType


def _describe(v: Variable) -> str:
    return f"'{v.name}'" if v.name else "an unnamed value"


class IfElse(Op):
    """`cond ? then_values : else_values`, where only the values of the taken branch are computed."""

    __props__ = ("n_outs",)
    ir_name = "tensor.if"

    def __init__(self, n_outs: int):
        self.n_outs = n_outs

    def make_node(self, cond: Variable, *branches: Variable) -> Apply:  # type: ignore[override]
        if len(branches) != 2 * self.n_outs:
            raise TypeError(f"{self}: expects the condition and {self.n_outs} then- and "
                            f"{self.n_outs} else-value(s), got {len(branches)} value(s)")
        if cond.ndim != 0 or cond.dtype != "bool":
            raise TypeError(f"{self}: the condition must be a 0-d bool, got {cond.type} (irc.ifelse.ifelse "
                            f"converts a number with `!= 0`)")
        outputs = [Variable(joined_type(t, e, k)) for k, (t, e) in
                   enumerate(zip(branches[:self.n_outs], branches[self.n_outs:]))]
        return Apply(self, [cond, *branches], outputs)

    def branches(self, inputs: Sequence[Variable]) -> tuple[Sequence[Variable], Sequence[Variable]]:
        """The then-values and the else-values among one application's inputs."""
        return inputs[1:1 + self.n_outs], inputs[1 + self.n_outs:]


def joined_type(then_value: Variable, else_value: Variable, k: int = 0) -> TensorType:
    """The type of an ifelse output: both branches' dtype and ndim, which must agree; a dim is
    broadcastable when it is in both branches."""
    a, b = then_value.type, else_value.type
    if a.dtype != b.dtype or a.ndim != b.ndim:
        raise TypeError(f"ifelse: output #{k}'s branches differ in type: the then-branch gives "
                        f"{_describe(then_value)} of {a}, the else-branch {_describe(else_value)} "
                        f"of {b} (they must agree in dtype and ndim: cast one, or dimshuffle it)")
    return TensorType(a.dtype, tuple(x and y for x, y in zip(a.broadcastable, b.broadcastable)))
