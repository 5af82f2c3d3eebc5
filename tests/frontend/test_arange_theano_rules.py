"""`T.arange` follows Theano: an integer result is int64 whatever the arguments' integer dtype,
and float values are numpy's bit for bit (`start + k * ((start + step) - start)`)."""
from __future__ import annotations

import numpy as np

import irc
import irc.tensor as T


def test_integer_aranges_are_int64():
    i, j, k = T.iscalars("i", "j", "k")
    assert T.arange(i, j, k).dtype == "int64" and T.arange(T.bscalar()).dtype == "int64"
    assert T.arange(T.fscalar(), T.fscalar()).dtype == "float32"
    assert T.arange(i, dtype="int32").dtype == "int32"
    f = irc.function([], T.arange(np.int32(10), np.int32(2), np.int32(-2)))  # a constant count
    assert f().dtype == np.int64
    np.testing.assert_array_equal(f(), np.arange(10, 2, -2))


def test_float_values_are_numpys_exactly():
    for args in [(-5, 1.1, 1.2), (1.3, 2, -2.1), (0.1, 7.3, 0.7), (0.2, 5.3, 1)]:
        start, stop, step = (np.float64(a) for a in args)  # constants: the count is known, native code
        got = irc.function([], T.arange(start, stop, step))()
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, np.arange(*args, dtype="float64"))
