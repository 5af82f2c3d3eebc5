"""`T.ptp` (max - min along an axis) is numpy's `ptp`, exactly."""
from __future__ import annotations

import numpy as np

import irc
import irc.tensor as T


def test_ptp_is_numpys_range():
    x, s = T.dmatrix("x"), T.dscalar("s")
    xv = np.random.RandomState(2).uniform(-1000, 1000, (4, 5))
    got = irc.function([x, s], [T.ptp(x), T.ptp(x, 0), T.ptp(x, 1), T.ptp(s)])(xv, 3.5)
    for g, want in zip(got, [np.ptp(xv), np.ptp(xv, 0), np.ptp(xv, 1), 0.0]):
        np.testing.assert_array_equal(g, want)
