"""`shared(value, strict=, allow_downcast=)` keeps those rules for `set_value` (Theano's
container): strict takes only the exact dtype, allow_downcast rounds, the default converts
only without loss; a string is refused with an error that is both a TypeError and a ValueError."""
from __future__ import annotations

import numpy as np
import pytest

import irc


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8"])
def test_allow_downcast_rounds_on_set_value(dtype):
    b = irc.shared(np.asarray(7, dtype=dtype), allow_downcast=True)
    b.set_value(8.23)
    assert b.get_value() == 8 and b.get_value().dtype == dtype
    v = irc.shared(np.asarray([7], dtype=dtype), allow_downcast=True)
    v.set_value([8.23])
    assert v.get_value().tolist() == [8]


def test_strict_takes_only_the_exact_dtype_and_the_default_only_lossless_values():
    for value, other in ((np.int64(7), 8.23), (np.float64(7.2), 8), (np.float32(7.2), 8)):
        b = irc.shared(value, strict=True)
        with pytest.raises(TypeError):
            b.set_value(other)
        b.set_value(np.asarray(value * 2, dtype=np.asarray(value).dtype))
    d = irc.shared(np.float64(1.0))
    d.set_value(8)
    assert d.get_value() == 8.0
    i = irc.shared(np.int64(1))
    with pytest.raises(TypeError, match="losing precision"):
        i.set_value(8.23)


def test_a_string_is_not_a_number():
    u = irc.shared(np.asarray([1.0, 2.0]))
    u.set_value([3, 4])
    assert u.get_value().dtype == np.float64
    for error in (ValueError, TypeError):
        with pytest.raises(error, match="not numeric"):
            u.set_value("adsf")


def test_an_input_computed_by_the_graph_is_fed_its_value():
    """Theano's partial graph: `function([2 * a], ...)` reads the value given for `2 * a`; what
    computes it is not needed (a then is unused), and a constant is still refused."""
    import irc.tensor as T
    a = T.dscalar("a")
    a2 = 2 * a
    assert irc.function([a2], a2 + 1)(5.0) == 6.0
    x, y = T.dmatrix(), T.dmatrix()
    z = T.dot(x, y)
    np.testing.assert_array_equal(irc.function([x, z], z * 2 + x)(np.eye(2), np.ones((2, 2))), [[3, 2], [2, 3]])
    m = T.dmatrix("m")
    mt = m.T
    with pytest.raises(irc.frontend.function.UnusedInputError):
        irc.function([m, mt], mt * 2)
    with pytest.raises(TypeError, match="constant"):
        irc.function([T.constant(1.0)], a)


def test_tensor_type_values_eq_and_values_eq_approx():
    """Theano's test_tensor_values_eq_approx and test_values_eq."""
    from irc.tensor import TensorType
    a = np.asarray([-np.inf, -1, 0, 1, np.inf, np.nan])
    assert TensorType.values_eq_approx(a, a) and TensorType.values_eq(a, a)
    assert not TensorType.values_eq_approx(a, np.asarray([np.inf, -1, 0, 1, np.inf, np.nan]))
    assert not TensorType.values_eq_approx(a, np.asarray([-np.inf, -1, 0, 1, -np.inf, np.nan]))
    assert TensorType.values_eq_approx(a, np.asarray([np.inf, -1, 0, 1, 5, np.nan]), allow_remove_inf=True)
    assert not TensorType.values_eq_approx(a, np.asarray([np.inf, -1, 0, 1, 5, 6]), allow_remove_inf=True)
    assert TensorType.values_eq_approx(a, np.asarray([-np.inf, -1, 0, 1, np.inf, 6]), allow_remove_nan=True)
    assert not TensorType.values_eq_approx(a, np.asarray([-np.inf, -1, 0, 1, np.inf, 6]))
    x = np.random.RandomState(0).rand(4, 4)
    y = x.copy()
    y[0, 0], y[1, 0] = y[1, 0], y[0, 0]
    assert not TensorType.values_eq(x, y) and not TensorType.values_eq_approx(x, y)
    assert TensorType.values_eq_approx(x, x + 1e-12) and not TensorType.values_eq(x, x.astype("float32"))
