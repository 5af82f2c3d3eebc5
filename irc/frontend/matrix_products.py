"""`dot` and `tensordot` with numpy's (and Theano's) meaning for operands of any rank, all
reduced to the one matrix product `Dot` by dimshuffles and reshapes, so every form runs on the
fast gemm/gemv and differentiates through the rules of those three ops.

Theano's `dot` (tensor/basic.py): a scalar operand multiplies; vectors and matrices use `Dot`;
with more dims it is `tensordot` over the last axis of `a` and the second-to-last of `b` (its
only axis for a vector), which is numpy.dot: `dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m])`.
"""
from __future__ import annotations

import numbers
from typing import Any, Sequence

from . import dtypes
from .basic import as_tensor_variable, cast, dimshuffle, mul, reshape, shape
from .blas import Dot
from .graph import Variable


def matrix_dot(a: Variable, b: Variable) -> Variable:
    """The `Dot` op of vectors and matrices, both operands cast to their common dtype (bool
    products compute in int8)."""
    dtype = dtypes.upcast([a.dtype, b.dtype])
    if dtype == "bool":
        dtype = "int8"
    return Dot()(cast(a, dtype), cast(b, dtype))


def dot(a: Any, b: Any) -> Variable:
    """numpy.dot: scalars multiply, vectors and matrices are one `Dot`, and N-d operands sum
    over the last axis of `a` and the second-to-last of `b` (result dims: a's other dims, then
    b's)."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.ndim == 0 or b.ndim == 0:
        return mul(a, b)
    if a.ndim <= 2 and b.ndim <= 2:
        return matrix_dot(a, b)
    return tensordot(a, b, [[a.ndim - 1], [max(0, b.ndim - 2)]])


def summed_axes(a: Variable, b: Variable, axes: Any, name: str = "tensordot") -> tuple[list[int], list[int]]:
    """numpy's `axes` of tensordot as two lists of non-negative axes (an int n: the last n of
    `a` against the first n of `b`), checked against the ranks."""
    if isinstance(axes, numbers.Integral):
        n = int(axes)
        if n > min(a.ndim, b.ndim) or n < 0:
            raise ValueError(f"{name}: axes={n} does not fit {a.type} and {b.type}")
        return list(range(a.ndim - n, a.ndim)), list(range(n))
    a_axes, b_axes = ([int(x)] if isinstance(x, numbers.Integral) else [int(v) for v in x] for x in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"{name}: {len(a_axes)} axes of a but {len(b_axes)} of b")
    for axes_of, x in ((a_axes, a), (b_axes, b)):
        bad = [d for d in axes_of if not -x.ndim <= d < x.ndim]
        if bad:
            raise ValueError(f"{name}: axis {bad[0]} is out of range for {x.type}")
    return [d % a.ndim for d in a_axes], [d % b.ndim for d in b_axes]


def elements_over(x: Variable, dims: Sequence[int]) -> Variable | int:
    """The number of elements over `dims`, as a product of sizes (which lowering can trace)."""
    out: Variable | int = 1
    for d in dims:
        out = shape(x)[d] if isinstance(out, int) else mul(out, shape(x)[d])
    return out


def sizes_of(x: Variable, dims: Sequence[int]) -> list[Variable | int]:
    """The sizes of `dims`, a static 1 where `x` is broadcastable (kept so in a reshape)."""
    return [1 if x.broadcastable[d] else shape(x)[d] for d in dims]


def tensordot(a: Any, b: Any, axes: Any = 2) -> Variable:
    """numpy's tensordot: the sum over `axes` of a (its last `axes` when an int) against the
    same number of axes of b (its first). Result dims: a's free dims, then b's. One `Dot` of
    `a` reshaped to (free, summed) and `b` to (summed, free)."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    a_sum, b_sum = summed_axes(a, b, axes)
    a_free = [d for d in range(a.ndim) if d not in a_sum]
    b_free = [d for d in range(b.ndim) if d not in b_sum]
    product = matrix_dot(as_matrix(a, a_free, a_sum), as_matrix(b, b_sum, b_free))
    return reshape(product, sizes_of(a, a_free) + sizes_of(b, b_free))


def as_matrix(x: Variable, rows: list[int], cols: list[int]) -> Variable:
    """`x` as a matrix whose rows run over the dims `rows` and columns over `cols` (a matrix
    already in that order, or its transpose, is used as it is)."""
    if x.ndim == 2 and len(rows) == len(cols) == 1:
        return x if rows == [0] else dimshuffle(x, (1, 0))
    return reshape(dimshuffle(x, rows + cols), (elements_over(x, rows), elements_over(x, cols)))
