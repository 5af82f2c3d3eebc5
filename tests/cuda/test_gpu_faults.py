"""Faults in a GPU training step: running out of device memory is a MemoryError naming the
function and the input shapes, the shared variables keep their last good values, and the next
call with a size that fits runs; a size mismatch is an error naming the op and the user's line
before anything runs."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.sandbox.cuda.basic_ops import gpu_from_host


def test_out_of_memory_keeps_the_shared_variables_and_recovers():
    w = irc.shared(np.arange(4, dtype="float32"), name="w")
    n = T.lscalar("n")
    big = T.alloc(np.float32(1), n, n) * w.sum()  # n² float32 on the device, returned there
    with irc.config.change_flags(device="cuda", assert_no_cpu_op="raise"):
        step = irc.function([n], gpu_from_host(big), updates={w: w * 2 + 1})
    np.testing.assert_array_equal(np.asarray(step(3)), np.full((3, 3), 6.0))
    np.testing.assert_array_equal(w.get_value(), np.arange(4) * 2 + 1)
    before = w.get_value()
    with pytest.raises(MemoryError, match="out of memory"):
        step(400_000)  # 640 GB
    np.testing.assert_array_equal(w.get_value(), before)
    np.testing.assert_array_equal(np.asarray(step(2)), np.full((2, 2), before.sum()))
    np.testing.assert_array_equal(w.get_value(), before * 2 + 1)


def test_mismatched_product_names_the_op_and_line():
    a, b = T.fmatrix("a"), T.fmatrix("b")
    with irc.config.change_flags(device="cuda", assert_no_cpu_op="raise"):
        f = irc.function([a, b], T.dot(a, b))
    with pytest.raises(ValueError, match=r"(?s)inner dimensions differ.*test_gpu_faults.py"):
        f(np.ones((3, 4), "float32"), np.ones((5, 2), "float32"))


def test_a_loop_too_big_for_the_device_fails_before_its_first_step():
    """A scan whose rows cannot all be held (1000 steps of 200000×128 float32: 102 GB) fails
    when the call is planned, before any step runs (every buffer of a call is taken before its
    first launch), so the update of W is not half done: W keeps its value, and a call that fits
    runs after."""
    W = irc.shared(np.full((1, 128), 0.01, "float32"), name="W")
    x = T.ftensor3("x")
    hs, _ = irc.scan(lambda xt, h: T.tanh(T.dot(xt, W) + h), sequences=x,
                     outputs_info=T.zeros((x.shape[1], 128), "float32"))
    with irc.config.change_flags(device="cuda", assert_no_cpu_op="raise"):
        step = irc.function([x], hs[-1].sum(), updates={W: W - 0.1 * T.grad(hs.sum(), W)})
    small = np.ones((5, 2, 1), "float32")
    step(small)
    before = W.get_value()
    with pytest.raises(MemoryError, match="out of memory"):
        step(np.ones((1000, 200_000, 1), "float32"))
    np.testing.assert_array_equal(W.get_value(), before)
    assert np.isfinite(step(small))
