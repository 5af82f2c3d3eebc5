"""Advanced (integer-array) indexing ops: `AdvancedSubtensor` (`x[i, j]` with integer arrays on
the leading axes: tensor.gather) and `AdvancedIncSubtensor` (`x` with those places set or added
to: tensor.scatter). Theano's AdvancedSubtensor1/AdvancedIncSubtensor1 are the one-vector case.

Index arrays on other axes are dimshuffles around these ops (`basic.subtensor` builds them).
Indices follow numpy at run time (`-n <= i < n`, an IndexError naming the user's line); each op
is the other's gradient (rules in gradient_rules.py and rop_rules.py)."""
from __future__ import annotations

from typing import Sequence

from ..ir.attributes import Attribute, StringAttr
from .graph import Apply, Op, Variable, infer_via_dialect


class AdvancedSubtensor(Op):
    """`x[indices[0], ..., indices[k-1]]`: the indices broadcast together, then `x`'s other axes.

    `source_axes` records which axes of the user's tensor the indices address (its input is
    that tensor with those axes moved to the front), so that set_subtensor/inc_subtensor can
    undo the move; the IR op does not need it."""

    __props__ = ("source_axes",)
    ir_name = "tensor.gather"

    def __init__(self, source_axes: Sequence[int] = (0,)):
        self.source_axes = tuple(int(a) for a in source_axes)

    def ir_attributes(self) -> dict[str, Attribute]:
        return {}

    def make_node(self, x: Variable, *indices: Variable) -> Apply:  # type: ignore[override]
        (out,) = infer_via_dialect(self.ir_name, [x.type, *(i.type for i in indices)], {})
        return Apply(self, [x, *indices], [Variable(out)])


class AdvancedIncSubtensor(Op):
    """`dest` with `src` added to (`set_instead_of_inc=False`, repeated indices accumulate) or
    written at (`True`, the last write wins) `dest[indices]`. Value semantics: a new tensor."""

    __props__ = ("set_instead_of_inc",)
    ir_name = "tensor.scatter"

    def __init__(self, set_instead_of_inc: bool = False):
        self.set_instead_of_inc = bool(set_instead_of_inc)

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"mode": StringAttr("set" if self.set_instead_of_inc else "add")}

    def make_node(self, dest: Variable, src: Variable, *indices: Variable) -> Apply:  # type: ignore[override]
        types = [dest.type, src.type, *(i.type for i in indices)]
        (out,) = infer_via_dialect(self.ir_name, types, self.ir_attributes())
        return Apply(self, [dest, src, *indices], [Variable(out)])

    def __str__(self) -> str:
        return f"AdvancedIncSubtensor{{{'set' if self.set_instead_of_inc else 'inc'}}}"
