"""`irc.gradient.zero_grad`, `disconnected_grad`, `consider_constant`, `grad_clip`,
`grad_scale`: the identity on values (gone from the compiled function), their gradients
against closed forms, disconnection, and their R-ops."""
import numpy as np
import pytest

import irc
import irc.tensor as T
from irc import gradient

A = np.random.RandomState(0).randn(5, 5)


@pytest.mark.parametrize("control", [gradient.zero_grad, gradient.disconnected_grad,
                                     lambda v: gradient.grad_clip(v, -1, 1), lambda v: gradient.grad_scale(v, 3.0)])
def test_values_pass_unchanged_and_the_op_is_gone(control):
    x = T.matrix("x")
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = irc.function([x], x * control(x), mode=mode)
        np.testing.assert_array_equal(f(A), A * A)
        assert [type(n.op).__name__ for n in f.maker.fgraph.toposort()] == ["Elemwise"]


@pytest.mark.parametrize("expr, expected", [
    (lambda x: x * gradient.zero_grad(x), lambda x: x),
    (lambda x: x * gradient.zero_grad(T.exp(x)), lambda x: T.exp(x)),
    (lambda x: gradient.zero_grad(x), lambda x: T.zeros_like(x)),
    (lambda x: x ** 2 * gradient.zero_grad(x), lambda x: 2 * x ** 2),
    (lambda x: x * gradient.disconnected_grad(x), lambda x: x),
    (lambda x: x * gradient.disconnected_grad(T.exp(x)), lambda x: T.exp(x)),
    (lambda x: x ** 2 * gradient.disconnected_grad(x), lambda x: 2 * x ** 2),
    (lambda x: gradient.grad_scale(x ** 2, -0.5), lambda x: -x),
    (lambda x: gradient.grad_clip(3 * x, -1.0, 2.0), lambda x: 3 * T.clip(T.ones_like(x), -1.0, 2.0)),
])
def test_gradients_match_their_closed_forms(expr, expected):
    x = T.matrix("x")
    g = gradient.grad(expr(x).sum(), x)
    got = irc.function([x], g, on_unused_input="ignore")(A)
    want = irc.function([x], expected(x), on_unused_input="ignore")(A)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_clip_bounds_the_gradient_not_the_value():
    s = T.dscalar("s")
    f = irc.function([s], [gradient.grad_clip(s, -1, 1) ** 2, T.grad(gradient.grad_clip(s, -1, 1) ** 2, s)])
    assert f(2.0) == [4.0, 1.0] and f(-0.25) == [0.0625, -0.5]
    with pytest.raises(ValueError, match="lower bound"):
        gradient.grad_clip(s, 1, -1)


def test_only_through_disconnected_grad_is_disconnected():
    x, a, b = T.matrices("x", "a", "b")
    with pytest.raises(gradient.DisconnectedInputError):
        gradient.grad(gradient.disconnected_grad(x).sum(), x)
    gradient.grad((x + gradient.disconnected_grad(x)).sum(), x)
    y = a + gradient.disconnected_grad(b)
    with pytest.raises(gradient.DisconnectedInputError):
        gradient.grad(y.sum(), b)
    gradient.grad(y.sum(), a)
    assert irc.function([x], gradient.grad(gradient.zero_grad(x).sum(), x))(A).sum() == 0.0


def test_consider_constant_is_zero_grad_with_a_warning():
    x = T.dvector("x")
    with pytest.warns(DeprecationWarning, match="zero_grad"):
        y = x * gradient.consider_constant(x)
    g = irc.function([x], gradient.grad(y.sum(), x))(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(g, [1.0, 2.0])


def test_r_ops():
    x, v = T.dvectors("x", "v")
    xv, vv = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    rop = lambda e: irc.function([x, v], T.Rop(e, x, v), on_unused_input="ignore")(xv, vv)  # noqa: E731
    np.testing.assert_allclose(rop(gradient.grad_scale(x ** 2, 5.0)), 2 * xv * vv)
    np.testing.assert_allclose(rop(gradient.zero_grad(x ** 2) + x), vv)


def test_theano_op_instances_are_not_in_the_compiled_graph():
    x = T.matrix("x")
    for op, apply in [(gradient.zero_grad_, gradient.zero_grad), (gradient.disconnected_grad_, gradient.disconnected_grad)]:
        f = irc.function([x], x * apply(x))
        assert op not in [node.op for node in f.maker.fgraph.toposort()]
        assert op(x).owner.op == op   # the same op, applied directly
