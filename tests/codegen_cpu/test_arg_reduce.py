"""argmax/argmin on the host (`tensor_to_loop/arg_reduce.py`): each variant — two vectorized
passes along the innermost axis, rows walked in memory order for axis 0 of a matrix, the
carried loop otherwise — gives numpy's index: the first extremum, the first NaN winning,
for floats, signed and unsigned integers, strided views and odd sizes."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

_compiled: dict = {}


def _functions(rank: int, dtype: str, axis: int | None):
    key = (rank, dtype, axis)
    if key not in _compiled:
        x = T.TensorType(dtype, (False,) * rank)("x")
        _compiled[key] = irc.function([x], [T.argmax(x, axis=axis), T.argmin(x, axis=axis)])
    return _compiled[key]


def _data(shape, dtype, seed, nans=False):
    rng = np.random.RandomState(seed)
    if np.dtype(dtype).kind == "f":
        a = np.round(rng.randn(*shape) * 3)  # rounded: ties, ±0
        if nans and a.size:
            a.flat[rng.randint(0, a.size, max(1, a.size // 7))] = np.nan
    else:  # few distinct values: ties
        a = rng.randint(0 if np.dtype(dtype).kind == "u" else -3, 4, size=shape)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype, nans", [("float32", False), ("float32", True), ("float64", True),
                                         ("int32", False), ("uint8", False)])
def test_every_variant_matches_numpy(dtype, nans):
    cases = [((1,), None), ((33,), None), ((1000003,), None), ((31, 1), 1), ((7, 1000), 1), ((1000, 7), 0),
             ((1, 5), 0), ((33, 300), 0), ((3, 4, 5), 1), ((3, 4, 5), 0), ((3, 4, 5), 2)]
    for seed, (shape, axis) in enumerate(cases):
        a = _data(shape, dtype, seed, nans)
        got = _functions(len(shape), dtype, axis)(a)
        np.testing.assert_array_equal(got[0], np.argmax(a, axis=axis), err_msg=f"argmax {shape} axis {axis}")
        np.testing.assert_array_equal(got[1], np.argmin(a, axis=axis), err_msg=f"argmin {shape} axis {axis}")


def test_strided_views_and_signed_zeros():
    a = _data((40, 90), "float64", 5, nans=True)
    view = a[::3, 1::2]
    for axis in (0, 1):
        got = _functions(2, "float64", axis)(view)
        np.testing.assert_array_equal(got[0], np.argmax(view, axis=axis))
        np.testing.assert_array_equal(got[1], np.argmin(view, axis=axis))
    z = np.array([-0.0, 0.0, 0.0, -0.0])
    got = _functions(1, "float64", None)(z)
    assert (int(got[0]), int(got[1])) == (np.argmax(z), np.argmin(z))


def test_an_empty_axis_is_refused():
    with pytest.raises(ValueError, match="argmax over an empty axis"):
        _functions(1, "float64", None)(np.zeros(0))
