"""Splats under device=cuda (`tensor_to_loop/splats.py`), run by the kernel emulator: the
gradient of a mean, `1/n` broadcast over a batch, reaches the kernels reading it as a number
(no kernel fills a buffer with it), and a splat the caller gets back is filled once. Numbers
against numpy (float32 rtol 1e-6: the same operations in the same order)."""
from __future__ import annotations

import numpy as np

import irc
import irc.tensor as T
from irc.runtime.host_plan import GemmCall
from test_cuda_path_emulated import cuda_emulated, rand  # noqa: F401  (the fixture)
from test_cuda_products_emulated import planned_launches


def test_the_gradient_of_a_mean_needs_no_kernel_of_its_own(cuda_emulated):
    x, y = T.fmatrix("x"), T.fmatrix("y")
    cost = (x * y).sum(axis=1).mean()
    with irc.config.change_flags(assert_no_cpu_op="raise"):
        f = irc.function([x, y], [cost, T.grad(cost, x)])
    xv, yv = rand(300, 7, seed=1), rand(300, 7, seed=2)
    got_cost, got_grad = f(xv, yv)
    np.testing.assert_allclose(got_cost, (xv.astype("float64") * yv).sum(axis=1).mean(), rtol=1e-5)
    np.testing.assert_allclose(got_grad, yv / np.float32(300), rtol=1e-6)
    kernels = [x for x in planned_launches(cuda_emulated[-1], [xv, yv]) if not isinstance(x, GemmCall)]
    # the row sums with the cost's mean (its division in the last pass), and y·(1/n): no fill
    fills = [k for k in kernels if k.work == 300]
    assert not fills, [k.kernel for k in kernels]


def test_a_splat_handed_back_is_filled(cuda_emulated):
    x = T.fmatrix("x")
    with irc.config.change_flags(assert_no_cpu_op="raise"):
        f = irc.function([x], T.grad(x.mean(), x))
    got = f(rand(31, 33, seed=3))
    assert got.shape == (31, 33)
    np.testing.assert_array_equal(got, np.full((31, 33), np.float32(1) / np.float32(31 * 33)))
