"""Ops that relabel or resize dimensions without arithmetic: `DimShuffle` (tensor.dimshuffle),
`Reshape` (tensor.reshape), `Shape_i` (tensor.dim) and `Alloc` (tensor.broadcast)."""
from __future__ import annotations

from typing import Sequence

from ..dialects.tensor_base import DYNAMIC
from ..ir.attributes import Attribute, DenseArrayAttr, IntegerAttr
from .graph import Apply, Op, Variable, infer_via_dialect
from .tensor_type import TensorType


def _infer(op: Op, inputs: Sequence[Variable]) -> TensorType:
    types = infer_via_dialect(op.ir_name, [v.type for v in inputs], op.ir_attributes())
    if types is None:
        raise RuntimeError(f"the tensor dialect has no '{op.ir_name}' op")
    return types[0]


class DimShuffle(Op):
    """Theano's DimShuffle: output dim k is input dim `new_order[k]`, or a new broadcastable
    dim for 'x'. Input dims left out must be broadcastable (they are dropped)."""

    __props__ = ("new_order",)
    ir_name = "tensor.dimshuffle"

    def __init__(self, new_order: Sequence[int | str]):
        order = []
        for p in new_order:
            if p != "x" and not (isinstance(p, int) and not isinstance(p, bool)):
                raise TypeError(f"DimShuffle pattern entries are ints or 'x', got {p!r}")
            order.append(p)
        self.new_order = tuple(order)

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"pattern": DenseArrayAttr(tuple(-1 if p == "x" else p for p in self.new_order))}

    def make_node(self, x: Variable) -> Apply:  # type: ignore[override]
        for p in self.new_order:
            if p != "x" and not 0 <= p < x.ndim:
                raise ValueError(f"{self}: dimension {p} does not exist in {x.type} (ndim={x.ndim})")
        return Apply(self, [x], [Variable(_infer(self, [x]))])

    def __str__(self) -> str:  # a view, never a copy: Theano's inplace DimShuffle
        return "InplaceDimShuffle{" + ",".join(str(p) for p in self.new_order) + "}"


class Reshape(Op):
    """`tensor.reshape`: `shape` holds static sizes, at most one -1, and DYNAMIC entries read at
    run time from a second input (an int64 vector with one entry per output dim)."""

    __props__ = ("shape",)
    ir_name = "tensor.reshape"

    def __init__(self, shape: Sequence[int]):
        self.shape = tuple(int(s) for s in shape)

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"shape": DenseArrayAttr(self.shape)}

    def make_node(self, x: Variable, sizes: Variable | None = None) -> Apply:  # type: ignore[override]
        inputs = [x] if sizes is None else [x, sizes]
        return Apply(self, inputs, [Variable(_infer(self, inputs))])

    def __str__(self) -> str:
        return "Reshape{" + ",".join("?" if s == DYNAMIC else str(s) for s in self.shape) + "}"


class Shape_i(Op):
    """`x.shape[i]`: the size of dimension `i` as a 0-d int64 (tensor.dim)."""

    __props__ = ("i",)
    ir_name = "tensor.dim"

    def __init__(self, i: int):
        self.i = int(i)

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"axis": IntegerAttr(self.i)}

    def make_node(self, x: Variable) -> Apply:  # type: ignore[override]
        if not 0 <= self.i < x.ndim:
            raise ValueError(f"{self}: {x.type} has no dimension {self.i}")
        return Apply(self, [x], [Variable(_infer(self, [x]))])


class MakeVector(Op):
    """A vector of 0-d values of one dtype (tensor.from_elements): what `x.shape` is."""

    def __init__(self, dtype: str = "int64"):
        self.dtype = dtype

    __props__ = ("dtype",)
    ir_name = "tensor.from_elements"

    def make_node(self, *elements: Variable) -> Apply:  # type: ignore[override]
        for k, e in enumerate(elements):
            if e.ndim != 0 or e.dtype != self.dtype:
                raise TypeError(f"{self}: element {k} must be a 0-d {self.dtype}, got {e.type}")
        return Apply(self, list(elements), [Variable(_infer(self, elements))])

    def __str__(self) -> str:
        return f"MakeVector{{dtype='{self.dtype}'}}"


class Alloc(Op):
    """`tensor.broadcast %value, %like`: `value` (same rank) repeated to the shape of `like`;
    the building block of `zeros_like`, `ones_like`, `fill` and of gradients of reductions."""

    ir_name = "tensor.broadcast"

    def make_node(self, value: Variable, like: Variable) -> Apply:  # type: ignore[override]
        if value.ndim != like.ndim:
            raise TypeError(f"Alloc: value {value.type} and shape source {like.type} need the same ndim")
        return Apply(self, [value, like], [Variable(_infer(self, [value, like]))])
