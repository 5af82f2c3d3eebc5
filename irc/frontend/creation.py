"""Tensors made from sizes: `alloc`, `zeros`, `ones`, `arange`, `eye`, `identity_like`.

Sizes may be Python ints or symbolic 0-d integers (`x.shape[0] + 1`): they become 0-d int64
operands of one `tensor.alloc`/`tensor.iota`, which compile natively when the sizes derive
from input shapes and constants (a size read from an input's value runs in the reference
executor, with a warning naming the op)."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes
from .basic import (add, as_tensor_variable, cast, ceil, constant, dimshuffle, dtypes_name, eq, int_div,
                    mul, neg, pad_left, size_list, sub, true_div)
from .creation_ops import AllocShape, Iota
from .graph import Variable
from .mathops import maximum
from .tensor_type import INT_DTYPES, floatX


def _size(n: Any, what: str) -> Variable:
    """A size as a 0-d int64 variable (a constant for Python ints)."""
    if isinstance(n, (bool, float, np.floating)):
        raise TypeError(f"{what} must be an integer, got {n!r}")
    v = as_tensor_variable(n)
    if v.ndim != 0 or not (v.type.is_integer or v.dtype == "bool"):
        raise TypeError(f"{what} must be a 0-d integer, got {v} ({v.type})")
    return cast(v, "int64")


def _shape_list(shape: Any) -> list[Any]:
    if isinstance(shape, Variable) and shape.ndim == 0:
        return [shape]
    entries = size_list(shape)
    if entries is not None:
        return entries
    if isinstance(shape, Variable):
        raise TypeError("the shape must be a tuple of sizes (ints or 0-d symbolic integers) or "
                        f"x.shape, not the vector {shape} of unknown length")
    return [shape]


def alloc(value: Any, *shape: Any) -> Variable:
    """`value` broadcast to `shape` (numpy's `np.full(shape, value)`; `value` may be a tensor
    whose dims are matched from the right, as in broadcasting)."""
    v = as_tensor_variable(value)
    if v.ndim > len(shape):
        raise ValueError(f"alloc: value {v} ({v.type}) has more dims than the shape {shape}")
    sizes = [_size(n, f"alloc: size {k}") for k, n in enumerate(shape)]
    return AllocShape()(pad_left(v, len(shape)), *sizes)


def _filled(fill_value: float, shape: Any, dtype: str | None) -> Variable:
    dtype = dtypes_name(dtype) if dtype else floatX()
    sizes = _shape_list(shape)
    return alloc(constant(np.asarray(fill_value, dtype=dtype)), *sizes)


def zeros(shape: Any, dtype: str | None = None) -> Variable:
    return _filled(0, shape, dtype)


def ones(shape: Any, dtype: str | None = None) -> Variable:
    return _filled(1, shape, dtype)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: str | None = None) -> Variable:
    """numpy's arange: `start + k * delta` for k in 0..ceil((stop - start) / step) - 1, with
    numpy's `delta = (start + step) - start` (so the values are numpy's, bit for bit). The dtype
    follows the arguments (floatX with a Python float); an integer one is int64, as Theano's
    ("don't be stingy": a narrow count overflows)."""
    if stop is None:
        start, stop = 0, start
    args = [start, stop, step]
    strong = [as_tensor_variable(a).dtype for a in args if not dtypes.is_weak(a)]  # numpy scalars too
    weak = [dtypes.weak_kind(a) for a in args if dtypes.is_weak(a)]
    out_dtype = dtypes_name(dtype) if dtype else dtypes.upcast(strong, weak)
    if not dtype and out_dtype in INT_DTYPES:
        out_dtype = "int64"
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        if step == 0:
            raise ValueError("arange: step cannot be zero")
        n = max(0, -(-(stop - start) // step))
        count: Variable = constant(np.int64(n))
    else:
        a, b, s = (as_tensor_variable(x) for x in args)
        if all(x.type.is_integer or x.dtype == "bool" for x in (a, b, s)):  # -((a - b) // s)
            count = neg(int_div(sub(cast(a, "int64"), cast(b, "int64")), cast(s, "int64")))
        else:  # ceil((stop - start) / step), in float64 as numpy computes it
            a, b, s = (cast(x, "float64") for x in (a, b, s))
            count = cast(ceil(true_div(sub(b, a), s)), "int64")
        count = maximum(count, np.int64(0))
    k = Iota()(count)
    if isinstance(start, int) and start == 0 and isinstance(step, int) and step == 1:
        return cast(k, out_dtype)
    first = cast(as_tensor_variable(start), out_dtype)
    delta = sub(add(first, cast(as_tensor_variable(step), out_dtype)), first)
    return cast(add(mul(cast(k, out_dtype), delta), first), out_dtype)


def eye(n: Any, m: Any = None, k: int = 0, dtype: str | None = None) -> Variable:
    """The n x m matrix with ones on diagonal `k` (numpy's eye)."""
    rows = arange(_size(n, "eye: n"))
    cols = arange(_size(n if m is None else m, "eye: m"))
    hit = eq(add(dimshuffle(rows, (0, "x")), np.int64(k)), dimshuffle(cols, ("x", 0)))
    return cast(hit, dtypes_name(dtype) if dtype else floatX())


def identity_like(x: Any, dtype: str | None = None) -> Variable:
    """`eye` of the shape of the matrix `x` (x's dtype unless `dtype`)."""
    x = as_tensor_variable(x)
    if x.ndim != 2:
        raise TypeError(f"identity_like needs a matrix, got {x.type}")
    return eye(x.shape[0], x.shape[1], dtype=dtype or x.dtype)



class ARange:
    """Theano's op class: `ARange(dtype)(start, stop, step)` is `arange(start, stop, step,
    dtype=dtype)` (a callable that builds that graph, so it differentiates the same way)."""

    def __init__(self, dtype: str):
        self.dtype = dtype

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.dtype == other.dtype  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.dtype))

    def __call__(self, start: Any, stop: Any, step: Any) -> Variable:
        return arange(start, stop, step, dtype=self.dtype)
