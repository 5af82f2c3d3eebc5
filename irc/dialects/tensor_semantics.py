"""The conventions the tensor ops and their numpy evaluator (`tensor_eval`) share: the marker
for an absent slice bound or a run-time reshape size, how slice attributes read, and the type a
reduction accumulates in. Below both, so that op folding can call the evaluator."""
from __future__ import annotations

from ..ir.core import ElementwiseTrait, Operation
from ..ir.types import ScalarType, f16, f32
from .builtin import TensorType
from .op_base import Bad, int_array

# An absent slice bound (`x[:3]` has no start) and a reshape size read at run time;
# INT64_MIN, as MLIR's ShapedType::kDynamic.
NO_BOUND = -9223372036854775808
DYNAMIC = NO_BOUND


def accumulator_type(kind: str, t: ScalarType) -> ScalarType:
    """The type a reduction combines in: f32 for f16 sums and products, rounded to f16 once at
    the end (numpy's choice for a contiguous f16 sum; an f16 accumulator stops growing at 2048 +
    its spacing, so 10,000 ones would sum to 9992), else the element type."""
    return f32 if t == f16 and kind in ("sum", "prod") else t


def slice_bounds(attributes, rank: int) -> list[tuple[int, int, int]]:
    """(start, stop, step) per dim from `starts`, `stops`, `steps`; NO_BOUND where absent."""
    parts = [int_array(attributes, k) for k in ("starts", "stops", "steps")]
    for key, p in zip(("starts", "stops", "steps"), parts):
        if len(p) != rank:
            raise Bad(f"'{key}' has {len(p)} entries but the input has rank {rank}")
    for axis, step in enumerate(parts[2]):
        if step == 0 or step == NO_BOUND:
            raise Bad(f"step of dim {axis} must be a nonzero integer, got "
                      f"{'absent' if step == NO_BOUND else 0}")
    return list(zip(*parts))


def as_slice(start: int, stop: int, step: int) -> slice:
    return slice(None if start == NO_BOUND else start, None if stop == NO_BOUND else stop, step)


def shape_arithmetic(op: Operation) -> bool:
    """An op computing one number from sizes and constants alone (`1 / n` of a batch): a
    number the host computes (the loop lowering's scalars), which fusion leaves out of its
    groups (on a device it would become a kernel's work, tied to the group's other inputs)."""
    if not op.results or not all(isinstance(r.type, TensorType) and all(d == 1 for d in r.type.shape)
                                 for r in op.results):
        return False
    if op.op_name in ("tensor.dim", "tensor.constant"):
        return True
    if not op.has_trait(ElementwiseTrait):
        return False
    owners = [v.owner for v in op.operands]
    return bool(owners) and all(isinstance(o, Operation) and shape_arithmetic(o) for o in owners)
