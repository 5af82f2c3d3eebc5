"""`irc.compile.pfunc.pfunc` compiles as `irc.function` does, and `rebuild_strict` decides whether
a `givens` replacement of another type is refused (Theano's default) or rebuilds the graph."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.compile.pfunc import pfunc


def test_pfunc_compiles_with_updates_and_givens():
    x, y = T.dvector("x"), T.dvector("y")
    acc = irc.shared(np.zeros(3), name="acc")
    f = pfunc([y], x * 2, updates=[(acc, acc + y)], givens=[(x, y + 1)])
    np.testing.assert_allclose(f(np.arange(3.0)), (np.arange(3.0) + 1) * 2, rtol=0, atol=0)
    np.testing.assert_allclose(acc.get_value(), np.arange(3.0), rtol=0, atol=0)


def test_a_replacement_of_another_rank_needs_rebuild_strict_false():
    w = T.imatrix("w")
    x, y = T.ivector("x"), T.ivector("y")
    with pytest.raises(TypeError, match="dtype and number of dimensions must match"):
        irc.function([w, y], x * y, givens=[(x, w)])
    f = irc.function([w], T.exp(x), givens=[(x, w)], rebuild_strict=False)
    out = f(np.ones((3, 5), dtype="int32"))
    assert out.shape == (3, 5)
    np.testing.assert_allclose(out, np.full((3, 5), np.e), rtol=1e-15, atol=0)


def test_a_replacement_of_another_dtype_is_refused_and_a_more_broadcastable_one_accepted():
    x = T.dvector("x")
    with pytest.raises(TypeError, match="float32"):
        irc.function([], x * 2, givens=[(x, T.constant(np.ones(3, dtype="float32")))])
    row = T.drow("row")
    m = T.dmatrix("m")
    f = irc.function([row], m + 1, givens=[(m, row)])
    np.testing.assert_allclose(f(np.ones((1, 4))), np.full((1, 4), 2.0), rtol=0, atol=0)



def test_irc_compile_pfunc_is_the_function_as_in_theano():
    import irc.compile
    assert irc.compile.pfunc is pfunc and callable(irc.compile.pfunc)
