"""`tensor.dynamic_slice`: `x[start:stop]` along one axis with bounds known only at run time
(0-d i64 tensors), numpy's semantics: a negative bound counts from the end, bounds clip to the
axis. What Theano programs write as `data[i * n:(i + 1) * n]` for a symbolic minibatch `i`.

    %b = tensor.dynamic_slice %x, %start, %stop {axis = 0}
         : (tensor<?x784xf32>, tensor<i64>, tensor<i64>) -> tensor<?x784xf32>
"""
from __future__ import annotations

from .op_base import Bad, int_attr
from .tensor_base import TensorOp, check_size, common_device, tensor_types


class DynamicSliceOp(TensorOp):
    """`tensor.dynamic_slice %x, %start, %stop {axis}`: the slice's size is `?` on `axis`."""

    name = "tensor.dynamic_slice"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) != 3:
            raise Bad(f"expects 3 operands (x, start, stop), got {len(types)}")
        x, start, stop = types
        check_size(start, "start")
        check_size(stop, "stop")
        axis = int_attr(attributes, "axis")
        if not 0 <= axis < x.rank:
            raise Bad(f"axis {axis} is out of range for {x}")
        common_device(types)
        shape = list(x.shape)
        shape[axis] = None
        return [x.with_shape(tuple(shape))]
