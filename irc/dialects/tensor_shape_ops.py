"""`tensor` ops that move, select or relabel elements: dimshuffle, transpose, reshape,
broadcast, dim, slice, insert_slice, concat (the host/device transfers: `tensor_transfers`).

Slices follow numpy: bounds are resolved against the run-time size (negative counts from the
end, out-of-range clips) and an absent bound is `NO_BOUND`. So a slice of a dynamic dim has a
dynamic size; a builder that knows more (e.g. `x[i]` must hold one element) may declare a static
result size, which the reference evaluator then checks at run time.
"""
from __future__ import annotations

from ..ir.types import i64
from .builtin import DenseAttr, TensorType
from .op_base import Bad, int_array, int_attr
from .tensor_base import (DYNAMIC, TensorOp, broadcast_shapes, check_fits, common_device, fmt_shape,
                          num_elements, tensor_types)
from .tensor_semantics import as_slice, slice_bounds


def _one(types, what: str = "operand") -> TensorType:
    types = tensor_types(types)
    if len(types) != 1:
        raise Bad(f"expects 1 {what}, got {len(types)}")
    return types[0]


class DimShuffleOp(TensorOp):
    """`tensor.dimshuffle %x {pattern = array<i64: 1, -1, 0>}`: Theano's DimShuffle.

    Result dim k is input dim `pattern[k]`, or a new broadcastable dim (size 1) for -1 ('x').
    Input dims left out are dropped, so they must be broadcastable (a static 1)."""

    name = "tensor.dimshuffle"

    @classmethod
    def _infer(cls, operand_types, attributes):
        x = _one(operand_types)
        pattern = int_array(attributes, "pattern")
        kept = [p for p in pattern if p != -1]
        for p in kept:
            if not 0 <= p < x.rank:
                raise Bad(f"pattern {list(pattern)} refers to dim {p}, but the input {x} has rank {x.rank}")
        if len(set(kept)) != len(kept):
            raise Bad(f"pattern {list(pattern)} repeats an input dim")
        for d in range(x.rank):
            if d not in kept and x.shape[d] != 1:
                raise Bad(f"pattern {list(pattern)} drops dim {d} of {x}, which is not broadcastable "
                          f"(size {fmt_shape([x.shape[d]])}, not a static 1)")
        return [x.with_shape([1 if p == -1 else x.shape[p] for p in pattern])]


class TransposeOp(TensorOp):
    """`tensor.transpose %x {permutation = array<i64: 1, 0>}`: result dim k is input dim perm[k]."""

    name = "tensor.transpose"

    @classmethod
    def _infer(cls, operand_types, attributes):
        x = _one(operand_types)
        perm = int_array(attributes, "permutation")
        if sorted(perm) != list(range(x.rank)):
            raise Bad(f"permutation {list(perm)} is not a permutation of the {x.rank} dims of {x}")
        return [x.with_shape([x.shape[p] for p in perm])]


class ReshapeOp(TensorOp):
    """`tensor.reshape %x {shape = array<i64: 2, -1>}` (row-major, as numpy).

    Sizes are static, or -1 (at most one: inferred from the element count), or `DYNAMIC`: read at
    run time from the optional operand `%sizes : tensor<Kxi64>` (entry k for size k)."""

    name = "tensor.reshape"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) not in (1, 2):
            raise Bad(f"expects 1 or 2 operands (the input and optional sizes), got {len(types)}")
        x = types[0]
        shape = int_array(attributes, "shape")
        if any(s < -1 and s != DYNAMIC for s in shape):
            raise Bad(f"shape {list(shape)} has a negative size other than -1")
        if list(shape).count(-1) > 1:
            raise Bad(f"shape {list(shape)} has more than one -1")
        has_dynamic = DYNAMIC in shape
        if has_dynamic != (len(types) == 2):
            raise Bad("a sizes operand is required exactly when the shape has dynamic sizes")
        if has_dynamic:
            sizes = types[1]
            if sizes.rank != 1 or sizes.shape[0] not in (None, len(shape)) or not sizes.element.is_integer:
                raise Bad(f"sizes operand must be a tensor<{len(shape)}xi64>, got {sizes}")
            common_device([x, sizes])
        count = num_elements(x.shape)
        known = [s for s in shape if s >= 0]
        known_count = num_elements(known)
        out: list[int | None] = []
        for s in shape:
            if s >= 0:
                out.append(s)
            elif s == -1 and count is not None and not has_dynamic:
                if known_count == 0 or count % known_count:
                    raise Bad(f"cannot reshape {x} ({count} elements) to {_fmt_target(shape)}")
                out.append(count // known_count)
            else:
                out.append(None)
        if count is not None and -1 not in shape and not has_dynamic and count != known_count:
            raise Bad(f"cannot reshape {x} ({count} elements) to {_fmt_target(shape)} "
                      f"({known_count} elements)")
        return [x.with_shape(out)]


def _fmt_target(shape) -> str:
    return "(" + ", ".join("?" if s == DYNAMIC else str(s) for s in shape) + ")"


class BroadcastOp(TensorOp):
    """`tensor.broadcast %x, %like`: `x` (its dtype) broadcast to the shape of `like`."""

    name = "tensor.broadcast"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) != 2:
            raise Bad(f"expects 2 operands (the input and a tensor of the target shape), got {len(types)}")
        x, like = types
        device = common_device(types)
        shape = broadcast_shapes([x, like.with_element(x.element)])
        return [TensorType(shape, x.element, device)]


class DimOp(TensorOp):
    """`tensor.dim %x {axis = 0} : (tensor<?xf32>) -> tensor<i64>`: a size, as a 0-d tensor."""

    name = "tensor.dim"

    @classmethod
    def _infer(cls, operand_types, attributes):
        x = _one(operand_types)
        axis = int_attr(attributes, "axis")
        if not 0 <= axis < x.rank:
            raise Bad(f"axis {axis} is out of range for {x}")
        return [TensorType((), i64, x.device)]

    def fold(self):
        x = self.operands[0].type
        size = x.shape[self.attributes["axis"].value] if isinstance(x, TensorType) else None
        if size is None:
            return None
        import numpy as np
        return [DenseAttr.from_array(np.array(size, dtype=np.int64), self.results[0].type)]


def slice_shape(shape, bounds) -> list[int | None]:
    return [None if d is None else len(range(*as_slice(*b).indices(d))) for d, b in zip(shape, bounds)]


class SliceOp(TensorOp):
    """`tensor.slice %x {starts = array<i64: 1>, stops = array<i64: -9223372036854775808>,
    steps = array<i64: 1>}`: numpy's `x[1:]`, one (start, stop, step) per dim."""

    name = "tensor.slice"

    @classmethod
    def _infer(cls, operand_types, attributes):
        x = _one(operand_types)
        return [x.with_shape(slice_shape(x.shape, slice_bounds(attributes, x.rank)))]


class InsertSliceOp(TensorOp):
    """`tensor.insert_slice %dest, %src {starts, stops, steps}`: `dest` with `dest[slices]`
    replaced by `src` (value semantics: a new tensor). The gradient of `tensor.slice`."""

    name = "tensor.insert_slice"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if len(types) != 2:
            raise Bad(f"expects 2 operands (dest, src), got {len(types)}")
        dest, src = types
        common_device(types)
        if src.element != dest.element:
            raise Bad(f"src {src} and dest {dest} have different element types")
        if src.rank != dest.rank:
            raise Bad(f"src {src} and dest {dest} have different ranks")
        target = dest.with_shape(slice_shape(dest.shape, slice_bounds(attributes, dest.rank)))
        check_fits(src, target, f"the slice of {dest}")
        return [dest]


class ConcatOp(TensorOp):
    """`tensor.concat %a, %b {axis = 0}`: numpy's concatenate; the other dims must agree."""

    name = "tensor.concat"

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = tensor_types(operand_types)
        if not types:
            raise Bad("expects at least one operand")
        axis = int_attr(attributes, "axis")
        rank = types[0].rank
        device = common_device(types)
        for t in types[1:]:
            if t.rank != rank or t.element != types[0].element:
                raise Bad(f"operands must have one rank and element type, got {types[0]} and {t}")
        if not 0 <= axis < rank:
            raise Bad(f"axis {axis} is out of range for rank {rank}")
        shape: list[int | None] = []
        for d in range(rank):
            sizes = [t.shape[d] for t in types]
            if d == axis:
                shape.append(None if None in sizes else sum(sizes))  # type: ignore[arg-type]
                continue
            static = {s for s in sizes if s is not None}
            if len(static) > 1:
                raise Bad(f"operands disagree on dim {d}: " + ", ".join(map(str, types)))
            shape.append(static.pop() if static else None)
        return [TensorType(tuple(shape), types[0].element, device)]
