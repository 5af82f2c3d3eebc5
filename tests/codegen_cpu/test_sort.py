"""`T.sort` / `T.argsort` on the host (`tensor_to_loop/order.py`, a bottom-up merge sort):
numpy's stable order for every run length (sizes around powers of two, a million values),
ties, NaNs last, integers, both axes of a strided matrix."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

_compiled: dict = {}


def _sorts(rank: int, dtype: str, axis: int):
    key = (rank, dtype, axis)
    if key not in _compiled:
        x = T.TensorType(dtype, (False,) * rank)("x")
        _compiled[key] = irc.function([x], [T.sort(x, axis=axis), T.argsort(x, axis=axis)])
    return _compiled[key]


def _check(a: np.ndarray, axis: int) -> None:
    values, order = _sorts(a.ndim, a.dtype.name, axis)(a)
    np.testing.assert_array_equal(values, np.sort(a, axis=axis, kind="stable"))
    np.testing.assert_array_equal(order, np.argsort(a, axis=axis, kind="stable"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
def test_vectors_of_every_run_length(dtype):
    rng = np.random.RandomState(0)
    for n in (0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 1000, 1025, 1000003):
        a = (rng.rand(n) * 20).astype(dtype)  # few distinct values: ties keep their order
        if a.dtype.kind == "f" and n > 3:
            a[rng.randint(0, n, max(1, n // 9))] = np.nan
        _check(a, 0)


@pytest.mark.parametrize("axis", [0, 1])
def test_both_axes_of_a_strided_matrix(axis):
    a = np.round(np.random.RandomState(1).randn(70, 91) * 4)[::2, 1::3]
    _check(a, axis)
