"""`tensor` ops of 2-d convolution (Theano's `AbstractConv2d` and its two gradients), over
images `x : N×C×H×W` and filters `w : F×C×kh×kw`:

    %y  = tensor.conv2d %x, %w {strides, pads, dilation, flip}            -> N×F×OH×OW
    %gx = tensor.conv2d_grad_input %gy, %w, %x {strides, pads, dilation, flip}   -> like %x
    %gw = tensor.conv2d_grad_filters %x, %gy, %w {strides, pads, dilation, flip} -> like %w

Optional `input_shape`/`filter_shape` (`array<i64: ...>` of 4, -1 where unknown) are the
user's shape hints: they refine the types (a gradient's result is typed like its shape
operand refined by them) and are checked against the data at run time.

`OH = (H + 2·pads[0] - dilation[0]·(kh - 1) - 1) // strides[0] + 1` (the same for W), a
cross-correlation when `flip = 0` and a convolution (the filter rotated by 180°) when
`flip = 1`. The gradients take the tensor whose shape they produce as their last operand
(only its sizes are read: a strided forward pass loses the last rows of H, so they cannot be
derived from %gy). One op per operation, so a backend may plug in its own kernel (a GPU
kernel, cuDNN) by op name; the CPU lowers them to im2col and the gemm kernel
(`conversion/tensor_to_loop/conv.py`)."""
from __future__ import annotations

from .builtin import TensorType
from .conv_semantics import conv_geometry, conv_output_size
from .op_base import Bad, int_array
from .tensor_base import TensorOp, common_device, tensor_types
from .tensor_linalg import epilogue_of

CONV_OPS = ("tensor.conv2d", "tensor.conv2d_grad_input", "tensor.conv2d_grad_filters")


def _images_and_filters(x: TensorType, w: TensorType) -> None:
    if x.rank != 4 or w.rank != 4:
        raise Bad(f"needs 4-d images (batch, channels, rows, columns) and 4-d filters (filters, channels, "
                  f"rows, columns), got {x} and {w}")
    if x.element != w.element or not x.element.is_float:
        raise Bad(f"needs float operands of one element type, got {x} and {w}")
    if x.shape[1] is not None and w.shape[1] is not None and x.shape[1] != w.shape[1]:
        raise Bad(f"the images have {x.shape[1]} channels and the filters {w.shape[1]}")


def _output_shape(x: TensorType, w: TensorType, attributes) -> tuple[int | None, ...]:
    strides, pads, dilation, _ = conv_geometry(attributes)
    spatial = [conv_output_size(x.shape[2 + a], w.shape[2 + a], strides[a], pads[a], dilation[a]) for a in range(2)]
    for a, s in enumerate(spatial):
        if s is not None and s < 1:
            raise Bad(f"the {('rows', 'columns')[a]} of the images ({x.shape[2 + a]}, padded by {pads[a]} on each "
                      f"side) are fewer than the filter's ({w.shape[2 + a]}, dilated by {dilation[a]})")
    return (x.shape[0], w.shape[0], *spatial)


def shape_hint(attributes, key: str) -> tuple[int | None, ...] | None:
    """A shape hint attribute (4 sizes, -1 for unknown) as sizes with None, or None."""
    if key not in attributes:
        return None
    hint = int_array(attributes, key)
    if len(hint) != 4 or any(d < -1 for d in hint):
        raise Bad(f"'{key}' must be 4 sizes (-1 where unknown), got {list(hint)}")
    return tuple(None if d == -1 else d for d in hint)


def _with_hint(t: TensorType, attributes, key: str) -> TensorType:
    hint = shape_hint(attributes, key)
    if hint is None or t.rank != 4:
        return t
    shape = []
    for axis, (d, h) in enumerate(zip(t.shape, hint)):
        if d is not None and h is not None and d != h:
            raise Bad(f"{key} says {h} for dim {axis}, the operand {t} has {d}")
        shape.append(d if d is not None else h)
    return t.with_shape(shape)


def _with_channels(t: TensorType, other: TensorType) -> TensorType:
    """`t` with its channel count (dim 1) taken from `other` where only that one knows it."""
    if t.shape[1] is not None or other.shape[1] is None:
        return t
    return t.with_shape((t.shape[0], other.shape[1], *t.shape[2:]))


def _operands(operand_types, count: int) -> list[TensorType]:
    types = tensor_types(operand_types)
    if len(types) != count:
        raise Bad(f"expects {count} operands, got {len(types)}")
    common_device(types)
    return types


class Conv2dOp(TensorOp):
    """`tensor.conv2d %x, %w[, %b] {..., epilogue = "tanh"}`: f(y + b[f]) with
    y[n, f, i, j] = Σ_{c,a,b} x[n, c, i·s - p + a·d, j·s - p + b·d] · w[f, c, a', b'] (zero
    outside the image), a' = kh-1-a when flipped, else a; the bias vector b (one per filter)
    and the unary float function f are optional — what `specialize` folds in from a layer's
    `f(conv2d(x, w) + b.dimshuffle('x', 0, 'x', 'x'))`, applied as the product's tiles are
    written."""

    name = "tensor.conv2d"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) not in (2, 3):
            raise Bad(f"expects 2 or 3 operands (x, w[, b]), got {len(types)}")
        x, w = _operands(types[:2], 2)
        x, w = _with_hint(x, attributes, "input_shape"), _with_hint(w, attributes, "filter_shape")
        _images_and_filters(x, w)
        epilogue_of(attributes)
        if len(types) == 3:
            b = types[2]
            common_device(types)
            if b.rank != 1 or b.element != x.element or None not in (b.shape[0], w.shape[0]) \
                    and b.shape[0] != w.shape[0]:
                raise Bad(f"the bias must be a vector of one {x.element} per filter, got {b} for filters {w}")
        return [TensorType(_output_shape(x, w, attributes), x.element, x.device)]


def _gradient_operands(x, gy, w, attributes):
    """The images and filters of a convolution's gradient op (their shape hints applied),
    checked with the output gradient `gy` against the forward convolution."""
    x, w = _with_hint(x, attributes, "input_shape"), _with_hint(w, attributes, "filter_shape")
    _images_and_filters(x, w)
    if gy.rank != 4 or gy.element != x.element:
        raise Bad(f"the output gradient must be a 4-d {x.element} tensor, got {gy}")
    _output_shape(x, w, attributes)
    return x, w


class Conv2dGradInputOp(TensorOp):
    """`tensor.conv2d_grad_input %gy, %w, %x`: the gradient at the images %x of a cost whose
    gradient at conv2d(%x, %w) is %gy (shaped like %x; only %x's sizes are read)."""

    name = "tensor.conv2d_grad_input"

    @classmethod
    def _infer(cls, operand_types, attributes):
        gy, w, x = _operands(operand_types, 3)
        x, w = _gradient_operands(x, gy, w, attributes)
        return [_with_channels(x, w)]


class Conv2dGradFiltersOp(TensorOp):
    """`tensor.conv2d_grad_filters %x, %gy, %w`: the gradient at the filters %w of a cost whose
    gradient at conv2d(%x, %w) is %gy (shaped like %w; only %w's sizes are read)."""

    name = "tensor.conv2d_grad_filters"

    @classmethod
    def _infer(cls, operand_types, attributes):
        x, gy, w = _operands(operand_types, 3)
        x, w = _gradient_operands(x, gy, w, attributes)
        return [_with_channels(w, x)]
