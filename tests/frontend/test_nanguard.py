"""`NanGuardMode` (Theano's): a NaN, an infinity or a huge value made by any op — inside a scan's
step too — fails the call with an AssertionError naming the op and the user's line; the shared
variables keep their last good values. Theano's own test (test_nanguardmode.py) is the model."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.compile.nanguardmode import NanGuardMode


def loop_program():
    """h_t = log(h + x_t) over 1000 steps, with a training-style update of a shared counter."""
    x = T.dvector("x")
    count = irc.shared(np.float64(0.0), name="count")
    hs, _ = irc.scan(lambda v, h: T.log(h + v), sequences=x, outputs_info=T.constant(np.float64(2.0)))
    return x, count, hs


def test_a_nan_in_step_700_of_1000_names_the_op_and_the_line():
    x, count, hs = loop_program()
    f = irc.function([x], hs.sum(), updates=[(count, count + 1)], mode=NanGuardMode())
    xv = np.ones(1000)
    assert np.isfinite(f(xv)) and count.get_value() == 1
    xv[700] = -50.0  # log of a negative number in step 700
    with pytest.raises(AssertionError, match=r"NaN detected.*'tensor\.\w+' built at loc\(\".*test_nanguard.py\":\d+"):
        f(xv)
    assert count.get_value() == 1  # the failed call wrote no update
    plain = irc.function([x], hs.sum())  # without the mode: NaN propagates, as in Theano
    assert np.isnan(plain(xv))


def test_infinities_big_values_inputs_and_switches():
    x = T.dvector("x")
    with pytest.raises(AssertionError, match="Inf detected"):
        irc.function([x], T.exp(x) * 2, mode=NanGuardMode())(np.array([1.0, 800.0]))
    with pytest.raises(AssertionError, match="Big value detected"):
        irc.function([x], x * 1e12, mode=NanGuardMode())(np.array([1.0, 2.0]))
    with pytest.raises(AssertionError, match=r"input #0 \('x'\)"):
        irc.function([x], x + 1, mode=NanGuardMode())(np.array([np.nan]))
    relaxed = irc.function([x], x * 1e12, mode=NanGuardMode(big_is_error=False))
    np.testing.assert_array_equal(relaxed(np.array([1.0])), [1e12])
    n = T.lvector("n")  # integers are not checked (Theano checks floats only)
    np.testing.assert_array_equal(irc.function([n], n * 10 ** 11, mode=NanGuardMode())(np.array([3])), [3 * 10 ** 11])
