"""How a row-major product `C = alpha·A·B + beta·C` over strided views becomes a call of a
column-major BLAS gemm (cuBLAS), and that call's meaning spelled out in numpy — the stand-in
that checks, without a GPU, the very arguments the device gets.

A row-major m×n matrix C is, read column-major, Cᵀ (n×m) with the same leading dimension; so
the call computes Cᵀ = Bᵀ·Aᵀ: cuBLAS's first operand is B, its second A. A view whose columns
are contiguous is "row-major" (cuBLAS op N on its transpose), one whose rows are contiguous
is "column-major" (op T). A vector is a 1×k row (A) or a k×1 column (B, C). An axis of size 1
has no stride to speak of: the leading dimension is then the smallest cuBLAS accepts."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .host_plan import View

INT_MAX = 2**31 - 1  # cuBLAS's 32-bit sizes and leading dimensions


class BlasLayoutError(ValueError):
    """A view a BLAS call cannot read as it lies (no unit stride along either axis)."""


@dataclass(frozen=True)
class GemmArgs:
    """The column-major call: op(first) is M×K, op(second) K×N, C M×N with leading dims."""

    trans_first: bool
    trans_second: bool
    m: int
    n: int
    k: int
    first: View
    ld_first: int
    second: View
    ld_second: int
    c: View
    ldc: int


def _matrix(v: View, vector_as_row: bool) -> tuple[tuple[int, int], tuple[int, int]]:
    if len(v.shape) == 2:
        return (v.shape[0], v.shape[1]), (v.strides[0], v.strides[1])
    (n,), (s,) = v.shape, v.strides
    return ((1, n), (0, s)) if vector_as_row else ((n, 1), (s, 0))


def _layout(shape: tuple[int, int], strides: tuple[int, int], what: str) -> tuple[bool, int]:
    """(column-major?, leading dimension) of a matrix view; a clear error when neither fits."""
    (r, c), (s0, s1) = shape, strides
    if (c <= 1 or s1 == 1) and (r <= 1 or s0 >= max(1, c)):
        return False, s0 if r > 1 else max(1, c)
    if (r <= 1 or s0 == 1) and (c <= 1 or s1 >= max(1, r)):
        return True, s1 if c > 1 else max(1, r)
    raise BlasLayoutError(f"{what} ({r}×{c}, strides {s0}, {s1} elements) has no unit stride: "
                          f"a BLAS call cannot read it as it lies")


def gemm_args(a: View, b: View, c: View) -> GemmArgs:
    """The cuBLAS gemm arguments computing C = alpha·A·B + beta·C for these views."""
    (m, k), a_strides = _matrix(a, vector_as_row=True)
    (k2, n), b_strides = _matrix(b, vector_as_row=False)
    c_shape, c_strides = _matrix(c, vector_as_row=len(a.shape) == 1)
    if k != k2 or c_shape != (m, n):
        raise BlasLayoutError(f"gemm of {a.shape} by {b.shape} into {c.shape}: the sizes do not match")
    a_cols, lda = _layout((m, k), a_strides, "A")
    b_cols, ldb = _layout((k, n), b_strides, "B")
    c_cols, ldc = _layout(c_shape, c_strides, "C")
    if c_cols:
        raise BlasLayoutError(f"the result C ({m}×{n}, strides {c_strides}) must be row-major")
    if max(m, n, k, lda, ldb, ldc) > INT_MAX:
        raise BlasLayoutError(f"gemm of {m}×{k} by {k}×{n}: a size beyond cuBLAS's 32-bit range")
    return GemmArgs(b_cols, a_cols, n, m, k, b, ldb, a, lda, c, ldc)


def column_major_gemm(args: GemmArgs, alpha: float, beta: float, first: np.ndarray,
                      second: np.ndarray, c: np.ndarray, accumulate: np.dtype) -> None:
    """What cuBLAS does with `args`, on flat element arrays (each view's buffer from its
    offset): C[i + j·ldc] = alpha·Σ_p op(first)[i, p]·op(second)[p, j] + beta·C[i + j·ldc],
    in `accumulate` precision; C is not read when beta is 0."""
    def operand(flat: np.ndarray, trans: bool, rows: int, cols: int, ld: int) -> np.ndarray:
        # op(X)[i, p] is X[i + p·ld] (op N) or X[p + i·ld] (op T)
        steps = (ld, 1) if trans else (1, ld)
        return _strided(flat, (rows, cols), steps)

    m, n, k = args.m, args.n, args.k
    if m == 0 or n == 0:
        return
    x = operand(first, args.trans_first, m, k, args.ld_first).astype(accumulate)
    y = operand(second, args.trans_second, k, n, args.ld_second).astype(accumulate)
    out = _strided(c, (m, n), (1, args.ldc))
    product = alpha * (x @ y)
    if beta != 0.0:
        product = product + beta * out.astype(accumulate)
    out[...] = product.astype(c.dtype)


def _strided(flat: np.ndarray, shape: tuple[int, int], steps: tuple[int, int]) -> np.ndarray:
    """A view of `flat` (elements), refusing one that would reach past its end."""
    if shape[0] and shape[1] and (shape[0] - 1) * steps[0] + (shape[1] - 1) * steps[1] >= flat.size:
        raise BlasLayoutError(f"a {shape[0]}×{shape[1]} operand with steps {steps} reaches past its "
                              f"buffer of {flat.size} elements")
    return np.lib.stride_tricks.as_strided(flat, shape, [s * flat.itemsize for s in steps])
