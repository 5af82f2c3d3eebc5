"""A shared variable's default update sees the function's `givens` too (Theano's
rebuild_collect_shared; its test_pfunc.test_givens_replaces_shared_variable2): with
a.default_update = a + 3 and givens {a: a + 10}, the update is (a + 10) + 3."""
from __future__ import annotations

import irc
from irc.compile.pfunc import pfunc


def test_default_update_is_rebuilt_with_the_givens():
    a = irc.shared(1.0, "a")
    a.default_update = a + 3
    f = pfunc([], a + 10, givens={a: a + 10})
    assert f() == 21 and f() == 34
    assert a.get_value() == 27   # 1 -> 14 -> 27


def test_without_givens_the_default_update_is_as_written():
    a = irc.shared(1.0, "a")
    a.default_update = a + 3
    f = irc.function([], a + 10)
    assert f() == 11 and f() == 14
