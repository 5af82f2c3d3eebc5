"""`cumsum`, `cumprod`, `sort`, `argsort` (Theano's `T.extra_ops.cumsum`, `T.sort`, ...),
on `tensor.cumulative` and `tensor.sort`."""
from __future__ import annotations

from typing import Any

from .basic import as_tensor_variable, eq, or_, reshape
from .complex_refusal import refuse_complex
from .graph import Constant, Variable
from .ifelse import ifelse
from .order_ops import CumOp, Sort


def _along(x: Any, axis: int | None) -> tuple[Variable, int]:
    x = as_tensor_variable(x)
    if isinstance(axis, Constant):
        axis = int(axis.data)
    if axis is None:
        return reshape(x, (-1,)), 0
    if x.ndim == 0:
        raise ValueError(f"an axis of a 0-d tensor ({x.type})")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of range for {x.type} (numpy's AxisError)")
    return x, axis % x.ndim


def cumsum(x: Any, axis: int | None = None) -> Variable:
    """Running sums along `axis` (of the flattened `x` when None), as numpy."""
    x, axis = _along(x, axis)
    return CumOp(axis, "sum")(x if x.dtype != "bool" else x.astype("int64"))


def cumprod(x: Any, axis: int | None = None) -> Variable:
    """Running products along `axis` (of the flattened `x` when None), as numpy."""
    x, axis = _along(x, axis)
    return CumOp(axis, "prod")(x if x.dtype != "bool" else x.astype("int64"))


def _by_axis_value(a: Any, axis: Variable, kind: str) -> Variable:
    """`Sort` along an axis known only at run time (Theano's symbolic `axis`): a lazy choice
    among the sorts along each axis (an axis out of range takes the last)."""
    a = as_tensor_variable(a)
    if axis.ndim != 0:
        raise TypeError(f"sort: axis must be a scalar, got {axis.type}")
    if a.ndim == 0:
        raise ValueError(f"an axis of a 0-d tensor ({a.type})")
    out = Sort(a.ndim - 1, kind)(a)
    for k in reversed(range(a.ndim - 1)):
        out = ifelse(or_(eq(axis, k), eq(axis, k - a.ndim)), Sort(k, kind)(a), out)
    return out


def _symbolic(axis: Any) -> bool:
    return isinstance(axis, Variable) and not isinstance(axis, Constant)


def sort(a: Any, axis: int | None = -1, kind: str = "quicksort", order: Any = None) -> Variable:
    """`a` sorted along `axis` (flattened when None); stable, NaNs last. `kind` is accepted
    for numpy's signature (the result does not depend on it); `order` is not supported."""
    if order is not None:
        raise NotImplementedError("sort: order= (structured arrays) is not supported")
    refuse_complex("sort", a)
    if _symbolic(axis):
        return _by_axis_value(a, axis, "values")
    a, axis = _along(a, axis)
    return Sort(axis, "values")(a)


def argsort(a: Any, axis: int | None = -1, kind: str = "quicksort", order: Any = None) -> Variable:
    """The int64 indices that sort `a` along `axis` (stable: equal elements keep their order)."""
    if order is not None:
        raise NotImplementedError("argsort: order= (structured arrays) is not supported")
    refuse_complex("argsort", a)
    if _symbolic(axis):
        return _by_axis_value(a, axis, "indices")
    a, axis = _along(a, axis)
    return Sort(axis, "indices")(a)
