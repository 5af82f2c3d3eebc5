"""Functions that rearrange elements, written with existing ops (so each has a gradient and
compiles natively): `tile`, `repeat`, `diag`, `split`, the broadcast-pattern functions
(`addbroadcast`, `unbroadcast`, `patternbroadcast`) and `specify_shape`."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .basic import (add, as_tensor_variable, dimshuffle, ge, lt, maximum, minimum, mul, reshape, set_subtensor, shape,
                    sub, subtensor, subtensor_static, switch)
from .assert_op import Assert
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


def _is_integer_count(r: Any) -> bool:
    if isinstance(r, Variable):
        return r.ndim == 0 and (r.dtype.startswith(("int", "uint")))
    return isinstance(r, (int, np.integer)) and not isinstance(r, (bool, np.bool_))


def _tile_reps(x: Variable, reps: Any, ndim: int | None) -> tuple[list[Any], int]:
    """Theano's reps for tile: an integer or 0-d integer tensor, a list of them (ints and 0-d
    integer tensors mixed), or an integer vector with `ndim` given (shorter ones are padded with
    1 in front, as numpy's); checked as Theano checks them, with its ValueErrors."""
    if ndim is not None and ndim < x.ndim:
        raise ValueError(f"tile: ndim ({ndim}) must be at least x.ndim ({x.ndim})")
    if not isinstance(reps, (list, tuple)):
        r = as_tensor_variable(reps)
        if not r.dtype.startswith(("int", "uint")):
            raise ValueError(f"tile: reps must be integers, got {r.type}")
        if r.ndim == 0:
            reps = [reps]
        elif r.ndim == 1:
            if ndim is None:
                raise ValueError("tile: give ndim when reps is a vector (its length is known only at run time)")
            if isinstance(r, Constant):
                reps = [int(v) for v in r.data]
            else:
                offset = sub(ndim, Shape_i(0)(r))   # more than ndim counts: an AssertionError at run time
                offset = Assert("tile: reps has more entries than ndim")(offset, ge(offset, 0))
                reps = [switch(lt(i, offset), 1, subtensor(r, (maximum(sub(i, offset), 0),))) for i in range(ndim)]
        else:
            raise ValueError(f"tile: reps must be a scalar or a vector, got {r.ndim} dimensions")
    reps = [r.data.item() if isinstance(r, Constant) and r.ndim == 0 else r for r in reps]
    if ndim is not None and len(reps) > ndim:
        raise ValueError(f"tile: {len(reps)} reps for ndim={ndim}")
    if not all(_is_integer_count(r) for r in reps):
        raise ValueError(f"tile: reps must be ints or 0-d integer tensors, got {list(reps)!r}")
    ndim = max(x.ndim, len(reps)) if ndim is None else ndim
    return [1] * (ndim - len(reps)) + list(reps), ndim


def tile(x: Any, reps: Any, ndim: int | None = None) -> Variable:
    """numpy's tile: each dim of `x` repeated `reps[k]` times, as blocks; counts known when the
    graph is built or at run time (Theano's reps: `_tile_reps`)."""
    x = as_tensor_variable(x)
    reps, ndim = _tile_reps(x, reps, ndim)
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


def _axis(x: Variable, axis: int, who: str) -> int:
    if not -x.ndim <= int(axis) < x.ndim:
        raise ValueError(f"{who}: axis {axis} does not exist in {x.type} ({x.ndim} dimension(s))")
    return int(axis) % x.ndim


def _rebroadcast_source(x: Variable) -> Variable:
    """The value `x` was rebroadcast from — when it is still `x`'s direct input (one op, or a
    size-1 slice and a reshape: a clone of `x` copies its tag, not its graph) — else `x`."""
    source = getattr(x.tag, "rebroadcast_of", None)
    v = x
    for _ in range(2):
        if v.owner is None or not v.owner.inputs:
            break
        v = v.owner.inputs[0]
        if v is source:
            return source
    return x


def _rebroadcast(x: Variable, flags: dict[int, bool]) -> Variable:
    """`x` with the broadcast flags of `axes` set to `flag` (Theano's Rebroadcast with its two
    rewrites applied at once, as its addbroadcast/unbroadcast do): a change that changes nothing
    is `x` itself; a change of a rebroadcast value restarts from the value it came from, so
    `unbroadcast(addbroadcast(x, 0), 0) is x` and consecutive changes make one op over it."""
    if all(x.broadcastable[a] == flag for a, flag in flags.items()):
        return x
    pattern = [flags.get(d, b) for d, b in enumerate(x.broadcastable)]
    source = _rebroadcast_source(x)
    if list(source.broadcastable) == pattern:
        return source
    add_axes = [d for d, b in enumerate(pattern) if b and not source.broadcastable[d]]
    drop_axes = {d for d, b in enumerate(pattern) if not b and source.broadcastable[d]}
    out = subtensor_static(source, {}, keep_ones=add_axes) if add_axes else source
    if drop_axes:
        out = reshape(out, [Shape_i(d)(out) if d in drop_axes else s for d, s in enumerate(shape(out))])
    out.tag.rebroadcast_of = source
    return out


def addbroadcast(x: Any, *axes: int) -> Variable:
    """`x` with `axes` declared broadcastable (size 1; checked at run time)."""
    x = as_tensor_variable(x)
    return _rebroadcast(x, {_axis(x, a, "addbroadcast"): True for a in axes})


def unbroadcast(x: Any, *axes: int) -> Variable:
    """`x` with `axes` no longer broadcastable (their size is read at run time)."""
    x = as_tensor_variable(x)
    return _rebroadcast(x, {_axis(x, a, "unbroadcast"): False for a in axes})


def patternbroadcast(x: Any, broadcastable: Sequence[bool]) -> Variable:
    """`x` with the broadcast flags `broadcastable` for its leading axes (Theano's: an empty
    pattern leaves `x` as it is; more flags than dims is an error)."""
    x = as_tensor_variable(x)
    if len(broadcastable) > x.ndim:
        raise ValueError(f"patternbroadcast: {len(broadcastable)} flags for {x.type}, which has "
                         f"{x.ndim} dimension(s)")
    return _rebroadcast(x, {d: bool(b) for d, b in enumerate(broadcastable)})


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
