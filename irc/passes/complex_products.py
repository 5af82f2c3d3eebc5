"""A product of complex matrices as four real ones (part of `specialize`):

    dot(A, B) -> complex(dot(Re A, Re B) - dot(Im A, Im B), dot(Re A, Im B) + dot(Im A, Re B))

so that it runs on the register-tiled real gemm kernel (the direct lowering is a plain nest of
complex dot products, 3-5x slower than a complex BLAS); the real products then become gemms and
the difference and sum fold into their accumulators like any other. Four products, not Gauss's
three: the three-product form loses accuracy where the parts differ in magnitude."""
from __future__ import annotations

from ..dialects.builtin import TensorType
from ..ir.core import Operation
from ..ir.rewriter import PatternRewriter, RewritePattern


class ComplexDotByParts(RewritePattern):
    """`tensor.dot` of two complex matrices on the host → four real products."""

    root = "tensor.dot"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        t = op.result.type
        a, b = op.operands
        if not (isinstance(t, TensorType) and t.element.is_complex and t.device is None
                and a.type.rank == 2 and b.type.rank == 2 and a.type.element == b.type.element == t.element):
            return False
        ar, ai = (rewriter.create(f"tensor.{part}", [a]).result for part in ("real", "imag"))
        br, bi = (rewriter.create(f"tensor.{part}", [b]).result for part in ("real", "imag"))

        def dot(x, y):
            return rewriter.create("tensor.dot", [x, y]).result
        re = rewriter.create("tensor.sub", [dot(ar, br), dot(ai, bi)]).result
        im = rewriter.create("tensor.add", [dot(ar, bi), dot(ai, br)]).result
        rewriter.replace_op(op, rewriter.create("tensor.complex", [re, im]))
        return True
