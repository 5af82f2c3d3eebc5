"""`tensor.fused_reduce`: a fused elementwise body whose values are kept, reduced, or both.

    %s = tensor.fused_reduce(%a = %x, %b = %y) {axes = array<i64: 1>, kind = "sum"}
           : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?xf32> {
      %e = scalar.exp %a : f32
      %m = scalar.mul %e, %b : f32
      scalar.yield %m : f32
    }

    %g, %sum = tensor.fused_reduce(%a = %p, %b = %y) {axes = array<i64: 0>, kind = "sum"}
           : (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
      %d = scalar.sub %a, %b : f32
      scalar.yield %d, %d : f32, f32
    }

The body (as in `tensor.fused`) yields one scalar per result, per element of the operands'
broadcast shape. The first results are *elementwise*: tensors of that shape, as `tensor.fused`
returns them. The rest — at least one — are *reduced* over `axes` with `kind` (sum, prod, max,
min): they drop those dims. The result types tell which is which (a reduced one has fewer dims),
and the elementwise ones come first. One loop nest computes all of them, so a value that is
both returned and summed is read and written once, and `sum(exp(x) * y, axis=1)` has no
intermediate tensor. Its text is `tensor.fused`'s.
"""
from __future__ import annotations

from ..ir.core import IsolatedFromAbove, Pure
from .builtin import TensorType
from .op_base import compatible
from .tensor_fused import FusedOp

KINDS = ("sum", "prod", "max", "min")


class FusedReduceOp(FusedOp):
    """`tensor.fused_reduce`: elementwise results of a fused body, then reductions of it."""

    name = "tensor.fused_reduce"
    traits = (Pure, IsolatedFromAbove)

    @property
    def kind(self) -> str:
        return self.attributes["kind"].value  # type: ignore[attr-defined]

    @property
    def axes(self) -> tuple[int, ...]:
        return tuple(self.attributes["axes"])  # type: ignore[arg-type]

    @property
    def num_elementwise(self) -> int:
        """How many leading results are elementwise (the rest are reduced)."""
        rank = self.operand(0).type.rank if self.operands else 0
        return sum(1 for r in self.results if isinstance(r.type, TensorType) and r.type.rank == rank)

    @property
    def reduced_results(self) -> list:
        return self.results[self.num_elementwise:]

    def verify_(self) -> None:
        shape, device, yields = self.verify_body()
        if "kind" not in self.attributes or self.kind not in KINDS:
            raise self.error(f"needs kind = one of {', '.join(KINDS)}")
        if "axes" not in self.attributes:
            raise self.error("needs axes = array<i64: ...>")
        axes = self.axes
        if not axes or list(axes) != sorted(set(axes)) or axes[0] < 0 or axes[-1] >= len(shape):
            raise self.error(f"axes {list(axes)} must be sorted, unique, non-empty and < {len(shape)}")
        if len(yields) != len(self.results):
            raise self.error(f"body yields {len(yields)} value(s) but the op has "
                             f"{len(self.results)} result(s)")
        kept = tuple(d for i, d in enumerate(shape) if i not in axes)
        n = self.num_elementwise
        if n == len(self.results):
            raise self.error(f"needs at least one reduced result (of rank {len(kept)}); all "
                             f"{n} result(s) have the operands' rank {len(shape)}")
        for i, (v, r) in enumerate(zip(yields, self.results)):
            reduced = i >= n
            if reduced and v.type.is_bool and self.kind in ("sum", "prod"):
                raise self.error(f"{self.kind} of i1 is not defined (result #{i})")
            expected = TensorType(kept if reduced else shape, v.type, device)
            if not compatible(r.type, expected):
                what = (f"reduced over axes {list(axes)}, the {len(self.results) - n} last "
                        f"result(s)") if reduced else f"elementwise, the {n} first result(s)"
                raise self.error(f"result #{i} has type {r.type}, but the operands and body give "
                                 f"{expected} ({what})")

