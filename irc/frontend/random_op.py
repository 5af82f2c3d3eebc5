"""`RandomDraw` (tensor.random): a sample of U[0, 1) or N(0, 1) from a Philox generator state,
at sizes given as 0-d int64 tensors. The numbers are a function of the state only; the
`RandomStreams` above it give every draw its own state and the default update that advances it.

No gradient flows through a draw (its inputs are the integer state and sizes), as in Theano."""
from __future__ import annotations

from ..ir.attributes import Attribute, StringAttr, TypeAttr
from ..ir.types import scalar_from_numpy
from .graph import Apply, Op, Variable, infer_via_dialect


class RandomDraw(Op):
    """`distribution` ('uniform' or 'normal') of float `dtype` at `sizes` from `state`."""

    __props__ = ("distribution", "dtype")
    ir_name = "tensor.random"

    def __init__(self, distribution: str, dtype: str):
        self.distribution = distribution
        self.dtype = dtype

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"distribution": StringAttr(self.distribution), "dtype": TypeAttr(scalar_from_numpy(self.dtype))}

    def make_node(self, state: Variable, *sizes: Variable) -> Apply:  # type: ignore[override]
        types = infer_via_dialect(self.ir_name, [state.type, *(s.type for s in sizes)], self.ir_attributes())
        return Apply(self, [state, *sizes], [Variable(types[0])])

    def __str__(self) -> str:
        return f"RandomFunction{{{self.distribution}}}"
