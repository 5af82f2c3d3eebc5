"""`Dot` (tensor.dot): vector·vector, matrix·vector, vector·matrix, matrix·matrix, one dtype.
`specialize` turns it into gemv/gemm; the frontend only states the product."""
from __future__ import annotations

from .graph import Apply, Op, Variable, infer_via_dialect


class Dot(Op):
    ir_name = "tensor.dot"

    def __str__(self) -> str:
        return "dot"

    def make_node(self, a: Variable, b: Variable) -> Apply:  # type: ignore[override]
        if a.ndim not in (1, 2) or b.ndim not in (1, 2):
            raise TypeError(f"Dot: operands must be vectors or matrices, got {a.type} and {b.type}")
        types = infer_via_dialect(self.ir_name, [a.type, b.type], {})
        assert types is not None, "the tensor dialect has no tensor.dot"
        return Apply(self, [a, b], [Variable(types[0])])
