"""Reductions and linear algebra on symbolic tensors: sum, prod, mean, max, min, argmax,
argmin, var, std, any, all, dot, clip, norm. Dtype rules are in irc/frontend/dtypes.py."""
from __future__ import annotations

import builtins
from typing import Any, Sequence

import numpy as np

from . import dtypes
from .basic import (abs_, as_tensor_variable, cast, dimshuffle, flatten, lt, maximum, minimum, mul, neq,
                    reshape, shape, sqrt, sub, switch, true_div)
from .complex_refusal import refuse_complex
from .elemwise_function import elemwise_function
from .graph import Constant, Variable
from .matrix_products import dot  # noqa: F401  (x.dot(y) and x @ y find it here: operators.py)
from .reduce import REDUCERS


def normalize_axes(x: Variable, axis: Any) -> tuple[int, ...]:
    """`axis` (None, an int or a sequence; negatives count from the end) as sorted axes."""
    if axis is None:
        return tuple(range(x.ndim))
    if isinstance(axis, Variable):
        if not isinstance(axis, Constant):
            raise TypeError("axis must be known when the graph is built (an int or a tuple of ints)")
        axis = axis.data.tolist()
    axes = [axis] if np.ndim(axis) == 0 else list(axis)  # (an int, or a 0-d array as Theano takes)
    out = set()
    for a in axes:
        a = int(a)
        if not -x.ndim <= a < builtins.max(x.ndim, 1):
            raise ValueError(f"axis {a} is out of range for {x.type} (ndim={x.ndim})")
        out.add(a % x.ndim if x.ndim else 0)
    return tuple(sorted(out))


def keep_dims(out: Variable, axes: Sequence[int], ndim: int) -> Variable:
    """Re-insert reduced axes as broadcastable dims (keepdims=True)."""
    pattern: list[int | str] = []
    k = 0
    for d in range(ndim):
        if d in axes:
            pattern.append("x")
        else:
            pattern.append(k)
            k += 1
    return dimshuffle(out, pattern)


def reduce(x: Any, kind: str, axis: Any = None, keepdims: bool = False) -> Variable:
    """`tensor.reduce` of `kind` over `axis`; no node at all when there is nothing to reduce."""
    x = as_tensor_variable(x)
    axes = normalize_axes(x, axis) if x.ndim else ()
    out = REDUCERS[kind](axes)(x) if axes else x
    return keep_dims(out, axes, x.ndim) if keepdims and axes else out


def sum(x: Any, axis: Any = None, dtype: str | None = None, keepdims: bool = False) -> Variable:  # noqa: A001
    x = as_tensor_variable(x)
    return reduce(cast(x, dtype or dtypes.sum_dtype(x.dtype)), "sum", axis, keepdims)


def prod(x: Any, axis: Any = None, dtype: str | None = None, keepdims: bool = False) -> Variable:
    x = as_tensor_variable(x)
    return reduce(cast(x, dtype or dtypes.sum_dtype(x.dtype)), "prod", axis, keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    refuse_complex("max", x)
    return reduce(x, "max", axis, keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    refuse_complex("min", x)
    return reduce(x, "min", axis, keepdims)


def ptp(a: Any, axis: Any = None) -> Variable:
    """The range `max - min` along `axis` (all axes when None), numpy's and Theano's `ptp`."""
    a = as_tensor_variable(a)
    return sub(max(a, axis), min(a, axis))


def _arg(x: Any, kind: str, axis: Any, keepdims: bool) -> Variable:
    x = as_tensor_variable(x)
    refuse_complex(kind, x)
    if axis is None:
        if x.ndim == 0:
            raise ValueError(f"{kind} of a 0-d tensor")
        out = REDUCERS[kind]((0,))(flatten(x) if x.ndim != 1 else x)
        return keep_dims(out, tuple(range(x.ndim)), x.ndim) if keepdims else out
    axes = normalize_axes(x, axis)
    if len(axes) == 1:
        out = REDUCERS[kind](axes)(x)
    else:  # Theano's rule: the index into those axes flattened (in order), the others kept
        kept = [d for d in range(x.ndim) if d not in axes]
        moved = dimshuffle(x, [*kept, *axes])
        merged = reshape(moved, [*[moved.shape[k] for k in range(len(kept))], -1])
        out = REDUCERS[kind]((len(kept),))(merged)
    return keep_dims(out, axes, x.ndim) if keepdims else out


def argmax(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    return _arg(x, "argmax", axis, keepdims)


def argmin(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    return _arg(x, "argmin", axis, keepdims)


def count(x: Variable, axes: Sequence[int], dtype: str) -> Variable:
    """The number of elements over `axes`, as a 0-d of `dtype` (1 when there are none)."""
    sizes = [cast(s, dtype) for d, s in enumerate(shape(x)) if d in axes]
    n = sizes[0] if sizes else as_tensor_variable(np.asarray(1, dtype))
    for s in sizes[1:]:
        n = mul(n, s)
    return n


def mean(x: Any, axis: Any = None, dtype: str | None = None, keepdims: bool = False) -> Variable:
    """Sum divided by the count, in the input's float dtype (floatX for integers), accumulated
    as Theano's sums are (its acc_dtype): float16 in float32, float32 in float64, rounded once
    at the end (a float16 sum of 100000 ones overflows; the float32 mean of [1e8, 1, -1e8] is
    1/3)."""
    x = as_tensor_variable(x)
    out_dtype = dtype or dtypes.mean_dtype(x.dtype)
    work_dtype = {"float16": "float32", "float32": "float64"}.get(out_dtype, out_dtype)
    x = cast(x, work_dtype)
    axes = normalize_axes(x, axis) if x.ndim else ()
    s = sum(x, axes, keepdims=keepdims)
    m = true_div(s, count(x, axes, work_dtype)) if axes else s
    return cast(m, out_dtype)


def var(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False, corrected: bool = False) -> Variable:
    """The variance over `axis` with `ddof` (Theano's signature; numpy's population variance by
    default): the mean squared deviation times n / (n - ddof); `corrected` subtracts the square
    of the deviations' mean (their rounding error, as Theano)."""
    if isinstance(ddof, bool):  # (irc's older positional keepdims)
        ddof, keepdims = 0, ddof
    x = as_tensor_variable(x)
    d = sub(x, mean(x, axis, keepdims=True))
    v = mean(mul(d, d), axis, keepdims=keepdims)
    if corrected:
        m = mean(d, axis, keepdims=keepdims)
        v = sub(v, mul(m, m))
    if ddof:
        n = count(x, normalize_axes(x, axis) if x.ndim else (), v.dtype)
        v = true_div(mul(v, n), sub(n, ddof))
    return v


def std(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False, corrected: bool = False) -> Variable:
    """The square root of `var` (same arguments)."""
    return sqrt(var(x, axis, ddof, keepdims, corrected))


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    x = as_tensor_variable(x)
    return max(x if x.dtype == "bool" else neq(x, 0), axis, keepdims)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    x = as_tensor_variable(x)
    return min(x if x.dtype == "bool" else neq(x, 0), axis, keepdims)


def outer(a: Any, b: Any) -> Variable:
    """numpy's outer: every element of `a` (flattened) times every element of `b`."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    a, b = (a if a.ndim == 1 else flatten(a)), (b if b.ndim == 1 else flatten(b))
    return mul(dimshuffle(a, (0, "x")), dimshuffle(b, ("x", 0)))


@elemwise_function("clip")
def clip(x: Any, lo: Any, hi: Any) -> Variable:
    """`x` limited to [lo, hi] as Theano's Clip: lo where x < lo, else min(x, hi) — so hi where
    lo > hi and x >= lo (numpy's clip changed that case; Theano's did not). The gradient flows
    to x where lo <= x <= hi, to lo where x < lo, to hi where lo <= x and x > hi."""
    refuse_complex("clip", x, lo, hi)
    x = as_tensor_variable(x)
    return switch(lt(x, lo), lo, minimum(x, hi))


def norm(x: Any, L: int = 2, axis: Any = None) -> Variable:
    if L == 1:
        return sum(abs_(x), axis)
    if L == 2:
        return sqrt(sum(mul(x, x), axis))
    raise NotImplementedError(f"norm with L={L}")
