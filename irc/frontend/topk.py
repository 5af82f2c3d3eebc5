"""`topk`, `argtopk`, `topk_and_argtopk` (Theano's `theano.tensor.sort`): the `kth` largest
(kth > 0) or smallest (kth < 0) entries along an axis, as a slice of `sort`/`argsort` along it,
so they run and differentiate as the sort does. As in Theano 1.0, `sorted=True` (an order of
the result) is not implemented: pass `sorted=False` (the order is then the sort's)."""
from __future__ import annotations

from typing import Any

from .basic import as_tensor_variable, cast
from .graph import Variable
from .order import argsort, sort


def _checked(x: Any, kth: Any, axis: int | None, sorted: bool, who: str) -> tuple[Variable, int, int]:
    x = as_tensor_variable(x)
    if sorted:
        raise NotImplementedError(f"{who}: sorted=True is not implemented (as in Theano 1.0); pass sorted=False")
    if isinstance(kth, Variable) or not isinstance(kth, int) or isinstance(kth, bool):
        raise TypeError(f"{who}: kth must be a Python int (a symbolic kth is not supported), got {kth!r}")
    if kth == 0:
        raise ValueError(f"{who}: kth must not be 0")
    if x.ndim == 0:
        raise ValueError(f"{who}: needs at least one dimension, got {x.type}")
    axis = (x.ndim - 1 if axis is None else axis) % x.ndim
    return x, kth, axis


def _kept(v: Variable, kth: int, axis: int) -> Variable:
    """The last `kth` entries along `axis` (the largest), or the first `-kth` (the smallest)."""
    keep = slice(-kth, None) if kth > 0 else slice(None, -kth)
    return v[(slice(None),) * axis + (keep,)]


def topk(x: Any, kth: int, axis: int | None = -1, sorted: bool = True, idx_dtype: str = "int64") -> Variable:
    """The `kth` largest values of `x` along `axis` (the `-kth` smallest when kth < 0)."""
    x, kth, axis = _checked(x, kth, axis, sorted, "topk")
    return _kept(sort(x, axis=axis), kth, axis)


def argtopk(x: Any, kth: int, axis: int | None = -1, sorted: bool = True, idx_dtype: str = "int64") -> Variable:
    """The indices along `axis` of `topk`'s values, as `idx_dtype`."""
    x, kth, axis = _checked(x, kth, axis, sorted, "argtopk")
    return cast(_kept(argsort(x, axis=axis), kth, axis), idx_dtype)


def topk_and_argtopk(x: Any, kth: int, axis: int | None = -1, sorted: bool = True,
                     idx_dtype: str = "int64") -> tuple[Variable, Variable]:
    """(`topk`, `argtopk`) of the same arguments."""
    return (topk(x, kth, axis=axis, sorted=sorted, idx_dtype=idx_dtype),
            argtopk(x, kth, axis=axis, sorted=sorted, idx_dtype=idx_dtype))
