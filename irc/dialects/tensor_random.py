"""`tensor.random`: a sample drawn by the counter-based generator Philox4x32-10.

    %u = tensor.random %state, %n0, %n1 {distribution = "uniform", dtype = f32}
         : (tensor<3xi64>, tensor<i64>, tensor<i64>) -> tensor<?x?xf32>

`state` is the generator's state `[key0, key1, draw]` (an int64 vector of 3; `philox.py` gives
the counter layout and the transforms), the sizes are 0-d i64 tensors. The op is a pure
function of its operands - the same state gives the same numbers - so CSE may merge two equal
draws; a new draw needs a new state (the frontend's default update adds 1 to `draw`).
Distributions: "uniform" (U[0, 1)) and "normal" (N(0, 1)); the frontend builds the others
(bounds, mean and deviation, binomial, choice, permutation) from these with ordinary ops."""
from __future__ import annotations

from ..ir.types import i64
from .builtin import TensorType
from .op_base import Bad, str_attr, type_attr
from .philox import DISTRIBUTIONS
from .tensor_base import TensorOp, check_sizes, common_device, tensor_types

STATE_SIZE = 3


def check_state_type(t: TensorType) -> None:
    if t.rank != 1 or t.element != i64 or t.shape[0] not in (None, STATE_SIZE):
        raise Bad(f"state must be an i64 vector of {STATE_SIZE} ([key0, key1, draw]), got {t}")


class RandomOp(TensorOp):
    """`tensor.random %state, %n0, ... {distribution, dtype}`: one sample of the given sizes."""

    name = "tensor.random"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if not types:
            raise Bad("expects the generator state and one size per dim")
        check_state_type(types[0])
        check_sizes(types[1:], "size")
        distribution = str_attr(attributes, "distribution")
        if distribution not in DISTRIBUTIONS:
            raise Bad(f"distribution must be one of {', '.join(DISTRIBUTIONS)}, got {distribution!r}")
        dtype = type_attr(attributes, "dtype")
        if dtype.name not in ("f32", "f64"):
            raise Bad(f"dtype must be f32 or f64, got {dtype}")
        return [TensorType((None,) * (len(types) - 1), dtype, common_device(types))]
