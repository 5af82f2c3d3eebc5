"""`T.grad`'s Theano keywords: `cost=None` with `known_grads`, `return_disconnected`,
`disconnected_inputs`, `add_names` (`(df/dx)`), `null_gradients`, a tuple or set `wrt`, an
integer cost or wrt — checked against numpy and closed forms."""
import warnings

import numpy as np
import pytest

import irc
import irc.gradient
import irc.tensor as T


def test_the_gradient_is_named_after_the_cost_and_the_variable():
    A = T.matrix("A")
    x = T.vector("x")
    f = T.dot(x, T.dot(A, x))
    f.name = "f"
    assert T.grad(f, x).name == "(df/dx)"
    assert T.grad(f, x, add_names=False).name is None
    anonymous = T.vector()
    assert T.grad(T.sum(anonymous ** 2), anonymous).name is None


def test_known_grads_alone_match_the_full_gradient_layer_by_layer():
    # Theano's test_known_grads: seeding any cut of the graph with its gradients gives the
    # gradient of the whole cost
    full_range = T.arange(10)
    x, t, coeffs = T.dscalar("x"), T.iscalar("t"), T.dvector("c")
    ft, ct = full_range[t], coeffs[t]
    p = x ** ft
    y = ct * p
    cost = T.sqr(y)
    inputs = [coeffs, t, x]
    values = [np.linspace(-1, 1, 10), np.int32(3), np.float64(0.7)]
    expected = irc.function(inputs, T.grad(cost, inputs, disconnected_inputs="ignore"))(*values)
    # closed form: d/dc_t = 2 c_t x^6, d/dx = 2 c_t^2 * 3 x^5 (t = 3: ft = 3, p = x^3)
    c3 = values[0][3]
    np.testing.assert_allclose(expected[0][3], 2 * c3 * 0.7 ** 6, rtol=1e-12)
    np.testing.assert_allclose(expected[2], 6 * c3 ** 2 * 0.7 ** 5, rtol=1e-12)
    for layer in [[cost], [y], [ct, p], [ct, x, ft], [coeffs, t, full_range, x]]:
        known = dict(zip(layer, T.grad(cost, layer, disconnected_inputs="ignore")))
        full = T.grad(cost=None, known_grads=known, wrt=inputs, disconnected_inputs="ignore")
        got = irc.function(inputs, full, on_unused_input="ignore")(*values)
        for a, b in zip(expected, got):
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_known_grads_on_an_integer_variable_and_d_x_d_x():
    i = T.iscalar()
    g = T.dscalar()
    assert irc.function([g], irc.gradient.grad(cost=None, known_grads={i: g}, wrt=i))(0.6) == 0.6
    assert T.grad(i, i).eval({i: 12}) == 1.0   # Theano's test_dxdx: 1, not 0, for an int


def test_known_grads_are_added_to_the_costs_gradient():
    x = T.dvector("x")
    h = T.exp(x)
    v = T.dvector("v")
    g = T.grad(T.sum(h), x, known_grads={h: v})   # d/dx [sum(h) + v.h] = (1 + v) exp(x)
    xv, vv = np.array([0.0, 1.0]), np.array([2.0, -1.0])
    np.testing.assert_allclose(irc.function([x, v], g)(xv, vv), (1 + vv) * np.exp(xv), rtol=1e-12)


def test_return_disconnected_and_disconnected_inputs():
    x, y = T.dvector("x"), T.dvector("y")
    cost = T.sum(x ** 2)
    with pytest.raises(irc.gradient.DisconnectedInputError) as info:
        T.grad(cost, [x, y])
    assert isinstance(info.value, ValueError) and "y" in str(info.value)
    zero = T.grad(cost, [x, y], disconnected_inputs="ignore")[1]
    np.testing.assert_array_equal(irc.function([y], zero)(np.ones(3)), np.zeros(3))
    assert T.grad(cost, [x, y], disconnected_inputs="ignore", return_disconnected="None")[1] is None
    marker = T.grad(cost, [x, y], disconnected_inputs="ignore", return_disconnected="Disconnected")[1]
    assert isinstance(marker.type, irc.gradient.DisconnectedType)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T.grad(cost, [x, y], disconnected_inputs="warn")
    assert any("not part of the computational graph" in str(w.message) for w in caught)
    with pytest.raises(ValueError, match="return_disconnected"):
        T.grad(cost, x, return_disconnected="zeros")
    with pytest.raises(ValueError, match="disconnected_inputs"):
        T.grad(cost, x, disconnected_inputs="loud")


def test_a_known_disconnected_gradient_means_no_gradient():
    x, y = T.iscalar(), T.iscalar()
    cost = x + y
    with pytest.raises(irc.gradient.DisconnectedInputError):
        T.grad(cost, [x, y], known_grads={cost: irc.gradient.disconnected_type()})


def test_the_structure_of_wrt_is_kept_and_argument_errors():
    x, y = T.dscalars("x", "y")
    cost = x * y
    assert isinstance(T.grad(cost, (x, y)), tuple) and isinstance(T.grad(cost, [x, y]), list)
    with pytest.raises(TypeError, match="must not be a set"):
        T.grad(cost, {x, y})
    with pytest.raises(ValueError, match="can't both be None"):
        T.grad(None, x)
    with pytest.raises(TypeError, match="gradients must be float"):
        T.grad(None, x, known_grads={cost: T.iscalar()})
    with pytest.raises(TypeError, match="cost must be a scalar"):
        T.grad(T.dvector(), x)
    with pytest.raises(ValueError, match="null_gradients"):
        T.grad(cost, x, null_gradients="ignore")
    assert T.grad(cost, x, null_gradients="return") is not None


def test_the_gradient_with_respect_to_an_integer_input_is_the_float_one():
    # Theano's test_grad_int: an int matrix through dot gets the gradient a float one gets
    W, b = T.dmatrix("W"), T.dvector("b")

    def grad_function(X):
        cost = T.nnet.sigmoid(T.dot(X, W) + b).sum()
        return irc.function([X, W, b], T.grad(cost, X))

    rng = np.random.RandomState(5)
    X = (rng.randn(5, 3) * 127).astype("int32")
    Wv, bv = rng.randn(3, 4), rng.randn(4)
    from_int = grad_function(T.imatrix("X"))(X, Wv, bv)
    assert from_int.dtype.kind == "f"
    np.testing.assert_allclose(from_int, grad_function(T.dmatrix("X"))(X.astype("float64"), Wv, bv), rtol=1e-12)


def test_float_gradients_keep_their_dtype_next_to_integers():
    # Theano's test_downcast_dtype
    x = T.fscalar("x")
    y = x * 2
    z = T.lscalar("z")
    c = y + z
    dc_dx, dc_dy, dc_dz, dc_dc = irc.grad(c, [x, y, z, c])
    assert dc_dx.dtype == "float32"
    assert {dc_dy.dtype, dc_dz.dtype, dc_dc.dtype} <= {"float32", "float64"}
    assert irc.function([], dc_dz)() == 1.0


def test_an_integer_result_still_sends_no_gradient_back():
    """Zeros (Theano's): x is in the cost's graph, through ops without a gradient."""
    x = T.dvector("x")
    for cost in (T.cast(T.cast(x, "int32"), "float64").sum(), T.cast(T.argmax(x), "float64")):
        np.testing.assert_array_equal(irc.function([x], T.grad(cost, x))(np.arange(3.0)), np.zeros(3))


def test_the_zeros_of_a_disconnected_scalar_read_it():
    x, y = T.dscalars("x", "y")
    g = T.grad(x * x, [x, y], disconnected_inputs="ignore")
    f = irc.function([x, y], g)   # y is used: no UnusedInputError
    assert f(1.5, 5.0) == [3.0, 0.0]
    i = T.iscalar("i")
    gi = T.grad(x * x, i, disconnected_inputs="ignore")
    assert gi.dtype == irc.config.floatX and irc.function([i], gi)(3) == 0.0
