"""Theano's `default_update` rules: chained default updates apply together, deleting one
restores "no default update", and `no_default_updates` is True, False or a list."""
from __future__ import annotations

import pytest

import irc
import irc.tensor as T


def test_default_updates_chain_through_the_updates_they_read():
    x, y, z = irc.shared(2), irc.shared(1), irc.shared(-1)
    x.default_update = x - y
    y.default_update = z
    z.default_update = z - 1
    irc.function([], [x])()
    assert (x.get_value(), y.get_value(), z.get_value()) == (1, -1, -2)
    irc.function([], [y])()
    assert (x.get_value(), y.get_value(), z.get_value()) == (1, -2, -3)


def test_deleting_a_default_update_leaves_none():
    x = irc.shared(0)
    x.default_update = x + 1
    f = irc.function([], [x])
    f()
    del x.default_update
    assert x.default_update is None
    f()  # compiled with the update
    irc.function([], [x])()
    assert x.get_value() == 2


def test_no_default_updates_must_be_a_bool_or_a_list():
    x = irc.shared(0)
    x.default_update = x + 2
    for bad in (x, "canard", (x,)):
        with pytest.raises(TypeError, match="no_default_updates must be True, False or a list"):
            irc.function([], [x], no_default_updates=bad)
    irc.function([], [x], no_default_updates=[x])()
    assert x.get_value() == 0
    irc.function([], [x], no_default_updates=[])()
    assert x.get_value() == 2


def test_a_python_float_rounds_only_to_floatx_and_only_without_allow_downcast_false():
    a, b, c = T.fscalars("a", "b", "c")
    f = irc.function([irc.In(a, allow_downcast=True), irc.In(b, allow_downcast=False),
                      irc.In(c, allow_downcast=None)], a + b + c)
    assert f(0.1, 0, 0) == pytest.approx(0.1)
    with pytest.raises(TypeError, match="without losing precision"):
        f(0, 0.1, 0)
    with irc.change_flags(floatX="float64"):
        with pytest.raises(TypeError, match="without losing precision"):
            f(0, 0, 0.1)
    with irc.change_flags(floatX="float32"):
        assert f(0, 0, 0.1) == pytest.approx(0.1)
    v = T.fvector("v")
    g = irc.function([irc.In(v, allow_downcast=None)], v * 2)
    with pytest.raises(TypeError, match="without losing precision"):
        g([0.1])
    assert list(g([0.5])) == [1.0]
