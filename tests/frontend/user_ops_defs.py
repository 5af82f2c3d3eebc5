"""User ops the tests of `irc.Op` share, at module level so that functions using them pickle."""
from __future__ import annotations

import numpy as np

import irc
import irc.tensor as T
from irc.compile.ops import as_op


class ScaleOp(irc.Op):
    """y = factor * x."""

    __props__ = ("factor",)

    def __init__(self, factor):
        self.factor = factor

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return irc.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = (inputs[0] * self.factor).astype(node.outputs[0].dtype)

    def grad(self, inputs, output_grads):
        return [output_grads[0] * self.factor]


class AddSub(irc.Op):
    """(x + y, x - y): two outputs."""

    __props__ = ()

    def make_node(self, x, y):
        x, y = T.as_tensor_variable(x), T.as_tensor_variable(y)
        return irc.Apply(self, [x, y], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        output_storage[0][0] = x + y
        output_storage[1][0] = x - y


class Returns(irc.Op):
    """Returns what `make` builds from the input: for testing the checks of perform's outputs."""

    __props__ = ("kind",)

    def __init__(self, kind):
        self.kind = kind

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return irc.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        output_storage[0][0] = {"float32": lambda: x.astype("float32"), "rank": lambda: x[None],
                                "none": lambda: None, "list": lambda: x.tolist(),
                                "raise": lambda: 1 / 0, "ok": lambda: x.copy()}[self.kind]()


class Destroys(irc.Op):
    """Doubles its input in place and returns it; declares it (destroy_map) when `declared`."""

    __props__ = ("declared",)

    def __init__(self, declared):
        self.declared = declared
        self.destroy_map = {0: [0]} if declared else {}

    def make_node(self, x):
        return irc.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        x *= 2
        output_storage[0][0] = x


@as_op(itypes=[T.dvector], otypes=[T.dvector])
def cumulative_max(v):
    return np.maximum.accumulate(v)
