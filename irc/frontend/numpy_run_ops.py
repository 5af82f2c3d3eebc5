"""Theano's extra ops that irc runs with numpy between the function's native parts (irc's
user-op protocol, `user_op.py`): `Unique`, `compress` and `nonzero` (with `flatnonzero`,
`nonzero_values`), whose result sizes depend on the data
(the caller of native code sizes results before the call), and `searchsorted`, numpy's binary
search, whose answers on an unsorted array Theano's tests pin down (a count of comparisons,
which would compile, gives other ones there)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .basic import as_tensor_variable, zeros_like
from .dtype_names import integer_dtypes
from .graph import Apply, Variable
from .tensor_type import TensorType
from .user_op import UserOp


class Unique(UserOp):
    """numpy's `unique(x, return_index, return_inverse, return_counts, axis)`: the sorted
    distinct values (rows along `axis`), then the int64 outputs asked for, as numpy gives them."""

    __props__ = ("return_index", "return_inverse", "return_counts", "axis")

    def __init__(self, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
                 axis: int | None = None):
        self.return_index = bool(return_index)
        self.return_inverse = bool(return_inverse)
        self.return_counts = bool(return_counts)
        self.axis = None if axis is None else int(axis)

    def _numpy(self, x: np.ndarray) -> list[np.ndarray]:
        out = np.unique(x, self.return_index, self.return_inverse, self.return_counts, axis=self.axis)
        return list(out) if isinstance(out, tuple) else [out]

    def make_node(self, x: Any) -> Apply:  # type: ignore[override]
        x = as_tensor_variable(x)
        if self.axis is not None and not -x.ndim <= self.axis < x.ndim:
            raise ValueError(f"{self}: axis {self.axis} is out of range for {x.type}")
        probe = self._numpy(np.zeros((1,) * x.ndim, x.dtype))  # numpy decides each output's rank
        types = [TensorType(x.dtype if k == 0 else "int64", (False,) * p.ndim) for k, p in enumerate(probe)]
        return Apply(self, [x], [t() for t in types])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list[list]) -> None:
        for cell, value, out in zip(output_storage, self._numpy(inputs[0]), node.outputs):
            cell[0] = np.asarray(value, dtype=out.dtype)

    def grad(self, inputs, output_grads):  # type: ignore[override]
        raise NotImplementedError(f"{self} has no gradient (its outputs are not smooth in its input)")


def unique(x: Any, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: int | None = None) -> Variable | list[Variable]:
    """`Unique(...)(x)`: the distinct values of `x` (and the outputs asked for)."""
    return Unique(return_index, return_inverse, return_counts, axis)(x)


class SearchsortedOp(UserOp):
    """numpy's `searchsorted(x, v, side, sorter)`: per value of `v`, where it goes in the
    sorted vector `x` (int64, `v`'s shape). Its gradient is zero (a step function)."""

    __props__ = ("side",)

    def __init__(self, side: str = "left"):
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        self.side = side

    def make_node(self, x: Any, v: Any, sorter: Any = None) -> Apply:  # type: ignore[override]
        x, v = as_tensor_variable(x), as_tensor_variable(v)
        if x.ndim != 1:
            raise ValueError(f"searchsorted: x must be a vector, got {x.type}")
        inputs = [x, v]
        if sorter is not None:
            sorter = as_tensor_variable(sorter)
            if sorter.ndim != 1:
                raise ValueError(f"searchsorted: sorter must be a vector, got {sorter.type}")
            if sorter.dtype not in integer_dtypes:
                raise TypeError(f"searchsorted: sorter must hold integers, got {sorter.type}")
            inputs.append(sorter)
        return Apply(self, inputs, [TensorType("int64", v.broadcastable)()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list[list]) -> None:
        sorter = inputs[2] if len(inputs) == 3 else None
        output_storage[0][0] = np.asarray(np.searchsorted(inputs[0], inputs[1], self.side, sorter), dtype="int64")

    def grad(self, inputs, output_grads):  # type: ignore[override]
        return [zeros_like(i) if i.type.is_float else None for i in inputs]


def searchsorted(x: Any, v: Any, side: str = "left", sorter: Any = None) -> Variable:
    """numpy's searchsorted: where each value of `v` goes in the sorted vector `x` (or
    `x[sorter]`), the first such place (`side='left'`) or the last (`'right'`), as int64."""
    return SearchsortedOp(side)(x, v, sorter)


class Compress(UserOp):
    """numpy's `compress(condition, x, axis)`: the slices of `x` along `axis` (of the
    flattened `x` when None) where the integer or bool vector `condition` is non-zero."""

    __props__ = ("axis",)

    def __init__(self, axis: int | None = None):
        self.axis = None if axis is None else int(axis)

    def make_node(self, condition: Any, x: Any) -> Apply:  # type: ignore[override]
        condition, x = as_tensor_variable(condition), as_tensor_variable(x)
        if condition.ndim != 1 or (condition.dtype not in integer_dtypes and condition.dtype != "bool"):
            raise TypeError(f"compress: the condition must be an integer or bool vector, got {condition.type}")
        if self.axis is not None and not -x.ndim <= self.axis < x.ndim:
            raise ValueError(f"compress: axis {self.axis} is out of range for {x.type}")
        ndim = 1 if self.axis is None else x.ndim
        return Apply(self, [condition, x], [TensorType(x.dtype, (False,) * ndim)()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list[list]) -> None:
        condition, x = inputs
        output_storage[0][0] = np.ascontiguousarray(np.compress(condition, x, axis=self.axis))


def compress(condition: Any, x: Any, axis: int | None = None) -> Variable:
    """`Compress(axis)(condition, x)`."""
    return Compress(axis)(condition, x)


class Nonzero(UserOp):
    """numpy's `nonzero(a)` as an int64 matrix (one row per dim of `a`, one column per non-zero
    element); `flat=True`: numpy's `flatnonzero(a)`, an int64 vector."""

    __props__ = ("flat",)

    def __init__(self, flat: bool = False):
        self.flat = bool(flat)

    def make_node(self, a: Any) -> Apply:  # type: ignore[override]
        a = as_tensor_variable(a)
        if a.ndim == 0:
            raise ValueError(f"nonzero: needs an array of at least one dim, got {a.type}")
        return Apply(self, [a], [TensorType("int64", (False,) if self.flat else (False, False))()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list[list]) -> None:
        a = inputs[0]
        found = np.flatnonzero(a) if self.flat else np.vstack(np.nonzero(a)).reshape(a.ndim, -1)
        output_storage[0][0] = np.ascontiguousarray(found, dtype="int64")


def nonzero(a: Any, return_matrix: bool = False) -> Any:
    """The indices of the non-zero elements of `a`: one int64 vector per dim (numpy's tuple), or
    with `return_matrix` the matrix stacking them."""
    indices = Nonzero()(a)
    if return_matrix:
        return indices
    return tuple(indices[k] for k in range(as_tensor_variable(a).ndim))


def flatnonzero(a: Any) -> Variable:
    """The indices of the non-zero elements of `a` flattened (int64)."""
    return Nonzero(flat=True)(a)


def nonzero_values(a: Any) -> Variable:
    """The non-zero elements of `a`, in order (flattened)."""
    a = as_tensor_variable(a)
    return a.flatten()[flatnonzero(a)]
