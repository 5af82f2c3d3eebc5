"""Truth values of symbolic variables, as Theano's `_is_nonzero` (theano/tensor/var.py): every
variable is truthy (so `if not W:` tests that an argument was given), and only the result of a
comparison operator (`<`, `<=`, `>`, `>=`) raises, so that `a < b < c` fails loudly."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T


def test_inputs_constants_results_and_shared_variables_are_truthy():
    x = T.dmatrix("x")
    W = irc.shared(np.zeros((2, 2)), name="W")
    for var in (x, W, T.constant(0.0), T.constant(np.zeros(3)), x + 1, T.exp(x), x.shape, W.T):
        assert bool(var) is True
        assert not (not var)


def test_the_dlt_idiom_if_not_argument():
    """rbm.py (`if not input:`) and dA.py (`if not W:`): a given variable is kept."""
    def build(input=None, W=None):
        if not input:
            input = T.dmatrix("input")
        if not W:
            W = irc.shared(np.eye(2), name="W")
        return input, W

    given = T.dmatrix("given")
    shared_w = irc.shared(np.ones((2, 2)), name="W_given")
    inp, W = build(given, shared_w)
    assert inp is given and W is shared_w
    inp, W = build()
    assert inp is not given and W is not shared_w


@pytest.mark.parametrize("compare", [lambda a, b: a < b, lambda a, b: a <= b,
                                     lambda a, b: a > b, lambda a, b: a >= b],
                         ids=["lt", "le", "gt", "ge"])
def test_comparison_operators_have_no_truth_value(compare):
    a, b = T.dscalars("a", "b")
    with pytest.raises(TypeError, match="has no truth value") as info:
        bool(compare(a, b))
    assert __file__ in str(info.value)  # the user's line that built the comparison


def test_chained_comparison_fails_loudly_at_the_users_line():
    a, b, c = T.dvectors("a", "b", "c")
    with pytest.raises(TypeError) as info:
        a < b < c  # noqa: B015  (Python: (a < b) and (b < c))
    message = str(info.value)
    assert "`<`" in message and "T.and_" in message
    assert "a < b < c" in message  # the source line is quoted


def test_numpy_array_on_the_left_is_a_comparison_too():
    a = T.dvector("a")
    with pytest.raises(TypeError, match="no truth value"):
        bool(np.zeros(3) < a)


def test_functions_and_equality_stay_truthy():
    """`T.lt(a, b)` called as a function and `T.eq`/`T.neq` are not guarded (Theano guards the
    four operators only; `==` is identity)."""
    a, b = T.dscalars("a", "b")
    for var in (T.lt(a, b), T.ge(a, b), T.eq(a, b), T.neq(a, b)):
        assert bool(var) is True
    assert (a == b) is False and (a != b) is True


def test_comparison_still_computes():
    a, b = T.dvectors("a", "b")
    f = irc.function([a, b], [a < b, a >= b])
    x, y = np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 2.0])
    lt, ge = f(x, y)
    np.testing.assert_array_equal(lt, x < y)
    np.testing.assert_array_equal(ge, x >= y)
