"""Elementwise nests and fused reductions merge adjacent axes that every operand reads alike
(`conversion/tensor_to_loop/collapse_axes.py`): a convolution layer's tanh(z + b) with b
broadcast over the pixels, the bias gradient summed over images and pixels, reductions over
trailing or leading runs of axes. Each checked against numpy (float64: rtol 1e-12)."""
from __future__ import annotations

import numpy as np

import irc
import irc.tensor as T

TOL = dict(rtol=1e-12, atol=1e-12)


def _inputs(shape=(5, 3, 4, 6)):
    rng = np.random.RandomState(3)
    m1, m2 = rng.rand(shape[0] * shape[1], 7), rng.rand(7, shape[2] * shape[3])
    return m1, m2, rng.rand(shape[1]), rng.rand(*shape)


def test_bias_activation_and_its_gradient_over_merged_pixels():
    a, c, b, g = T.matrix("a"), T.matrix("c"), T.vector("b"), T.tensor4("g")
    z = T.dot(a, c).reshape((5, 3, 4, 6))  # a contiguous buffer, not an input view
    bias = b.dimshuffle("x", 0, "x", "x")
    act = T.tanh(z + bias)
    delta = g * (1 - act ** 2)
    f = irc.function([a, c, b, g], [act, delta, delta.sum(axis=(0, 2, 3)), z.sum(axis=(2, 3)),
                                    (z * z).sum(axis=(0, 1)), z.max(axis=(1, 2, 3))])
    m1, m2, bv, gv = _inputs()
    zv = (m1 @ m2).reshape(5, 3, 4, 6)
    av = np.tanh(zv + bv[None, :, None, None])
    dv = gv * (1 - av ** 2)
    want = [av, dv, dv.sum(axis=(0, 2, 3)), zv.sum(axis=(2, 3)), (zv * zv).sum(axis=(0, 1)), zv.max(axis=(1, 2, 3))]
    for got, w in zip(f(m1, m2, bv, gv), want):
        np.testing.assert_allclose(got, w, **TOL)


def test_a_leading_run_summed_to_rows_and_views_that_do_not_merge():
    a, c, x = T.matrix("a"), T.matrix("c"), T.tensor3("x")
    z = T.dot(a, c).reshape((3, 5, 8))
    f = irc.function([a, c, x], [(z * 2).sum(axis=(0, 1)),   # merged to one reduced axis: column sums
                                 T.exp(z) + x,               # x an input view: nothing merges
                                 T.exp(z.dimshuffle(0, 2, 1)) * 3,  # a transposed view
                                 (z[:, 1:, :] + 1).sum(axis=(1, 2))])  # a strided slice
    rng = np.random.RandomState(5)
    m1, m2, xv = rng.rand(15, 4), rng.rand(4, 8), rng.rand(3, 5, 8)
    zv = (m1 @ m2).reshape(3, 5, 8)
    want = [(zv * 2).sum(axis=(0, 1)), np.exp(zv) + xv, np.exp(zv.transpose(0, 2, 1)) * 3,
            (zv[:, 1:, :] + 1).sum(axis=(1, 2))]
    for got, w in zip(f(m1, m2, xv), want):
        np.testing.assert_allclose(got, w, **TOL)
