"""Integer indexing: `IntegerIndex` (`x[i]`, `m[i, j]`: tensor.index) and `SetIntegerIndex`
(`x` with `x[i]` replaced: tensor.insert_index), with constant or symbolic 0-d integer indices.

numpy's rule holds at run time: `-n <= i < n` on an axis of size `n`, else an IndexError
naming the user's line. Each is the other's gradient (no gradient flows to an index)."""
from __future__ import annotations

from typing import Sequence

from ..ir.attributes import Attribute, DenseArrayAttr
from .gradient_rules import sum_to_pattern
from .graph import Apply, Op, Variable, infer_via_dialect


class _Indexed(Op):
    __props__ = ("axes",)

    def __init__(self, axes: Sequence[int]):
        self.axes = tuple(int(a) for a in axes)

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"axes": DenseArrayAttr(self.axes)}

    def _node(self, inputs: list[Variable]) -> Apply:
        types = infer_via_dialect(self.ir_name, [v.type for v in inputs], self.ir_attributes())
        assert types is not None, f"the tensor dialect has no {self.ir_name}"
        return Apply(self, inputs, [Variable(types[0])])


class IntegerIndex(_Indexed):
    """`x` at integer index `indices[k]` on axis `axes[k]`; those axes are dropped."""

    ir_name = "tensor.index"

    def make_node(self, x: Variable, *indices: Variable) -> Apply:  # type: ignore[override]
        return self._node([x, *indices])

    def grad(self, inputs, outputs, output_grads):
        from .basic import zeros_like
        x, indices, gz = inputs[0], inputs[1:], output_grads[0]
        gx = SetIntegerIndex(self.axes)(zeros_like(x), gz, *indices) if x.type.is_float else None
        return [gx] + [None] * len(indices)


class SetIntegerIndex(_Indexed):
    """`dest` with `dest[indices]` replaced by `src` (value semantics: a new tensor)."""

    ir_name = "tensor.insert_index"

    def make_node(self, dest: Variable, src: Variable, *indices: Variable) -> Apply:  # type: ignore[override]
        return self._node([dest, src, *indices])

    def grad(self, inputs, outputs, output_grads):
        from .basic import zeros_like
        dest, src, indices, gz = inputs[0], inputs[1], inputs[2:], output_grads[0]
        g_dest = self(gz, zeros_like(src), *indices) if dest.type.is_float else None
        g_src = None
        if src.type.is_float:
            g_src = sum_to_pattern(IntegerIndex(self.axes)(gz, *indices), src.broadcastable)
        return [g_dest, g_src] + [None] * len(indices)
