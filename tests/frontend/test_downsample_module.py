"""`irc.tensor.signal.downsample`, Theano 0.9's old pooling module that the Deep Learning
Tutorials' convolutional_mlp.py (2015-2016) imports: it warns on import as Theano 0.9 did,
its `max_pool_2d(input=, ds=, ignore_border=True)` is `pool_2d` (the tutorials' call gives
the same numbers as numpy's 2×2 max, and its gradient routes to each window's max), and
its op names are those of `pool`."""
from __future__ import annotations

import importlib
import sys
import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.tensor.signal import pool


def _import_downsample():
    sys.modules.pop("irc.tensor.signal.downsample", None)
    return importlib.import_module("irc.tensor.signal.downsample")


def test_importing_it_warns_that_it_moved_to_pool():
    with pytest.warns(UserWarning, match="moved to the irc.tensor.signal.pool module"):
        downsample = _import_downsample()
    assert downsample.max_pool_2d is pool.pool_2d
    assert downsample.DownsampleFactorMax is pool.Pool
    assert downsample.MaxPoolGrad is pool.MaxPoolGrad
    assert downsample.max_pool_2d_same_size is pool.max_pool_2d_same_size


def test_the_tutorials_call_is_a_2x2_max_with_its_gradient():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        downsample = _import_downsample()
    x = T.tensor4("x")
    with pytest.warns(DeprecationWarning, match="ds is deprecated, use ws"):
        pooled = downsample.max_pool_2d(input=x, ds=(2, 2), ignore_border=True)
    f = irc.function([x], [pooled, T.grad(pooled.sum(), x)])
    data = np.random.RandomState(0).rand(3, 2, 5, 7)  # odd sizes: the border is dropped
    out, grad = f(data)
    windows = data[:, :, :4, :6].reshape(3, 2, 2, 2, 3, 2)
    np.testing.assert_allclose(out, windows.max(axis=(3, 5)), rtol=1e-12)
    expected = np.zeros_like(data)
    for i in range(2):
        for j in range(3):
            block = data[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
            expected[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2] = block == block.max(axis=(2, 3), keepdims=True)
    np.testing.assert_array_equal(grad, expected)
