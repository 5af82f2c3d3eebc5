"""`tensor.fused_reduce`: a reduction of a value computed elementwise by a scalar body.

    %s = tensor.fused_reduce(%a = %x, %b = %y) {axes = array<i64: 1>, kind = "sum"}
           : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?xf32> {
      %e = scalar.exp %a : f32
      %m = scalar.mul %e, %b : f32
      scalar.yield %m : f32
    }

The body (as in `tensor.fused`) yields one scalar per element of the operands' broadcast shape;
the op reduces it over `axes` with `kind` (sum, prod, max, min) — `sum(exp(x) * y, axis=1)`
without the intermediate tensor, one pass over memory. Its text is `tensor.fused`'s.
"""
from __future__ import annotations

from ..ir.core import IsolatedFromAbove, Pure
from .builtin import TensorType
from .op_base import compatible
from .tensor_fused import FusedOp

KINDS = ("sum", "prod", "max", "min")


class FusedReduceOp(FusedOp):
    """`tensor.fused_reduce`: `reduce(kind, axes)` of a fused elementwise body's one result."""

    name = "tensor.fused_reduce"
    traits = (Pure, IsolatedFromAbove)

    @property
    def kind(self) -> str:
        return self.attributes["kind"].value  # type: ignore[attr-defined]

    @property
    def axes(self) -> tuple[int, ...]:
        return tuple(self.attributes["axes"])  # type: ignore[arg-type]

    def verify_(self) -> None:
        shape, device, yields = self.verify_body()
        if "kind" not in self.attributes or self.kind not in KINDS:
            raise self.error(f"needs kind = one of {', '.join(KINDS)}")
        if "axes" not in self.attributes:
            raise self.error("needs axes = array<i64: ...>")
        axes = self.axes
        if not axes or list(axes) != sorted(set(axes)) or axes[0] < 0 or axes[-1] >= len(shape):
            raise self.error(f"axes {list(axes)} must be sorted, unique, non-empty and < {len(shape)}")
        if len(yields) != 1 or len(self.results) != 1:
            raise self.error("body must yield exactly one value and the op have one result")
        if yields[0].type.is_bool and self.kind in ("sum", "prod"):
            raise self.error(f"{self.kind} of i1 is not defined")
        kept = tuple(d for i, d in enumerate(shape) if i not in axes)
        expected = TensorType(kept, yields[0].type, device)
        if not compatible(self.results[0].type, expected):
            raise self.error(f"result has type {self.results[0].type}, but the operands, body and "
                             f"axes give {expected}")
