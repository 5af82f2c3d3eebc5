"""Theano's `Assert` (`theano.tensor.opt.Assert`, `assert_op`): a value passed through after a
check at run time that each condition holds — an AssertionError with the op's message
otherwise. It runs with numpy between the function's native parts (irc's user-op protocol, as
`numpy_run_ops.py`); its gradient is the value's, the conditions get none;
`get_scalar_constant_value` sees through it when every condition is a true constant."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .basic import as_tensor_variable
from .graph import Apply, Variable
from .user_op import UserOp


class Assert(UserOp):
    """`Assert(msg)(value, *conditions)`: `value`, checked (0-d conditions, as Theano's)."""

    __props__ = ("msg",)

    def __init__(self, msg: str = "Theano Assert failed!"):
        self.msg = msg

    def make_node(self, value: Any, *conditions: Any) -> Apply:  # type: ignore[override]
        value = as_tensor_variable(value)
        conditions = [as_tensor_variable(c) for c in conditions]
        for c in conditions:
            if c.ndim != 0:
                raise TypeError(f"{self}: each condition must be 0-d, got {c.type}")
        return Apply(self, [value, *conditions], [value.type()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list[list]) -> None:
        value, *conditions = inputs
        if not all(bool(c) for c in conditions):
            raise AssertionError(self.msg)
        output_storage[0][0] = np.array(value, copy=True)

    def grad(self, inputs, output_grads):  # type: ignore[override]
        return [output_grads[0]] + [None] * (len(inputs) - 1)


assert_op = Assert()


def constant_conditions_hold(node: Apply, value_of: Any) -> bool | None:
    """For `get_scalar_constant_value`: True when every condition of an Assert node is a
    constant that holds, False when one is a constant that fails, None when one is unknown."""
    values = [value_of(c) for c in node.inputs[1:]]
    if any(v is None for v in values):
        return None
    return all(bool(np.all(v)) for v in values)


def is_assert(v: Variable) -> bool:
    return v.owner is not None and isinstance(v.owner.op, Assert)
