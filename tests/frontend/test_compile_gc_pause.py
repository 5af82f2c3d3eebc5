"""`irc.function` compiles with the cyclic garbage collector paused (irc/base/gc_pause.py): no
collection runs inside a compile, the caller's collector state comes back as it was, and the
compile's garbage is still collected afterwards."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import irc
import irc.tensor as T
from gc_watch import collections_inside
from irc.base.gc_pause import gc_paused


def _mlp_graph() -> tuple[list, object, list]:
    x, y = T.matrix("x"), T.ivector("y")
    w = irc.shared(np.full((5, 3), 0.1), name="w")
    p = T.nnet.softmax(T.tanh(T.dot(x, w)))
    cost = -T.mean(T.log(p)[T.arange(y.shape[0]), y])
    return [x, y], cost, [(w, w - 0.1 * T.grad(cost, w))]


def _mlp_step():
    inputs, cost, updates = _mlp_graph()
    return irc.function(inputs, cost, updates=updates)


def test_no_collection_runs_inside_a_compile():
    inputs, cost, updates = _mlp_graph()
    with collections_inside(irc.function.__wrapped__.__code__) as seen:
        f = irc.function(inputs, cost, updates=updates)
    assert seen == []
    assert gc.isenabled()
    x = np.linspace(-1, 1, 10).reshape(2, 5)
    w = np.full((5, 3), 0.1)
    h = np.tanh(x @ w)
    p = np.exp(h) / np.exp(h).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(f(x, np.array([0, 2], "int32")), -np.mean(np.log(p[[0, 1], [0, 2]])),
                               rtol=1e-12)


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    try:
        _mlp_step()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_state_comes_back_after_an_error_and_when_nested():
    with pytest.raises(ValueError):
        with gc_paused():
            with gc_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()  # the outer pause still holds
            raise ValueError("inside")
    assert gc.isenabled()


def test_the_compiles_garbage_is_collected_afterwards():
    gc.collect()
    _mlp_step()
    assert gc.collect() > 0  # cycles the compile left, found once the collector runs again
