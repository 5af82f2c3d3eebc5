"""`T.add`, `T.exp`, ... print as Theano's ops (`Elemwise{add,no_inplace}`), build the same
graphs as before, and pickle by reference."""
from __future__ import annotations

import pickle

import numpy as np

import irc
import irc.tensor as T


def test_elementwise_functions_print_as_theanos_ops():
    assert str(T.add) == "Elemwise{add,no_inplace}"
    assert str(T.true_div) == "Elemwise{true_div,no_inplace}"
    assert str(T.neq) == "Elemwise{neq,no_inplace}"
    assert repr(T.exp) == "Elemwise{exp,no_inplace}"
    assert T.exp.__doc__ and T.add.__name__ == "add"


def test_calling_one_builds_and_computes_as_numpy():
    x, y = T.dvectors("x", "y")
    f = irc.function([x, y], [T.add(x, y, 1.0), T.abs_(x), T.pow(x, 2)])
    a, b = np.array([-1.5, 2.0]), np.array([3.0, 4.0])
    s, m, p = f(a, b)
    np.testing.assert_allclose(s, a + b + 1.0, rtol=0, atol=0)
    np.testing.assert_allclose(m, np.abs(a), rtol=0, atol=0)
    np.testing.assert_allclose(p, a ** 2, rtol=1e-15, atol=0)


def test_they_pickle_by_reference():
    for fn in (T.add, T.abs_, T.sgn, T.neq, T.true_div, T.and_):
        assert pickle.loads(pickle.dumps(fn)) is fn
