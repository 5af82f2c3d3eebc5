"""`Dot` (tensor.dot): vector·vector, matrix·vector, vector·matrix, matrix·matrix, one dtype.
`specialize` turns it into gemv/gemm; the frontend only states the product."""
from __future__ import annotations

from .graph import Apply, Op, Variable, infer_via_dialect


class Dot(Op):
    ir_name = "tensor.dot"

    def make_node(self, a: Variable, b: Variable) -> Apply:  # type: ignore[override]
        if a.ndim not in (1, 2) or b.ndim not in (1, 2):
            raise TypeError(f"Dot: operands must be vectors or matrices, got {a.type} and {b.type}")
        types = infer_via_dialect(self.ir_name, [a.type, b.type], {})
        assert types is not None, "the tensor dialect has no tensor.dot"
        return Apply(self, [a, b], [Variable(types[0])])

    def grad(self, inputs, outputs, output_grads):
        from .basic import dimshuffle
        from .mathops import dot
        (a, b), (gz,) = inputs, output_grads
        if a.ndim == 1 and b.ndim == 1:      # z = sum_k a_k b_k
            return [gz * b, gz * a]
        if a.ndim == 2 and b.ndim == 1:      # z_i = sum_k a_ik b_k
            return [dimshuffle(gz, (0, "x")) * dimshuffle(b, ("x", 0)), dot(a.T, gz)]
        if a.ndim == 1 and b.ndim == 2:      # z_j = sum_k a_k b_kj
            return [dot(b, gz), dimshuffle(a, (0, "x")) * dimshuffle(gz, ("x", 0))]
        return [dot(gz, b.T), dot(a.T, gz)]
