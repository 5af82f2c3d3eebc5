"""`CumOp` (tensor.cumulative: cumsum/cumprod along an axis) and `Sort` (tensor.sort: sorted
values or the sorting permutation along an axis)."""
from __future__ import annotations

from ..ir.attributes import Attribute, IntegerAttr, StringAttr
from .graph import Apply, Op, Variable, infer_via_dialect

_MODES = {"add": "sum", "mul": "prod", "sum": "sum", "prod": "prod"}


class _AlongAxis(Op):
    __props__ = ("axis", "kind")

    def __init__(self, axis: int, kind: str):
        self.axis = int(axis)
        self.kind = kind

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"axis": IntegerAttr(self.axis), "kind": StringAttr(self.kind)}

    def make_node(self, x: Variable) -> Apply:  # type: ignore[override]
        if not 0 <= self.axis < x.ndim:
            raise ValueError(f"{self}: axis {self.axis} is out of range for {x.type}")
        types = infer_via_dialect(self.ir_name, [x.type], self.ir_attributes())
        return Apply(self, [x], [Variable(types[0])])


class CumOp(_AlongAxis):
    """Running sum (kind 'sum') or product ('prod') along `axis` (Theano's CumOp; its mode names
    'add' and 'mul' are accepted; `extra_ops.CumOp` applies Theano's axis rules)."""

    ir_name = "tensor.cumulative"

    def __init__(self, axis: int | None = None, kind: str = "add", mode: str | None = None):
        kind = mode or kind
        if kind not in _MODES:
            raise ValueError(f"CumOp: mode must be 'add' or 'mul', got {kind!r}")
        self.axis = None if axis is None else int(axis)  # (None: only in extra_ops.CumOp)
        self.kind = _MODES[kind]

    def __str__(self) -> str:
        return f"CumOp{{{self.axis}, {'add' if self.kind == 'sum' else 'mul'}}}"


class Sort(_AlongAxis):
    """Stable sort along `axis`: kind 'values' (SortOp) or 'indices' (ArgSortOp)."""

    ir_name = "tensor.sort"

    def __str__(self) -> str:
        return f"{'SortOp' if self.kind == 'values' else 'ArgSortOp'}{{stable}}"
