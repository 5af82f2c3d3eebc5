"""Integer indexing: `tensor.index` (numpy's `x[i]`, `m[i, j]`) and its inverse
`tensor.insert_index` (`x` with `x[i]` replaced: the gradient, Theano's set_subtensor).

An index is a run-time value — a 0-d integer tensor, a constant or any computed scalar — so
one op serves `x[1]` and `x[i]` alike. numpy's rule: an index `i` on an axis of size `n` must
satisfy `-n <= i < n` (negative counts from the end); anything else fails at run time with an
IndexError naming the op. The indexed axes are dropped from the result.
"""
from __future__ import annotations

from typing import Sequence

from .builtin import TensorType
from .op_base import Bad, int_array
from .tensor_base import TensorOp, check_fits, common_device, tensor_types


def index_axes(attributes, rank: int, count: int) -> tuple[int, ...]:
    """The `axes` attribute: sorted, distinct, within the rank, one per index operand."""
    axes = int_array(attributes, "axes")
    if list(axes) != sorted(set(axes)) or any(not 0 <= a < rank for a in axes):
        raise Bad(f"axes {list(axes)} must be sorted, distinct and within the rank {rank}")
    if len(axes) != count:
        raise Bad(f"has {count} index operand(s) for {len(axes)} axes {list(axes)}")
    return axes


def check_indices(indices: Sequence[TensorType], scalar: bool = True) -> None:
    """Indices are integer tensors (not bool), 0-d unless `scalar` is False (gather's arrays)."""
    for k, t in enumerate(indices):
        if (scalar and t.rank != 0) or not t.element.is_integer or t.element.is_bool:
            raise Bad(f"index #{k} must be {'a 0-d' if scalar else 'an'} integer tensor, got {t}")


def dropped(x: TensorType, axes: Sequence[int]) -> TensorType:
    """`x`'s type without the indexed axes."""
    return x.with_shape([d for a, d in enumerate(x.shape) if a not in axes])


class IndexOp(TensorOp):
    """`%r = tensor.index %x, %i, %j {axes = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<i64>,
    tensor<i64>) -> tensor<f32>`: `x` at index `i` on axis 0 and `j` on axis 1."""

    name = "tensor.index"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if not types:
            raise Bad("expects the indexed tensor and one index per axis")
        x, indices = types[0], types[1:]
        check_indices(indices)
        common_device(types)
        return [dropped(x, index_axes(attributes, x.rank, len(indices)))]


class InsertIndexOp(TensorOp):
    """`%r = tensor.insert_index %dest, %src, %i {axes = array<i64: 0>}`: `dest` with
    `dest[i]` replaced by `src` (value semantics: a new tensor)."""

    name = "tensor.insert_index"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) < 2:
            raise Bad("expects dest, src and one index per axis")
        dest, src, indices = types[0], types[1], types[2:]
        check_indices(indices)
        common_device(types)
        target = dropped(dest, index_axes(attributes, dest.rank, len(indices)))
        check_fits(src, target, f"{target}, dest {dest} at the index")
        return [dest]
