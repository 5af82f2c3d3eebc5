"""`Print` (Theano's `theano.printing.Print`): an identity op that prints its input when it runs.

For looking at an intermediate value inside a compiled function: `Print("msg")(x)` is `x`, and
each call that computes it prints `msg __str__ = <x>` (one line per name of `attrs`; a callable
attribute is called: `attrs=("shape",)` prints the shape). It runs on the CPU between native
parts, as every user op does, so rewrites do not see through it (as in Theano). The gradient and
R-op pass through unchanged."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .basic import as_tensor_variable
from .graph import Apply, Variable
from .user_op import UserOp


def print_attributes(op: "Print", value: np.ndarray) -> None:
    """Theano's default `global_fn`: `message attr = value.attr` (called when callable)."""
    for attr in op.attrs:
        shown = getattr(value, attr)
        print(op.message, attr, "=", shown() if callable(shown) else shown)


class Print(UserOp):
    """`Print(message, attrs=("__str__",), global_fn=print_attributes)(x)`: `x`, printed when
    computed; `global_fn(op, value)` does the printing."""

    __props__ = ("message", "attrs", "global_fn")
    view_map = {0: [0]}

    def __init__(self, message: str = "", attrs: Sequence[str] = ("__str__",),
                 global_fn: Callable[["Print", np.ndarray], Any] = print_attributes):
        if isinstance(attrs, str):
            raise TypeError(f"Print({message!r}): attrs is a sequence of attribute names, got the string "
                            f"{attrs!r} (write ({attrs!r},))")
        self.message = message
        self.attrs = tuple(attrs)
        self.global_fn = global_fn

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list[list]) -> None:
        output_storage[0][0] = inputs[0]
        self.global_fn(self, inputs[0])

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return list(output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable]) -> list:
        return list(eval_points)

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list:
        return list(input_shapes)
