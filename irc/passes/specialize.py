"""`specialize`: pick the specialised form of general ops (Theano's specialize phase).

    dot(A: matrix, x: vector)  -> gemv(A, x)          dot(x: vector, B: matrix) -> gemv(B^T, x)
    dot(A: matrix, B: matrix)  -> gemm(A, B)
    c * gemv(...)              -> gemv(...) {alpha *= c}    (c a splat constant; same for gemm)
    y + gemv(A, x)             -> gemv(A, x, y) {beta = 1}  (same for gemm; y not broadcast)
    y - gemm(A, B)             -> gemm(A, B, y) {alpha = -alpha, beta = 1}
    y - gemm(A, B, y)          -> gemm(A, B, y) {alpha = -alpha, beta = 1 - beta}
    gemm(A, B, c * y)          -> gemm(A, B, y) {beta *= c}  (c a splat constant)
    gemm(A, B) + b             -> gemm(A, B, b) {beta = 1}  (b a 1×n bias row, broadcast)
    f(gemm(...))               -> gemm(...) {epilogue = "f"}  (f a unary float function)
    f(conv2d(x, w) + b per filter) -> conv2d(x, w, b) {epilogue = "f"}  (conv_epilogue.py)
    dot(A, B) of complex matrices -> four real products (complex_products.py)

The `y - gemm` and scaled-accumulator rules (for gemv too once it is placed on a device:
`specialize-device`, after `insert-transfers`) fold an SGD update, `W - lr·(Xᵀ·δ)` or with weight
decay `W - lr·(Xᵀ·δ + λ·W)`, into one gemm that accumulates into W (alpha = -lr, beta = 1 or
1 - lr·λ); `inplace` then lets it write over W's own storage (Theano's `Gemm{inplace}`). The
bias-row and epilogue rules make a dense layer's `tanh(h·W + b)` one gemm whose store loop adds
the bias and whose blocks apply tanh while they are still in cache, instead of a second pass
over the output.
    pow(x, 2) -> x * x         pow(x, 1) -> x       pow(x, 0.5) -> sqrt(x)

gemv/gemm are what BLAS-backed code generation keys on, and what the tutorial's
"Used the cpu" check looks for (as `CGemv`/`CGemm`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..dialects.builtin import TensorType
from ..dialects.tensor_linalg import is_epilogue
from ..ir.attributes import FloatAttr, StringAttr
from ..ir.core import Operation
from ..ir.pass_manager import Pass, option, register_pass
from ..ir.rewriter import PatternRewriter, RewritePattern, apply_patterns_greedily
from ..ir.attributes import DenseArrayAttr
from .complex_products import ComplexDotByParts
from .conv_epilogue import BiasIntoConv, EpilogueIntoConv
from .tensor_match import is_float_tensor, producer, splat_value


class DotToBlas(RewritePattern):
    """`tensor.dot` on a matrix becomes `tensor.gemv` or `tensor.gemm`."""

    root = "tensor.dot"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if not is_float_tensor(op.result):
            return False
        a, b = op.operands
        ranks = (a.type.rank, b.type.rank)
        attrs = {"alpha": FloatAttr(1.0), "beta": FloatAttr(0.0)}
        if ranks == (2, 1):
            new = rewriter.create("tensor.gemv", [a, b], attrs)
        elif ranks == (1, 2):
            bt = rewriter.create("tensor.transpose", [b], {"permutation": DenseArrayAttr((1, 0))})
            new = rewriter.create("tensor.gemv", [bt.result, a], attrs)
        elif ranks == (2, 2):
            new = rewriter.create("tensor.gemm", [a, b], attrs)
        else:
            return False
        rewriter.replace_op(op, new)
        return True


def _blas_operand(value) -> Operation | None:
    """The gemv/gemm producing `value`, if it has no other user (so it can absorb work) and no
    epilogue (a function of its result cannot take a scale or a sum through)."""
    op = producer(value)
    if op is None or op.op_name not in ("tensor.gemv", "tensor.gemm") or len(value.uses) != 1 \
            or "epilogue" in op.attributes:
        return None
    return op


def _bias_row(y, result_type) -> bool:
    """Whether y is a matrix that broadcasts to `result_type` along static-1 dims only (the
    accumulator a gemm may read broadcast)."""
    t = y.type
    return (isinstance(t, TensorType) and t.rank == 2 and t.element == result_type.element
            and t.device == result_type.device
            and all(d == r or d == 1 for d, r in zip(t.shape, result_type.shape)))


class ScaleIntoAlpha(RewritePattern):
    """`c * gemv(...)` → gemv with alpha·c (and beta·c)."""

    root = "tensor.mul"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        for blas_value, other in (op.operands, op.operands[::-1]):
            blas = _blas_operand(blas_value)
            c = splat_value(other)
            if blas is None or c is None or blas_value.type != op.result.type:
                continue
            alpha = blas.attributes["alpha"].value * c
            beta = blas.attributes["beta"].value * c
            new = rewriter.create(blas.op_name, list(blas.operands),
                                  {"alpha": FloatAttr(alpha), "beta": FloatAttr(beta)})
            rewriter.replace_op(op, new)
            return True
        return False


class AccumulateIntoBeta(RewritePattern):
    """`y + gemv(A, x)` → `gemv(A, x, y) {beta = 1}` when y has the result's exact type; for
    gemm, y may also be a bias row broadcast over the rows."""

    root = "tensor.add"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        for blas_value, y in (op.operands, op.operands[::-1]):
            blas = _blas_operand(blas_value)
            if blas is None or blas.num_operands != 2:
                continue
            if y.type != op.result.type and not (blas.op_name == "tensor.gemm"
                                                 and _bias_row(y, op.result.type)):
                continue
            if blas_value.type != op.result.type:
                continue
            attrs = {"alpha": blas.attributes["alpha"], "beta": FloatAttr(1.0)}
            new = rewriter.create(blas.op_name, [*blas.operands, y], attrs)
            rewriter.replace_op(op, new)
            return True
        return False


def _folds(blas: Operation | None) -> bool:
    """Whether an update folds into this product: a gemm, or a gemv on a device (on the host, a
    linear model's `w - lr·(Xᵀ·d)` is left to `fuse-matvec`, whose fused pass already does
    the update; a device has no such pass, and one call that writes w is the fewest launches)."""
    return blas is not None and (blas.op_name == "tensor.gemm" or blas.result.type.device is not None)


class SubtractIntoBeta(RewritePattern):
    """`y - gemm(A, B)` → `gemm(A, B, y) {alpha = -alpha, beta = 1}`; `y - gemm(A, B, y)` →
    `{alpha = -alpha, beta = 1 - beta}` (y of the result's exact type); gemv the same on a
    device (`_folds`)."""

    root = "tensor.sub"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        y, blas_value = op.operands
        blas = _blas_operand(blas_value)
        if not _folds(blas) or y.type != op.result.type or blas_value.type != op.result.type:
            return False
        if blas.num_operands == 3 and blas.operands[2] is not y:
            return False
        beta = blas.attributes["beta"].value if blas.num_operands == 3 else 0.0
        attrs = {"alpha": FloatAttr(-blas.attributes["alpha"].value), "beta": FloatAttr(1.0 - beta)}
        rewriter.replace_op(op, rewriter.create(blas.op_name, [*blas.operands[:2], y], attrs))
        return True


class ScaledAccumulator(RewritePattern):
    """`gemm(A, B, c * y) {beta}` → `gemm(A, B, y) {beta = beta·c}` when the product c·y is read
    only there (c a splat constant, y of the accumulator's type); gemv the same on a device."""

    root = None  # tensor.gemm, tensor.gemv

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if op.op_name not in ("tensor.gemm", "tensor.gemv") or op.num_operands != 3 or not _folds(op):
            return False
        scaled = producer(op.operands[2], "tensor.mul")
        if scaled is None or len(op.operands[2].uses) != 1:
            return False
        for y, other in (scaled.operands, scaled.operands[::-1]):
            c = splat_value(other)
            if c is None or y.type != op.operands[2].type:
                continue
            attrs = {"alpha": op.attributes["alpha"], "beta": FloatAttr(op.attributes["beta"].value * c)}
            rewriter.replace_op(op, rewriter.create(op.op_name, [*op.operands[:2], y], attrs))
            return True
        return False


class EpilogueIntoGemm(RewritePattern):
    """`f(gemm(...))` → `gemm(...) {epilogue = "f"}` for a unary float function f of the
    elementwise table, when the product is read only there."""

    root = None  # any unary elementwise op

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        name = op.op_name.removeprefix("tensor.")
        if not op.op_name.startswith("tensor.") or not is_epilogue(name):
            return False
        gemm = producer(op.operands[0], "tensor.gemm")
        if gemm is None or len(op.operands[0].uses) != 1 or "epilogue" in gemm.attributes \
                or op.result.type != op.operands[0].type:
            return False
        attrs = dict(gemm.attributes)
        attrs["epilogue"] = StringAttr(name)
        rewriter.replace_op(op, rewriter.create("tensor.gemm", list(gemm.operands), attrs))
        return True


class PowByConstant(RewritePattern):
    """`x ** 2` → `x * x`, `x ** 1` → `x`, `x ** 0.5` → `sqrt(x)` (same types only)."""

    root = "tensor.pow"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        x, e = op.operands
        c = splat_value(e)
        if c is None or x.type != op.result.type:
            return False
        if c == 2.0:
            rewriter.replace_op(op, rewriter.create("tensor.mul", [x, x]))
        elif c == 1.0:
            rewriter.replace_op(op, [x])
        elif c == 0.5 and is_float_tensor(x):
            rewriter.replace_op(op, rewriter.create("tensor.sqrt", [x]))
        else:
            return False
        return True


SPECIALIZE_PATTERNS: tuple[RewritePattern, ...] = (
    DotToBlas(), ScaleIntoAlpha(), AccumulateIntoBeta(), SubtractIntoBeta(), ScaledAccumulator(),
    EpilogueIntoGemm(), PowByConstant(), BiasIntoConv(), EpilogueIntoConv(), ComplexDotByParts(),
)


class SoftmaxFromLogSoftmax(RewritePattern):
    """On a device, `softmax(x)` beside `log_softmax(x)` (a classifier's predictions and its
    cross-entropy) → `exp(log_softmax(x))`: one pass over the rows instead of two, the exp
    fused into the readers (within a few ulp of the direct quotient)."""

    root = "tensor.softmax"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        x = op.operands[0]
        if op.result.type.device is None:
            return False
        logs = [u.owner for u in x.uses if u.owner.op_name == "tensor.log_softmax"
                and u.owner.parent is op.parent and u.owner.result.type == op.result.type]
        if not logs:
            return False
        block = op.parent
        first = min(logs, key=block.ops.index)
        if block.ops.index(first) < block.ops.index(op):
            log = first.result
        else:  # made here, where the softmax was; the later one reads it
            log = rewriter.create("tensor.log_softmax", [x]).result
            rewriter.replace_op(first, [log])
        rewriter.replace_op(op, rewriter.create("tensor.exp", [log]))
        return True


DEVICE_PATTERNS: tuple[RewritePattern, ...] = (SubtractIntoBeta(), ScaledAccumulator(), SoftmaxFromLogSoftmax())


@register_pass
@dataclass
class Specialize(Pass):
    """dot → gemv/gemm with folded alpha/beta; cheap forms of pow."""

    name = "specialize"
    summary = "Specialise general ops: dot -> gemv/gemm (alpha/beta folded), x**2 -> x*x"
    tags = ("specialize", "blas", "fast_run")
    max_iterations: int = option(10, "rewrite rounds at most", minimum=1)

    patterns: ClassVar[tuple[RewritePattern, ...]] = SPECIALIZE_PATTERNS

    def run(self, module: Operation) -> None:
        apply_patterns_greedily(module, self.patterns, max_iterations=self.max_iterations, stats=self.stats)


@register_pass
@dataclass
class SpecializeDevice(Specialize):
    """Device forms, after placement (which `specialize` precedes): the update folds of
    `specialize` for gemv too (`w - lr·(Xᵀ·d + λ·w)` as one gemv accumulating into w), and
    softmax read from the log_softmax beside it."""

    name = "specialize-device"
    summary = "Device forms after placement: SGD updates folded into gemv/gemm; softmax from log_softmax"
    patterns: ClassVar[tuple[RewritePattern, ...]] = DEVICE_PATTERNS
