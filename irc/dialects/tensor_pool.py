"""`tensor` ops of 2-d pooling over the last two axes (Theano's `Pool`, `MaxPoolGrad`,
`AveragePoolGrad`), any leading axes being a batch:

    %y  = tensor.pool2d %x {mode = "max", window, strides, pads, ignore_border = 1}
    %gx = tensor.pool2d_grad %x, %y, %gy {...}     (mode "max": the max of each window is routed back)
    %gx = tensor.pool2d_grad %x, %gy {...}         (other modes: spread over each window)

Modes: "max" and "sum" over the window's elements inside the image, "average_inc_pad"
(divided by the window's size, padding included, cut at the padded image's edge) and
"average_exc_pad" (by the count of elements inside the image). With `ignore_border = 0` a
partial window at the end of a row or column makes one more output (no padding then). Output
sizes follow Theano's `Pool.out_shape` (`pool_output_size`)."""
from __future__ import annotations

from .conv_semantics import pool_geometry, pooled_type
from .op_base import Bad
from .tensor_base import TensorOp, common_device, tensor_types

POOL_OPS = ("tensor.pool2d", "tensor.pool2d_grad")


class Pool2dOp(TensorOp):
    """`tensor.pool2d %x`: one value per window of the last two axes."""

    name = "tensor.pool2d"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) != 1:
            raise Bad(f"expects 1 operand, got {len(types)}")
        x = types[0]
        if x.rank < 2 or not (x.element.is_float or x.element.is_integer) or x.element.is_bool:
            raise Bad(f"needs a numeric tensor of rank >= 2 (images along its last two axes), got {x}")
        if pool_geometry(attributes)[0].startswith("average") and not x.element.is_float:
            raise Bad(f"averages need a float tensor, got {x}")
        return [pooled_type(x, attributes)]


class Pool2dGradOp(TensorOp):
    """`tensor.pool2d_grad %x, [%y,] %gy`: the gradient at %x of a cost whose gradient at
    pool2d(%x) = %y is %gy (mode "max" takes %y, the others do not)."""

    name = "tensor.pool2d_grad"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        mode = pool_geometry(attributes)[0]
        want = 3 if mode == "max" else 2
        if len(types) != want:
            raise Bad(f"mode '{mode}' expects {want} operands ({'x, y, gy' if want == 3 else 'x, gy'}), "
                      f"got {len(types)}")
        common_device(types)
        x = types[0]
        if x.rank < 2 or not x.element.is_float:
            raise Bad(f"needs a float tensor of rank >= 2, got {x}")
        pooled = pooled_type(x, attributes)
        for t in types[1:]:
            if t.rank != x.rank or t.element != x.element or any(
                    a is not None and b is not None and a != b for a, b in zip(t.shape, pooled.shape)):
                raise Bad(f"the pooled operands must have the pooled type {pooled}, got {t}")
        return [x]
