"""Advanced (integer-array) indexing: `tensor.gather` (numpy's `x[i, j]` with integer arrays
`i`, `j` on the leading axes) and `tensor.scatter` (`dest` with those places set, or added to:
Theano's AdvancedIncSubtensor, and the gather's gradient).

The index operands broadcast together (Theano's rule: equal ranks, a static 1 broadcasts; the
frontend pads ranks with dimshuffles). With `k` index arrays of broadcast shape `B` on a source
of shape `(n0, ..., n(k-1), R...)`, the gathered tensor has shape `B + R`. Each index follows
numpy's rule `-n <= i < n` on its axis, checked at run time (an IndexError naming the op).
Index arrays on other axes, or with full slices between them, are a dimshuffle around these
ops (the frontend's job), so two ops serve every case the frontend accepts.

    %g = tensor.gather %x, %i, %j : (tensor<?x?x3xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf32>
    %s = tensor.scatter %x, %g, %i, %j {mode = "add"} : (...) -> tensor<?x?x3xf32>

`mode = "add"` accumulates repeated indices (numpy's `np.add.at`); `mode = "set"` lets the
last write win (numpy's `x[i] = v`).
"""
from __future__ import annotations

from typing import Sequence

from .builtin import TensorType
from .op_base import Bad, str_attr
from .tensor_base import TensorOp, broadcast_shapes, check_fits, common_device, tensor_types
from .tensor_index import check_indices

SCATTER_MODES = ("add", "set")


def check_index_arrays(x: TensorType, indices: Sequence[TensorType]) -> tuple[int | None, ...]:
    """The broadcast shape of the index operands of `x`, after checking them."""
    if not indices:
        raise Bad("expects at least one index array")
    if len(indices) > x.rank:
        raise Bad(f"has {len(indices)} index arrays for the {x.rank} axes of {x}")
    check_indices(indices, scalar=False)
    return broadcast_shapes(indices)


def gathered_type(x: TensorType, indices: Sequence[TensorType]) -> TensorType:
    """`x[i, j, ...]`'s type: the indices' broadcast shape, then `x`'s unindexed axes."""
    return x.with_shape(tuple(check_index_arrays(x, indices)) + tuple(x.shape[len(indices):]))


class GatherOp(TensorOp):
    """`tensor.gather %x, %i0, ..., %ik`: element `x[i0[p], ..., ik[p], r...]` at `(p, r...)`."""

    name = "tensor.gather"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) < 2:
            raise Bad("expects the source and at least one index array")
        common_device(types)
        return [gathered_type(types[0], types[1:])]


class ScatterOp(TensorOp):
    """`tensor.scatter %dest, %src, %i0, ... {mode}`: `dest` with `src` written ("set") or added
    ("add") at the places `tensor.gather %dest, %i0, ...` reads; `src` has the gather's type."""

    name = "tensor.scatter"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) < 3:
            raise Bad("expects dest, src and at least one index array")
        mode = str_attr(attributes, "mode")
        if mode not in SCATTER_MODES:
            raise Bad(f"mode must be one of {', '.join(SCATTER_MODES)}, got {mode!r}")
        common_device(types)
        dest, src = types[0], types[1]
        target = gathered_type(dest, types[2:])
        check_fits(src, target, f"{target}, the places the indices select in dest {dest}")
        return [dest]
