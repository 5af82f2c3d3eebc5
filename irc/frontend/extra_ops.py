"""Theano's `theano.tensor.extra_ops` that irc builds from its own ops, so they compile with
the rest of the function: `diff`, `squeeze`, `fill_diagonal`, `fill_diagonal_offset`,
`to_one_hot`, `bartlett`, and the op classes Theano's tests apply (`DiffOp(n, axis)`,
`RepeatOp(axis)`, ...): callables that build the same graph (they make no node of their
own); `CumOp` with Theano's signature."""
from __future__ import annotations

from typing import Any

from .basic import add, and_, as_tensor_variable, cast, dimshuffle, eq, flatten, le, sub, subtensor, switch, true_div
from .creation import arange
from .dtype_names import integer_dtypes
from .graph import Variable
from .order_ops import CumOp as _CumOp
from ..base.config import config
from .shape_functions import repeat


class _GraphRecipe:
    """Theano's op class as a callable: equal when its parameters are."""

    __props__: tuple[str, ...] = ()

    def _props(self) -> tuple:
        return tuple(getattr(self, p) for p in self.__props__)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._props() == other._props()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self._props()))

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{', '.join(f'{p}={getattr(self, p)!r}' for p in self.__props__)}}}"


# ---------------------------------------------------------------------------- CumOp
class CumOp(_CumOp):
    """Theano's `CumOp(axis=None, mode='add'|'mul')`: applied with no axis it runs over the
    flattened input, a negative axis counts from the end, one out of range is a ValueError;
    the node it makes is irc's `CumOp` with the axis resolved."""

    def __call__(self, x: Any) -> Variable:  # type: ignore[override]
        x = as_tensor_variable(x)
        if self.axis is None:
            return _CumOp(0, self.kind)(flatten(x))
        if not -x.ndim <= self.axis < x.ndim:
            raise ValueError(f"{self}: axis {self.axis} is out of range for {x.type}")
        return _CumOp(self.axis % x.ndim, self.kind)(x)


# ---------------------------------------------------------------------------- diff
def diff(x: Any, n: int = 1, axis: int = -1) -> Variable:
    """numpy's diff: the n-th differences `x[i+1] - x[i]` along `axis`."""
    x = as_tensor_variable(x)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"diff: axis {axis} is out of range for {x.type}")
    if n < 0:
        raise ValueError(f"diff: the order n must be non-negative, got {n}")
    axis %= x.ndim
    for _ in range(n):
        lead = (slice(None),) * axis
        x = sub(subtensor(x, (*lead, slice(1, None))), subtensor(x, (*lead, slice(None, -1))))
    return x


class DiffOp(_GraphRecipe):
    """`DiffOp(n, axis)(x)`: `diff`."""

    __props__ = ("n", "axis")

    def __init__(self, n: int = 1, axis: int = -1):
        self.n, self.axis = int(n), int(axis)

    def __call__(self, x: Any) -> Variable:
        return diff(x, self.n, self.axis)


# ---------------------------------------------------------------------------- shapes
def squeeze(x: Any) -> Variable:
    """`x` without its broadcastable dims (Theano's squeeze: the dims its type knows are 1)."""
    x = as_tensor_variable(x)
    return dimshuffle(x, [d for d in range(x.ndim) if not x.broadcastable[d]])


class RepeatOp(_GraphRecipe):
    """`RepeatOp(axis)(x, repeats)`: `repeat` (a static count)."""

    __props__ = ("axis",)

    def __init__(self, axis: int | None = None):
        self.axis = axis

    def __call__(self, x: Any, repeats: Any) -> Variable:
        return repeat(x, repeats, self.axis)


# ---------------------------------------------------------------------------- diagonals
def _diagonal_mask(a: Variable, offset: Any = 0) -> Variable:
    """True where every index of `a` equals the first (offset: column - row = offset)."""
    first = arange(a.shape[0])
    mask = None
    for d in range(1, a.ndim):
        pattern = ["x"] * a.ndim
        pattern[d] = 0
        lead = ["x"] * a.ndim
        lead[0] = 0
        same = eq(sub(dimshuffle(arange(a.shape[d]), pattern), dimshuffle(first, lead)), offset)
        mask = same if mask is None else and_(mask, same)
    return mask


def _fill_value(a: Variable, val: Any, name: str) -> Variable:
    val = as_tensor_variable(val)
    if val.ndim != 0:
        raise TypeError(f"{name}: the value must be a scalar, got {val.type}")
    return cast(val, a.dtype)


def fill_diagonal(a: Any, val: Any) -> Variable:
    """A copy of `a` (at least 2-d) with `val` on its main diagonal (every index equal)."""
    a = as_tensor_variable(a)
    if a.ndim < 2:
        raise TypeError(f"fill_diagonal: needs at least 2 dims, got {a.type}")
    return switch(_diagonal_mask(a), _fill_value(a, val, "fill_diagonal"), a)


def fill_diagonal_offset(a: Any, val: Any, offset: Any) -> Variable:
    """A copy of matrix `a` with `val` on the diagonal `offset` above the main one (below when
    negative)."""
    a = as_tensor_variable(a)
    if a.ndim != 2:
        raise TypeError(f"fill_diagonal_offset: needs a matrix, got {a.type}")
    offset = as_tensor_variable(offset)
    if offset.ndim != 0 or offset.dtype not in integer_dtypes:
        raise TypeError(f"fill_diagonal_offset: the offset must be an integer scalar, got {offset.type}")
    return switch(_diagonal_mask(a, cast(offset, "int64")), _fill_value(a, val, "fill_diagonal_offset"), a)


class FillDiagonal(_GraphRecipe):
    """`FillDiagonal()(a, val)`: `fill_diagonal`."""

    def __call__(self, a: Any, val: Any) -> Variable:
        return fill_diagonal(a, val)


class FillDiagonalOffset(_GraphRecipe):
    """`FillDiagonalOffset()(a, val, offset)`: `fill_diagonal_offset`."""

    def __call__(self, a: Any, val: Any, offset: Any) -> Variable:
        return fill_diagonal_offset(a, val, offset)


# ---------------------------------------------------------------------------- others
def to_one_hot(y: Any, nb_class: int, dtype: str | None = None) -> Variable:
    """The one-hot rows of the integer vector `y` over `nb_class` classes (`dtype`: floatX)."""
    y = as_tensor_variable(y)
    if y.ndim != 1 or y.dtype not in integer_dtypes:
        raise TypeError(f"to_one_hot: y must be an integer vector, got {y.type}")
    hot = eq(dimshuffle(y, [0, "x"]), dimshuffle(arange(nb_class), ["x", 0]))
    return cast(hot, dtype or config.floatX)


def bartlett(M: Any) -> Variable:
    """numpy's Bartlett (triangular) window of `M` points, float64 (empty when M < 1)."""
    M = as_tensor_variable(M)
    if M.ndim != 0 or M.dtype not in integer_dtypes:
        raise TypeError(f"bartlett: M must be an integer scalar, got {M.type}")
    m = cast(M, "float64")
    n = sub(cast(arange(M), "float64") * 2.0, sub(m, 1.0))  # 1-M, 3-M, ..., M-1
    ramp = true_div(n, sub(m, 1.0))
    window = switch(le(n, 0.0), add(1.0, ramp), sub(1.0, ramp))
    return switch(eq(M, 1), 1.0, window)


class Bartlett(_GraphRecipe):
    """`Bartlett()(M)`: `bartlett`."""

    def __call__(self, M: Any) -> Variable:
        return bartlett(M)
