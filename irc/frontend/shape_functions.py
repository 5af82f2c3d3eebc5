"""Functions that rearrange elements, written with existing ops (so each has a gradient and
compiles natively): `tile`, `repeat`, `diag`, `split`, the broadcast-pattern functions
(`addbroadcast`, `unbroadcast`, `patternbroadcast`) and `specify_shape`."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .basic import (add, as_tensor_variable, dimshuffle, maximum, minimum, mul, reshape, set_subtensor, shape, sub,
                    subtensor, subtensor_static)
from .creation import alloc, arange, eye, zeros
from .graph import Constant, Variable
from .shape_ops import Shape_i


def _static_ints(values: Any, what: str) -> list[int]:
    if isinstance(values, Constant):
        values = values.data.tolist()
    items = list(values) if isinstance(values, (list, tuple, np.ndarray)) else [values]
    out = []
    for v in items:
        if isinstance(v, Constant) and v.ndim == 0:
            v = v.data.item()
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise NotImplementedError(f"{what} must be Python ints when the graph is built, got {v!r} "
                                      f"(symbolic counts are not supported)")
        out.append(int(v))
    return out


def tile(x: Any, reps: Sequence[int], ndim: int | None = None) -> Variable:
    """numpy's tile with static `reps`: each dim of `x` repeated `reps[k]` times, as blocks."""
    x = as_tensor_variable(x)
    reps = _static_ints(reps, "tile: reps")
    ndim = max(x.ndim, len(reps)) if ndim is None else ndim
    reps = [1] * (ndim - len(reps)) + reps
    x = dimshuffle(x, ("x",) * (ndim - x.ndim) + tuple(range(x.ndim)))
    # (r0, n0, r1, n1, ...): x broadcast along new axes in front of each of its dims
    pattern = [p for d in range(ndim) for p in ("x", d)]
    sizes = [s for d, r in enumerate(reps) for s in (r, shape(x)[d])]
    blocks = alloc(dimshuffle(x, pattern), *sizes)
    return reshape(blocks, [mul(r, shape(x)[d]) for d, r in enumerate(reps)])


def repeat(x: Any, repeats: int, axis: int | None = None) -> Variable:
    """numpy's repeat with one static count: each element `repeats` times in a row along
    `axis` (of the flattened `x` when None)."""
    x = as_tensor_variable(x)
    (n,) = _static_ints(repeats, "repeat: repeats")
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = axis % x.ndim
    if n == 1:
        return x
    pattern = list(range(axis + 1)) + ["x"] + list(range(axis + 1, x.ndim))
    sizes = list(shape(x)[: axis + 1]) + [n] + list(shape(x)[axis + 1:])
    spread = alloc(dimshuffle(x, pattern), *sizes)
    new_shape = list(shape(x))
    new_shape[axis] = mul(new_shape[axis], n)
    kept = [d for d in range(x.ndim) if d != axis and x.broadcastable[d]]  # (Theano's broadcast pattern)
    return addbroadcast(reshape(spread, new_shape), *kept)


def diag(v: Any, k: int = 0) -> Variable:
    """numpy's diag: a vector becomes the square matrix with it on diagonal `k` (above the main
    one when positive); a matrix, square or not, gives its diagonal `k`."""
    v = as_tensor_variable(v)
    k = int(k)
    if v.ndim == 1:
        if k == 0:
            n = Shape_i(0)(v)
            return mul(dimshuffle(v, (0, "x")), eye(n, n, dtype=v.dtype))
        n = add(Shape_i(0)(v), abs(k))
        place = arange(Shape_i(0)(v))
        rows, cols = add(place, max(-k, 0)), add(place, max(k, 0))
        return set_subtensor(subtensor(zeros((n, n), dtype=v.dtype), (rows, cols)), v)
    if v.ndim == 2:
        rows, cols = Shape_i(0)(v), Shape_i(1)(v)
        length = maximum(minimum(sub(rows, max(-k, 0)), sub(cols, max(k, 0))), 0)
        place = arange(length)
        return subtensor(v, (add(place, max(-k, 0)), add(place, max(k, 0))))
    raise TypeError(f"diag needs a vector or a matrix, got {v.type}")


def split(x: Any, splits_size: Sequence[int], n_splits: int, axis: int = 0) -> list[Variable]:
    """Theano's split: `x` cut along `axis` into consecutive pieces of the static sizes
    `splits_size` (which must cover the axis: checked at run time)."""
    x = as_tensor_variable(x)
    sizes = _static_ints(splits_size, "split: splits_size")
    if len(sizes) != n_splits:
        raise ValueError(f"split: {len(sizes)} sizes given for n_splits={n_splits}")
    axis = axis % x.ndim
    whole = specify_size(x, axis, sum(sizes))
    pieces, start = [], 0
    for s in sizes:
        pieces.append(subtensor_static(whole, {axis: (start, start + s, 1)},
                                       keep_ones=(axis,) if s == 1 else ()))
        start += s
    return pieces


def addbroadcast(x: Any, *axes: int) -> Variable:
    """`x` with `axes` declared broadcastable (size 1; checked at run time)."""
    x = as_tensor_variable(x)
    axes = tuple(a % x.ndim for a in axes)
    todo = [a for a in axes if not x.broadcastable[a]]
    if not todo:
        return x
    return subtensor_static(x, {}, keep_ones=todo)


def unbroadcast(x: Any, *axes: int) -> Variable:
    """`x` with `axes` no longer broadcastable (their size is read at run time)."""
    x = as_tensor_variable(x)
    axes = {a % x.ndim for a in axes}
    if not any(x.broadcastable[a] for a in axes):
        return x
    sizes = [Shape_i(d)(x) if d in axes else s for d, s in enumerate(shape(x))]
    return reshape(x, sizes)


def patternbroadcast(x: Any, broadcastable: Sequence[bool]) -> Variable:
    """`x` with exactly the broadcast pattern `broadcastable`."""
    x = as_tensor_variable(x)
    if len(broadcastable) != x.ndim:
        raise ValueError(f"patternbroadcast: {len(broadcastable)} flags for {x.type}")
    x = addbroadcast(x, *[d for d, b in enumerate(broadcastable) if b])
    return unbroadcast(x, *[d for d, b in enumerate(broadcastable) if not b])


def specify_size(x: Variable, axis: int, n: int) -> Variable:
    """`x`, checked at run time to have `n` elements along `axis`."""
    sizes = list(shape(x))
    sizes[axis] = n
    checked = alloc(x, *sizes)  # a view; asserts the sizes of x's non-broadcastable dims
    return addbroadcast(checked, axis) if n == 1 else checked


def specify_shape(x: Any, shape_: Sequence[int]) -> Variable:
    """`x`, checked at run time to have the static shape `shape_` (dims of size 1 become
    broadcastable)."""
    x = as_tensor_variable(x)
    sizes = _static_ints(shape_, "specify_shape: shape")
    if len(sizes) != x.ndim:
        raise ValueError(f"specify_shape: {len(sizes)} sizes for {x.type}")
    checked = alloc(x, *sizes)
    return addbroadcast(checked, *[d for d, s in enumerate(sizes) if s == 1])
