"""`specialize`'s rules for convolutions: a layer's bias and activation folded into the
`tensor.conv2d` that feeds them, so the gemm kernel adds the bias and applies the function as
it writes each tile, instead of two more passes over the layer's output:

    conv2d(x, w) + dimshuffle(b, [x, 0, x, x])   -> conv2d(x, w, b)
    f(conv2d(x, w[, b]))                          -> conv2d(x, w[, b]) {epilogue = "f"}

Only when the convolution's result is read there alone (a gradient reading it keeps it whole)."""
from __future__ import annotations

from ..dialects.tensor_linalg import is_epilogue
from ..ir.attributes import StringAttr
from ..ir.core import Operation, Value
from ..ir.rewriter import PatternRewriter, RewritePattern
from .tensor_match import producer

PER_FILTER = (-1, 0, -1, -1)  # b.dimshuffle('x', 0, 'x', 'x')


def _open_conv(value: Value) -> Operation | None:
    """The conv2d computing `value`, read only there and with no epilogue yet."""
    op = producer(value, "tensor.conv2d")
    if op is None or len(value.uses) != 1 or "epilogue" in op.attributes:
        return None
    return op


class BiasIntoConv(RewritePattern):
    """`conv2d(x, w) + b.dimshuffle('x', 0, 'x', 'x')` → `conv2d(x, w, b)`."""

    root = "tensor.add"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        for conv_value, other in (op.operands, op.operands[::-1]):
            conv = _open_conv(conv_value)
            shuffle = producer(other, "tensor.dimshuffle")
            if conv is None or conv.num_operands != 2 or shuffle is None \
                    or tuple(shuffle.attributes["pattern"]) != PER_FILTER:
                continue
            b = shuffle.operands[0]
            if op.result.type != conv_value.type or b.type.element != conv_value.type.element:
                continue
            new = rewriter.create("tensor.conv2d", [*conv.operands, b], dict(conv.attributes))
            rewriter.replace_op(op, new)
            return True
        return False


class EpilogueIntoConv(RewritePattern):
    """`f(conv2d(...))` → `conv2d(...) {epilogue = "f"}` for a unary float function f."""

    root = None  # any unary elementwise op

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        name = op.op_name.removeprefix("tensor.")
        if not op.op_name.startswith("tensor.") or not is_epilogue(name) or op.num_operands != 1:
            return False
        conv = _open_conv(op.operands[0])
        if conv is None or op.result.type != op.operands[0].type:
            return False
        attrs = dict(conv.attributes)
        attrs["epilogue"] = StringAttr(name)
        rewriter.replace_op(op, rewriter.create("tensor.conv2d", list(conv.operands), attrs))
        return True
