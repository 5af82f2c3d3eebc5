"""Errors a user can act on: dtype, rank, shapes at run time, missing/unused inputs, updates."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.frontend.function import UnusedInputError
from irc.frontend.lowering import MissingInputError
from irc.runtime.errors import ExecutionError


def test_wrong_dtype_mentions_allow_input_downcast():
    x = T.fvector("x")
    f = irc.function([x], x * 2)
    with pytest.raises(TypeError, match="allow_input_downcast"):
        f(np.ones(3))  # float64 into float32
    g = irc.function([x], x * 2, allow_input_downcast=True)
    assert g(np.ones(3)).dtype == np.float32


def test_wrong_rank():
    x = T.dmatrix("x")
    f = irc.function([x], x + 1)
    with pytest.raises(TypeError, match="'x'.*dimensions"):
        f(np.ones(3))


def test_shape_mismatch_names_op_line_and_shapes():
    x = T.dvector("x")
    y = T.dvector("y")
    z = x + y  # LINE-MARK
    f = irc.function([x, y], z)
    with pytest.raises(ExecutionError) as info:
        f(np.ones(3), np.ones(4))
    msg = str(info.value)
    assert "tensor.add" in msg and "(3,)" in msg and "(4,)" in msg
    assert "test_errors.py" in msg and "LINE-MARK" in msg


def test_missing_input():
    x = T.dvector("x")
    y = T.dvector("y")
    with pytest.raises(MissingInputError, match="'y'"):
        irc.function([x], x + y)
    f = irc.function([x, y], x + y)
    with pytest.raises(TypeError, match="missing required input 'y'"):
        f(np.ones(2))
    with pytest.raises(TypeError, match="no input named 'z'"):
        f(np.ones(2), z=np.ones(2))
    with pytest.raises(TypeError, match="takes 2 input"):
        f(np.ones(2), np.ones(2), np.ones(2))


def test_unused_input():
    x = T.dvector("x")
    y = T.dvector("y")
    with pytest.raises(UnusedInputError, match="index 1 is not part of the computational graph"):
        irc.function([x, y], x * 2)
    with pytest.warns(UserWarning, match="on_unused_input='warn'"):
        irc.function([x, y], x * 2, on_unused_input="warn")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = irc.function([x, y], x * 2, on_unused_input="ignore")
    np.testing.assert_allclose(f(np.ones(2), np.ones(5)), 2.0)


def test_update_type_mismatch():
    w = irc.shared(np.zeros(3, dtype="float32"), name="w")
    with pytest.raises(TypeError, match="same type as the shared variable.*float64"):
        irc.function([], [], updates={w: w * np.float64(2.0) + T.constant(np.zeros(3))})
    with pytest.raises(TypeError, match="not a shared variable"):
        irc.function([], [], updates={T.fvector(): w})


def test_shared_as_input_and_bad_mode():
    w = irc.shared(np.zeros(3), name="w")
    with pytest.raises(TypeError, match="shared variable"):
        irc.function([w], w * 2)
    x = T.dvector()
    with pytest.raises(ValueError, match="FAST_RUN"):
        irc.function([x], x, mode="FASTEST")


def test_non_scalar_cost_to_grad():
    x = T.dvector("x")
    with pytest.raises(TypeError, match="scalar"):
        T.grad(x * 2, x)
