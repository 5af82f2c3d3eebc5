"""conv2d, its gradients, pool2d and its gradient at the IR level: type inference with the shape
hints, the errors of bad operands and attributes, text round trips, and lower-to-loops of a
module written as text (the path `irc-opt` takes) against the ops' numpy semantics."""
from __future__ import annotations

import numpy as np
import pytest

from irc.dialects import conv_reference, load_all
from irc.dialects.builtin import TensorType
from irc.dialects.conv_semantics import conv_attributes, pool_attributes
from irc.dialects.op_base import InferError
from irc.dialects.tensor_eval import EvalError, evaluate
from irc.ir.attributes import DenseArrayAttr
from irc.ir.core import OP_REGISTRY, Block
from irc.ir.parser import parse_module
from irc.ir.printer import print_op
from irc.ir.types import ScalarType
from irc.ir.verifier import verify

load_all()


def T(spec: str) -> TensorType:
    *dims, el = spec.split("x")
    return TensorType(tuple(None if d == "?" else int(d) for d in dims), ScalarType(el))


def build(name, *types, **attrs):
    return OP_REGISTRY[name].build(list(Block(types).args), attrs)


def conv(strides=(1, 1), pads=(0, 0), dilation=(1, 1), flip=True, **hints):
    attrs = conv_attributes(strides, pads, dilation, flip)
    attrs.update({k: DenseArrayAttr(v) for k, v in hints.items()})
    return attrs


def test_conv_types_and_hints():
    plain = build("tensor.conv2d", T("?x3x28x28xf32"), T("20x3x5x5xf32"), **conv())
    assert plain.result_types[0] == T("?x20x24x24xf32")
    assert build("tensor.conv2d", T("?x3x28x28xf32"), T("20x3x5x5xf32"),
                 **conv(strides=(2, 3), pads=(1, 2), dilation=(2, 1))).result_types[0] == T("?x20x11x10xf32")
    hinted = conv(input_shape=(500, -1, 12, 12), filter_shape=(50, 20, 5, 5))
    assert build("tensor.conv2d", T("?x?x?x?xf64"), T("?x?x?x?xf64"), **hinted).result_types[0] == T("500x50x8x8xf64")
    assert build("tensor.conv2d_grad_input", T("?x?x?x?xf32"), T("?x?x?x?xf32"), T("?x?x?x?xf32"),
                 **hinted).result_types[0] == T("500x20x12x12xf32")
    assert build("tensor.conv2d_grad_filters", T("?x?x?x?xf32"), T("?x?x?x?xf32"), T("?x?x?x?xf32"),
                 **hinted).result_types[0] == T("50x20x5x5xf32")


def test_conv_errors():
    with pytest.raises(InferError, match="needs 4-d images"):
        build("tensor.conv2d", T("?x28x28xf32"), T("20x1x5x5xf32"), **conv())
    with pytest.raises(InferError, match="the images have 3 channels and the filters 1"):
        build("tensor.conv2d", T("?x3x28x28xf32"), T("20x1x5x5xf32"), **conv())
    with pytest.raises(InferError, match="the rows of the images .* are fewer than the filter's"):
        build("tensor.conv2d", T("?x1x4x28xf32"), T("20x1x5x5xf32"), **conv())
    with pytest.raises(InferError, match="'strides' must be two integers >= 1"):
        build("tensor.conv2d", T("?x1x9x9xf32"), T("2x1x3x3xf32"), **conv(strides=(0, 1)))
    with pytest.raises(InferError, match="input_shape says 4 for dim 2"):
        build("tensor.conv2d", T("?x1x9x9xf32"), T("2x1x3x3xf32"), **conv(input_shape=(-1, -1, 4, -1)))
    with pytest.raises(InferError, match="float operands of one element type"):
        build("tensor.conv2d", T("?x1x9x9xf32"), T("2x1x3x3xf64"), **conv())


def test_pool_types_and_errors():
    attrs = pool_attributes("max", (2, 2), (2, 2), (0, 0), True)
    assert build("tensor.pool2d", T("7x?x24x25xf32"), **attrs).result_types[0] == T("7x?x12x12xf32")
    partial = pool_attributes("sum", (3, 2), (1, 3), (0, 0), False)
    assert build("tensor.pool2d", T("5x6xi32"), **partial).result_types[0] == T("3x2xi32")
    assert build("tensor.pool2d_grad", T("?x24x24xf32"), T("?x12x12xf32"), T("?x12x12xf32"),
                 **attrs).result_types[0] == T("?x24x24xf32")
    with pytest.raises(InferError, match="mode 'max' expects 3 operands"):
        build("tensor.pool2d_grad", T("?x24x24xf32"), T("?x12x12xf32"), **attrs)
    with pytest.raises(InferError, match="the pooled operands must have the pooled type"):
        build("tensor.pool2d_grad", T("?x24x24xf32"), T("?x11x12xf32"), T("?x12x12xf32"), **attrs)
    with pytest.raises(InferError, match="padding works only with ignore_border = 1"):
        build("tensor.pool2d", T("8x8xf32"), **pool_attributes("max", (2, 2), (2, 2), (1, 1), False))
    with pytest.raises(InferError, match="must be smaller than the window"):
        build("tensor.pool2d", T("8x8xf32"), **pool_attributes("max", (2, 2), (2, 2), (2, 0), True))
    with pytest.raises(InferError, match="unknown pooling mode 'min'"):
        build("tensor.pool2d", T("8x8xf32"), **pool_attributes("min", (2, 2), (2, 2), (0, 0), True))
    with pytest.raises(InferError, match="rank >= 2"):
        build("tensor.pool2d", T("8xf32"), **attrs)


MODULE = """module {
  func.func @main(%x: tensor<?x2x7x6xf64>, %w: tensor<3x2x3x2xf64>, %gy: tensor<?x3x4x4xf64>) -> (tensor<?x3x4x4xf64>, tensor<?x2x7x6xf64>, tensor<3x2x3x2xf64>, tensor<?x3x2x1xf64>, tensor<?x3x4x4xf64>) {
    %y = "tensor.conv2d"(%x, %w) {dilation = array<i64: 1, 1>, flip = 1 : i64, pads = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x2x7x6xf64>, tensor<3x2x3x2xf64>) -> tensor<?x3x4x4xf64>
    %gx = "tensor.conv2d_grad_input"(%gy, %w, %x) {dilation = array<i64: 1, 1>, flip = 1 : i64, pads = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x3x4x4xf64>, tensor<3x2x3x2xf64>, tensor<?x2x7x6xf64>) -> tensor<?x2x7x6xf64>
    %gw = "tensor.conv2d_grad_filters"(%x, %gy, %w) {dilation = array<i64: 1, 1>, flip = 1 : i64, pads = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x2x7x6xf64>, tensor<?x3x4x4xf64>, tensor<3x2x3x2xf64>) -> tensor<3x2x3x2xf64>
    %p = "tensor.pool2d"(%y) {ignore_border = 1 : i64, mode = "average_exc_pad", pads = array<i64: 0, 0>, strides = array<i64: 2, 2>, window = array<i64: 2, 3>} : (tensor<?x3x4x4xf64>) -> tensor<?x3x2x1xf64>
    %gp = "tensor.pool2d_grad"(%y, %p) {ignore_border = 1 : i64, mode = "average_exc_pad", pads = array<i64: 0, 0>, strides = array<i64: 2, 2>, window = array<i64: 2, 3>} : (tensor<?x3x4x4xf64>, tensor<?x3x2x1xf64>) -> tensor<?x3x4x4xf64>
    func.return %y, %gx, %gw, %p, %gp : tensor<?x3x4x4xf64>, tensor<?x2x7x6xf64>, tensor<3x2x3x2xf64>, tensor<?x3x2x1xf64>, tensor<?x3x4x4xf64>
  }
}
"""


def test_text_round_trip_and_numpy_semantics():
    module = parse_module(MODULE)
    verify(module)
    text = print_op(module)
    assert print_op(parse_module(text)) == text
    rng = np.random.RandomState(0)
    x, w, gy = rng.randn(2, 2, 7, 6), rng.randn(3, 2, 3, 2), rng.randn(2, 3, 4, 4)
    conv_op = [op for op in module.walk() if op.op_name == "tensor.conv2d"][0]
    y = evaluate(conv_op, [x, w])[0]
    np.testing.assert_allclose(y, conv_reference.conv2d(x, w, (2, 2), (1, 1), (1, 1), True))
    # <gy, conv(x, w)> is bilinear: the gradient ops are its partial derivatives
    grad_in = [op for op in module.walk() if op.op_name == "tensor.conv2d_grad_input"][0]
    grad_w = [op for op in module.walk() if op.op_name == "tensor.conv2d_grad_filters"][0]
    gx = evaluate(grad_in, [gy, w, x])[0]
    gw = evaluate(grad_w, [x, gy, w])[0]
    dx, dw = rng.randn(*x.shape), rng.randn(*w.shape)
    np.testing.assert_allclose((gx * dx).sum(), (evaluate(conv_op, [dx, w])[0] * gy).sum(), rtol=1e-12)
    np.testing.assert_allclose((gw * dw).sum(), (evaluate(conv_op, [x, dw])[0] * gy).sum(), rtol=1e-12)
    with pytest.raises(EvalError, match=r"tensor.conv2d. at loc.*input #1 has shape \(3, 1, 3, 2\)"):
        evaluate(conv_op, [x, rng.randn(3, 1, 3, 2)])


def test_lowered_module_runs_natively_as_the_numpy_semantics():
    from irc.runtime.native import compile_cpu
    module = parse_module(MODULE)
    native = compile_cpu(module, "main")
    rng = np.random.RandomState(1)
    x, w, gy = rng.randn(5, 2, 7, 6), rng.randn(3, 2, 3, 2), rng.randn(5, 3, 4, 4)
    got = native(x, w, gy)
    ops = [op for op in module.walk() if op.op_name.startswith("tensor.")]
    y = evaluate(ops[0], [x, w])[0]
    want = [y, evaluate(ops[1], [gy, w, x])[0], evaluate(ops[2], [x, gy, w])[0]]
    p = evaluate(ops[3], [y])[0]
    want += [p, evaluate(ops[4], [y, p])[0]]
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
