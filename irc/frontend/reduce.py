"""Reductions (`tensor.reduce {kind, axes}`): `CAReduce` and its named kinds `Sum`, `Prod`,
`Max`, `Min`, plus `Argmax`/`Argmin` (one axis, int64 result). Reduced axes are removed;
`keepdims` is a DimShuffle added by the functions in irc/frontend/mathops.py."""
from __future__ import annotations

from typing import Sequence

from ..ir.attributes import Attribute, DenseArrayAttr, StringAttr
from .graph import Apply, Op, Variable, infer_via_dialect


class CAReduce(Op):
    """A commutative-associative reduction of `kind` over sorted `axes`."""

    __props__ = ("kind", "axes")
    ir_name = "tensor.reduce"
    kind = ""

    def __init__(self, axes: Sequence[int], kind: str | None = None):
        if kind is not None:
            self.kind = kind
        self.axes = tuple(sorted(set(int(a) for a in axes)))

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"kind": StringAttr(self.kind), "axes": DenseArrayAttr(self.axes)}

    def make_node(self, x: Variable) -> Apply:  # type: ignore[override]
        for a in self.axes:
            if not 0 <= a < x.ndim:
                raise ValueError(f"{self}: axis {a} is out of range for {x.type} (ndim={x.ndim})")
        types = infer_via_dialect(self.ir_name, [x.type], self.ir_attributes())
        assert types is not None, "the tensor dialect has no tensor.reduce"
        return Apply(self, [x], [Variable(types[0])])

    def __str__(self) -> str:
        name = type(self).__name__
        label = f"{{{self.kind}}}" if name == "CAReduce" else ""
        return f"{name}{label}{{{','.join(map(str, self.axes))}}}"


class Sum(CAReduce):
    kind = "sum"


class Prod(CAReduce):
    kind = "prod"


class Max(CAReduce):
    kind = "max"


class Min(CAReduce):
    kind = "min"


class Argmax(CAReduce):
    """Index of the first maximum along one axis (int64); no gradient."""

    kind = "argmax"


class Argmin(CAReduce):
    kind = "argmin"


REDUCERS: dict[str, type[CAReduce]] = {c.kind: c for c in (Sum, Prod, Max, Min, Argmax, Argmin)}
