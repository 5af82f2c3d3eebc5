"""`irc.clone` (Theano's `theano.clone`): a replacement that reads the variable it replaces
(substituted once, Theano's meaning: the Nesterov-momentum idiom), chains, cycles, the
signature (`strict`, `share_inputs`, the deprecated `copy_inputs`), and givens on an input."""
import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.frontend.graph import GraphCycleError, graph_inputs


def test_a_gradient_evaluated_at_a_look_ahead_point():
    w, v = T.dvectors("w", "v")
    g = T.grad(T.sum(w ** 3), w)
    ahead = irc.clone(g, replace={w: w + 0.5 * v})   # g(w + v/2): the original w inside
    f = irc.function([w, v], ahead)
    wv, vv = np.array([1.0, -2.0]), np.array([2.0, 4.0])
    np.testing.assert_allclose(f(wv, vv), 3 * (wv + 0.5 * vv) ** 2, rtol=1e-12)
    assert set(graph_inputs(ahead)) >= {w, v}


def test_self_replacement_in_a_list_and_a_tuple_of_outputs():
    x = T.dscalar("x")
    outs = irc.clone((x * 2, x + 10), replace=[(x, x * x)])
    assert isinstance(outs, list)
    assert irc.function([x], outs)(3.0) == [18.0, 19.0]


def test_numbers_as_replacements_and_chains():
    x, y, z = T.dscalars("x", "y", "z")
    assert irc.function([], irc.clone(x * 2, replace={x: 4.0}))() == 8.0
    assert irc.function([z], irc.clone(x + y, replace={x: y, y: z}))(5.0) == 10.0


def test_a_cycle_through_two_replacements_names_it():
    a, b = T.dscalars("a", "b")
    with pytest.raises(GraphCycleError, match="a -> b -> a"):
        irc.clone(a + b, replace={a: b, b: a + 1})


def test_strict_and_share_inputs():
    x = T.dvector("x")
    with pytest.raises(TypeError, match="dtype and number of dimensions"):
        irc.clone(x * 2, replace={x: T.fvector()})
    fresh = irc.clone(x * 2, share_inputs=False)
    assert x not in graph_inputs(fresh)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        copied = irc.clone(x * 2, copy_inputs=False)
    assert x not in graph_inputs(copied) and caught[0].category is DeprecationWarning


def test_givens_may_not_replace_an_input():
    x = T.dscalar("x")
    with pytest.raises(RuntimeError, match="input of this function"):
        irc.function([x], x * 2, givens={x: x + 1})
    f = irc.function([x], irc.clone(x * 2, replace={x: x + 1}))   # what Theano suggests instead
    assert f(1.0) == 4.0


def test_an_input_given_twice_is_an_unused_input_error():
    x = T.dscalar("x")
    with pytest.raises(irc.compile.UnusedInputError, match="given twice"):
        irc.function([x, x], x)
