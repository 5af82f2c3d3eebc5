"""max/min/argmax/argmin over no element raise (numpy does; -inf would be a silent wrong
number), naming the op and the user's line; and clear errors for misused API calls."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime.errors import ExecutionError

REDUCTIONS = {"max": T.max, "min": T.min, "argmax": T.argmax, "argmin": T.argmin}


@pytest.mark.parametrize("kind", sorted(REDUCTIONS))
def test_reduction_without_identity_over_an_empty_vector_raises(kind):
    x = T.dvector()
    f = irc.function([x], REDUCTIONS[kind](x))
    assert type(f.executor).__name__ == "NativeExecutor"
    with pytest.raises(ExecutionError) as info:
        f(np.zeros(0))
    message = str(info.value)
    assert f"{kind} over an empty axis" in message and "'tensor.reduce'" in message
    assert "test_empty_reductions_and_api_errors.py" in message and "REDUCTIONS[kind](x)" in message
    assert f(np.array([3.0, -1.0])) == getattr(np, kind)([3.0, -1.0])


@pytest.mark.parametrize("shape, axis, fails", [((0, 3), 0, True), ((0, 3), 1, False), ((3, 0), 0, False),
                                                ((3, 0), 1, True), ((0, 0), 0, True), ((0, 3), None, True)])
def test_axis_reductions_follow_numpy(shape, axis, fails):
    """numpy raises when a reduced axis is empty, even for an empty result; not otherwise."""
    m = T.fmatrix()
    f = irc.function([m], [T.max(m, axis=axis), T.min(m * 2, axis=axis)])  # the second one fused
    arg = np.zeros(shape, np.float32)
    if fails:
        with pytest.raises(ExecutionError, match=r"(max|min) over an empty axis"):
            f(arg)
        with pytest.raises(ValueError):
            np.max(arg, axis=axis)
    else:
        mx, mn = f(arg)
        assert mx.shape == np.max(arg, axis=axis).shape and mn.shape == mx.shape


def test_empty_sum_and_prod_keep_their_identity():
    x = T.dvector()
    s, p = irc.function([x], [T.sum(x), T.prod(x)])(np.zeros(0))
    assert s == 0.0 and p == 1.0


def test_grad_with_respect_to_a_number_is_a_clear_type_error():
    x = T.dvector()
    with pytest.raises(TypeError, match=r"wrt must be a symbolic variable or a list of them.*float 3.0"):
        T.grad(T.sum(x), 3.0)
    with pytest.raises(TypeError, match=r"wrt\[1\] must be a symbolic variable, got int 2"):
        T.grad(T.sum(x), [x, 2])


def test_stack_of_nothing_is_a_clear_error():
    with pytest.raises(ValueError, match="stack needs at least one tensor"):
        T.stack([])
