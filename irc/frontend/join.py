"""`Join` (tensor.concat {axis}): numpy's concatenate of same-rank, same-dtype tensors."""
from __future__ import annotations

from ..ir.attributes import Attribute, IntegerAttr
from .graph import Apply, Op, Variable, infer_via_dialect


class Join(Op):
    __props__ = ("axis",)
    ir_name = "tensor.concat"

    def __init__(self, axis: int):
        self.axis = int(axis)

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"axis": IntegerAttr(self.axis)}

    def make_node(self, *tensors: Variable) -> Apply:
        types = infer_via_dialect(self.ir_name, [t.type for t in tensors], self.ir_attributes())
        assert types is not None, "the tensor dialect has no tensor.concat"
        return Apply(self, list(tensors), [Variable(types[0])])
