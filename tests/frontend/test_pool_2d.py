"""`pool_2d` (irc.tensor.signal.pool) against a plain-loop numpy reference of Theano's
Pool.perform (tests/frontend/conv_references.py): every mode (max, sum, average_inc_pad,
average_exc_pad), windows that overlap, strides larger than the window, padding, partial
windows kept (ignore_border=False), odd sizes, leading axes of any number, float32 (1e-6
relative) and float64 (1e-12), compiled natively; gradients against finite differences; the
errors Theano raises, at the user's line."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.tensor.signal import pool

from conv_references import pool_loops

MODES = ("max", "sum", "average_inc_pad", "average_exc_pad")
TOLERANCE = {"float32": dict(rtol=1e-6, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-12)}
# (ws, stride, pad, ignore_border, shape)
GEOMETRIES = [
    ((2, 2), None, (0, 0), True, (3, 2, 7, 9)),      # the DLT's: unrolled windows inside the image
    ((3, 2), (1, 2), (0, 0), False, (2, 5, 6)),      # overlapping rows, a partial last window
    ((3, 3), (2, 1), (1, 2), True, (2, 1, 7, 8)),    # padding
    ((2, 3), (3, 4), (0, 0), False, (4, 9, 10)),     # strides past the window
    ((1, 2), (1, 1), (0, 1), True, (2, 2, 1, 3, 5)),  # five axes
]


@pytest.fixture(autouse=True)
def _native_only():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=[str(g[:4]) for g in GEOMETRIES])
def test_every_mode_matches_numpy_in_both_float_types(geometry):
    ws, stride, pad, ignore_border, shape = geometry
    rng = np.random.RandomState(5)
    for dtype in ("float64", "float32"):
        x = T.TensorType(dtype, (False,) * len(shape))("x")
        outs = [pool.pool_2d(x, ws, ignore_border=ignore_border, stride=stride, pad=pad, mode=m) for m in MODES]
        xv = rng.randn(*shape).astype(dtype)
        got = irc.function([x], outs)(xv)
        for mode, y in zip(MODES, got):
            want = pool_loops(xv, ws, stride or ws, pad, ignore_border, mode)
            assert y.dtype == dtype and y.shape == want.shape, (mode, y.shape, want.shape)
            np.testing.assert_allclose(y, want, err_msg=mode, **TOLERANCE[dtype])


@pytest.mark.parametrize("mode", MODES)
def test_gradients_match_finite_differences(mode):
    rng = np.random.RandomState(6)
    point = rng.randn(2, 2, 7, 6)  # distinct values: max has one winner per window

    def pools(x):
        return [pool.pool_2d(x, g[0], ignore_border=g[3], stride=g[1], pad=g[2], mode=mode).sum() * (k + 1)
                for k, g in enumerate(GEOMETRIES[:4])]
    T.verify_grad(lambda x: sum(pools(x)), [point], rng=rng)


def test_max_gradient_goes_to_every_tie_as_theano():
    x = T.matrix("x")
    g = T.grad(pool.pool_2d(x, (2, 2), ignore_border=True).sum(), x)
    got = irc.function([x], g)(np.array([[1.0, 1.0], [0.0, 1.0]]))
    np.testing.assert_array_equal(got, [[1.0, 1.0], [0.0, 1.0]])


def test_max_pool_same_size_and_theano_old_names():
    x = T.tensor4("x")
    xv = np.arange(16.0).reshape(1, 1, 4, 4)
    same = irc.function([x], pool.max_pool_2d_same_size(x, (2, 2)))(xv)
    np.testing.assert_array_equal(same, np.where(np.isin(xv, [5, 7, 13, 15]), xv, 0))
    with pytest.warns(DeprecationWarning, match="ds is deprecated"):
        old = pool.pool_2d(x, ds=(2, 2), ignore_border=True, mode="sum")
    np.testing.assert_allclose(irc.function([x], old)(xv), pool_loops(xv, (2, 2), (2, 2), (0, 0), True, "sum"))


def test_ignore_border_left_out_warns_and_means_false():
    x = T.matrix("x")
    with pytest.warns(UserWarning, match="ignore_border is not given"):
        y = pool.pool_2d(x, (2, 2))
    assert irc.function([x], y)(np.ones((3, 3))).shape == (2, 2)


def test_bad_arguments_are_reported_at_the_users_line():
    x = T.tensor4("x")
    with pytest.raises(ValueError) as e:
        pool.pool_2d(T.vector("v"), (2, 2), ignore_border=True)
    assert "pool_2d: needs a tensor of rank >= 2" in str(e.value) and "test_pool_2d.py" in str(e.value)
    with pytest.raises(ValueError, match="padding works only with ignore_border=True"):
        pool.pool_2d(x, (2, 2), ignore_border=False, pad=(1, 1))
    with pytest.raises(ValueError, match="must be smaller than the window"):
        pool.pool_2d(x, (2, 2), ignore_border=True, pad=(2, 0))
    with pytest.raises(ValueError, match="mode must be one of"):
        pool.pool_2d(x, (2, 2), ignore_border=True, mode="min")
    with pytest.raises(TypeError, match="averages need a float tensor") as e:
        pool.pool_2d(T.imatrix("i"), (2, 2), ignore_border=True, mode="average_exc_pad")
    assert "test_pool_2d.py" in str(e.value)
