"""`irc.printing.Print` (Theano's `theano.printing.Print`, debug_faq.txt's "How do I Print an
Intermediate Value"): identity in value, prints when the function computes it."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.printing import Print


def test_the_tutorials_example(capsys):
    x = T.dvector("x")
    x_printed = Print("this is a very important value")(x)
    f = irc.function([x], x * 5)
    f_with_print = irc.function([x], x_printed * 5)
    assert np.all(f([1, 2, 3]) == [5, 10, 15])
    assert capsys.readouterr().out == ""
    assert np.all(f_with_print([1, 2, 3]) == [5, 10, 15])
    assert capsys.readouterr().out == f"this is a very important value __str__ = {np.array([1.0, 2.0, 3.0])}\n"


def test_each_call_prints_and_callable_attributes_are_called(capsys):
    x = T.dmatrix("x")
    f = irc.function([x], Print("m", attrs=("shape", "sum"))(x).sum())
    assert f(np.ones((2, 3))) == 6.0
    f(np.ones((1, 4)))
    assert capsys.readouterr().out == "m shape = (2, 3)\nm sum = 6.0\nm shape = (1, 4)\nm sum = 4.0\n"


def test_global_fn_receives_the_op_and_the_value():
    seen = []
    x = T.dvector("x")
    f = irc.function([x], Print("tag", global_fn=lambda op, v: seen.append((op.message, v.copy())))(x) + 1)
    np.testing.assert_array_equal(f([1.0, 2.0]), [2.0, 3.0])
    assert seen[0][0] == "tag"
    np.testing.assert_array_equal(seen[0][1], [1.0, 2.0])


def test_output_of_print_does_not_alias_the_callers_array():
    x = T.dvector("x")
    f = irc.function([x], Print("quiet", global_fn=lambda op, v: None)(x))
    v = np.array([1.0, 2.0])
    out = f(v)
    out[0] = 99.0
    np.testing.assert_array_equal(v, [1.0, 2.0])


def test_gradient_passes_through(capsys):
    x = T.dvector("x")
    g = irc.function([x], T.grad(T.sum(Print("p")(x) ** 2), x))
    np.testing.assert_allclose(g([1.0, -3.0]), [2.0, -6.0], rtol=1e-12)


def test_equal_prints_are_one_op_and_attrs_must_be_a_sequence():
    assert Print("a") == Print("a") and Print("a") != Print("b")
    with pytest.raises(TypeError, match="attrs is a sequence"):
        Print("a", attrs="shape")


def test_theano_name():
    assert irc.printing.Print is Print
