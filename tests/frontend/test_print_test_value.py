"""`config.print_test_value` (Theano's flag, debug_faq.txt "printtestvalue"): repr() of a
variable shows its test value on a second line; off by default."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T


@pytest.fixture
def printing_test_values():
    irc.config.print_test_value = True
    yield
    irc.config.print_test_value = False


def test_off_by_default_repr_is_the_name():
    x = T.dscalar("x")
    x.tag.test_value = 42
    assert irc.config.print_test_value is False
    assert repr(x) == "x"


def test_the_tutorials_example(printing_test_values):
    x = T.dscalar("x")
    x.tag.test_value = 42
    first, second = repr(x).split("\n")
    assert first == "x"
    assert eval(second, {"array": np.array}) == 42.0
    assert second.startswith("array(42")   # converted to the variable's type: a 0-d float64 array


def test_shared_and_constant_values_are_their_test_values(printing_test_values):
    s = irc.shared(np.arange(3.0), name="s")
    assert repr(s).split("\n") == ["s", repr(np.arange(3.0))]
    c = T.constant(np.float64(2.5))
    assert repr(c).split("\n")[1] == repr(np.asarray(2.5))


def test_a_variable_without_test_value_prints_as_before(printing_test_values):
    x = T.dvector("x")
    assert repr(x) == "x"
    assert "\n" not in repr(x * 2)


def test_the_flag_reads_from_config_strings():
    irc.config.print_test_value = "True"
    try:
        assert irc.config.print_test_value is True
    finally:
        irc.config.print_test_value = False
