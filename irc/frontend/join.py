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

    def grad(self, inputs, outputs, output_grads):
        """Slices of the gradient. Slices have static bounds in the tensor dialect, so this
        needs every input's size along `axis` known (a broadcastable dim, as in T.stack)."""
        from .basic import subtensor_static
        gz = output_grads[0]
        if not all(t.broadcastable[self.axis] for t in inputs):
            raise NotImplementedError(
                "gradient of concatenate along a dimension of unknown size needs slices with "
                "run-time bounds, which the tensor dialect does not have yet")
        grads, offset = [], 0
        for t in inputs:
            grads.append(subtensor_static(gz, {self.axis: (offset, offset + 1, 1)}, keep_ones=(self.axis,))
                         if t.type.is_float else None)
            offset += 1
        return grads
