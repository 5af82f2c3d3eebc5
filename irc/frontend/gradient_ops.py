"""Ops that are the identity on values and only change what `T.grad` sends through them
(Theano's `theano.gradient.zero_grad`, `disconnected_grad`, `grad_clip`, `grad_scale`).

Each lowers to a cast to its own dtype, which `canonicalize` removes, so compiled code never
sees it (Theano's tests check that the op is gone from `f.maker.fgraph`); their gradient and
R-op rules are in `gradient_rules.py` and `rop_rules.py`."""
from __future__ import annotations

import copy

from ..ir.attributes import Attribute, TypeAttr
from ..ir.types import scalar_from_numpy
from .graph import Apply, Op, Variable


class GradientOverride(Op):
    """`x` unchanged; the subclass says what becomes of the gradient flowing back to `x`."""

    ir_name = "tensor.cast"

    def make_node(self, x: Variable) -> Apply:  # type: ignore[override]
        if not isinstance(x, Variable):
            raise TypeError(f"{self}: expects a symbolic variable, got {type(x).__name__}")
        op = copy.copy(self)  # one op per node: the cast it lowers to is to this node's dtype
        op._dtype = x.dtype
        return Apply(op, [x], [Variable(x.type)])

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"to": TypeAttr(scalar_from_numpy(self._dtype))}


class ZeroGrad(GradientOverride):
    """Gradient zero (still connected: `T.grad` through it alone gives zeros)."""


class DisconnectedGrad(GradientOverride):
    """No gradient at all: what only reaches the cost through it is disconnected."""


class GradClip(GradientOverride):
    """Gradient clipped to [lower, upper]."""

    __props__ = ("lower", "upper")

    def __init__(self, lower: float, upper: float):
        if not lower <= upper:
            raise ValueError(f"grad_clip: lower bound {lower} is above upper bound {upper}")
        self.lower, self.upper = lower, upper


class GradScale(GradientOverride):
    """Gradient multiplied by `multiplier`."""

    __props__ = ("multiplier",)

    def __init__(self, multiplier: float):
        self.multiplier = multiplier
