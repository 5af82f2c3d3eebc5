"""A shared variable's `container.storage` is Theano's one-element list: `storage[0]` is the
value itself (not a copy), and `container.value` reads and writes the same cell."""
from __future__ import annotations

import numpy as np

import irc


def test_storage_holds_the_value_and_value_writes_through():
    a = np.arange(3.0)
    s = irc.shared(a, borrow=True)
    assert s.container.storage[0] is s.get_value(borrow=True)
    s.container.value = np.ones(3)
    np.testing.assert_array_equal(s.container.storage[0], np.ones(3))
    np.testing.assert_array_equal(s.get_value(), np.ones(3))


def test_an_update_lands_in_storage():
    s = irc.shared(np.zeros(2))
    f = irc.function([], [], updates=[(s, s + 1)])
    f()
    np.testing.assert_array_equal(s.container.storage[0], np.ones(2))
