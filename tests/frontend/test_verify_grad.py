"""`T.verify_grad` (Theano's `theano.gradient.verify_grad`): right gradients pass, a wrong one
(a user op whose `grad` is off by a factor) raises `verify_grad.E_grad` with Theano's
attributes; `numeric_grad` against closed forms; the argument checks."""
import numpy as np
import pytest

import irc
import irc.gradient
import irc.tensor as T
from irc.frontend.graph import Apply, Op, Variable


class ExpWithGrad(Op):
    """exp(x) with a gradient scaled by `factor`: 1 is right, anything else is a bug."""

    __props__ = ("factor",)
    ir_name = "tensor.exp"

    def __init__(self, factor: float):
        self.factor = factor

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [Variable(x.type)])

    def grad(self, inputs, outputs, output_grads):
        return [output_grads[0] * outputs[0] * self.factor]


def rng():
    return np.random.RandomState(42)


def test_the_names_theano_programs_use():
    assert T.verify_grad is irc.gradient.verify_grad
    assert irc.gradient.verify_grad.E_grad is irc.gradient.GradientError
    assert T.numeric_grad is irc.gradient.numeric_grad


@pytest.mark.parametrize("fun, shapes", [
    (T.tanh, [(2, 3)]),
    (lambda a, b: T.dot(a, b), [(3, 4), (4, 2)]),
    (lambda a, b: a * T.exp(b) / (1 + a * a), [(5,), (5,)]),
    (lambda a: T.nnet.softmax(a), [(3, 4)]),
    (lambda a: a.sum(axis=0), [(3, 4)]),
    (lambda a, b: a + b, [(1, 4), (3, 4)]),  # broadcast: a's first dim is broadcastable
])
def test_right_gradients_pass(fun, shapes):
    pt = [rng().uniform(-1, 1, size=s) for s in shapes]
    T.verify_grad(fun, pt, rng=rng())


def test_a_user_op_with_the_right_gradient_passes():
    T.verify_grad(ExpWithGrad(1.0), [rng().uniform(-1, 1, size=(3, 2))], rng=rng())


def test_a_wrong_gradient_is_caught_with_its_position_and_values():
    x = rng().uniform(-1, 1, size=(3, 2))
    with pytest.raises(T.verify_grad.E_grad) as info:
        T.verify_grad(lambda a: ExpWithGrad(1.5)(a) + a, [x], rng=rng())
    e = info.value
    assert e.arg == 0 and e.shape == (3, 2) and 0 <= e.err_pos < 6
    # analytic = u * (1.5 exp(x) + 1), numeric = u * (exp(x) + 1) for the same projection u
    xi = x.ravel()[e.err_pos]
    assert e.val1 / e.val2 == pytest.approx((1.5 * np.exp(xi) + 1) / (np.exp(xi) + 1), rel=1e-4)
    assert e.abs_err > e.abs_tol == 1e-4 and e.rel_err > e.rel_tol == 1e-4
    assert "At position" in str(e) and "\nThe error happened with the following inputs:" in e.args


def test_a_slightly_wrong_gradient_passes_within_wide_tolerances_only():
    x = [rng().uniform(-1, 1, size=(4,))]
    T.verify_grad(ExpWithGrad(1.001), x, rng=rng(), rel_tol=1e-2, abs_tol=1e-2)
    with pytest.raises(irc.gradient.GradientError):
        T.verify_grad(ExpWithGrad(1.001), x, rng=rng())


def test_float32_inputs_use_float32_tolerances():
    x = rng().uniform(-1, 1, size=(3, 3)).astype("float32")
    T.verify_grad(lambda a: T.nnet.sigmoid(a) * a, [x], rng=rng())
    with pytest.raises(T.verify_grad.E_grad) as info:
        T.verify_grad(ExpWithGrad(1.2), [x], rng=rng())
    assert info.value.abs_tol == 1e-2 and info.value.rel_tol == 1e-2


def test_every_projection_is_checked():
    # the wrong factor shows in any projection; n_tests=3 draws 3 of them from rng
    calls = []

    class CountingRng(np.random.RandomState):
        def rand(self, *shape):
            calls.append(shape)
            return super().rand(*shape)

    T.verify_grad(T.tanh, [np.linspace(-1, 1, 6)], n_tests=3, rng=CountingRng(0))
    assert calls == [(6,)] * 3


def test_rng_none_seeds_one_and_modes_are_accepted():
    T.verify_grad(T.sqr, [np.arange(3.0)], mode="FAST_COMPILE")
    T.verify_grad(T.sqr, [np.arange(3.0)], mode="DebugMode", no_debug_ref=False)


def test_argument_errors():
    with pytest.raises(TypeError, match="floating point inputs, but input 0"):
        T.verify_grad(T.sqr, [np.arange(3)], rng=rng())
    with pytest.raises(TypeError, match="pt must be a list"):
        T.verify_grad(T.sqr, np.arange(3.0), rng=rng())
    with pytest.raises(NotImplementedError, match="several outputs"):
        T.verify_grad(lambda a: [a, a], [np.arange(3.0)], rng=rng())


def test_numeric_grad_matches_closed_forms():
    def f(a, b):
        return float(np.sum(a ** 2) + np.sum(np.sin(b)))
    a, b = np.array([1.0, -2.0]), np.array([[0.5, 1.0]])
    g = T.numeric_grad(f, [a, b])
    np.testing.assert_allclose(g.gf[0], 2 * a, atol=1e-5)
    np.testing.assert_allclose(g.gf[1], np.cos(b), atol=1e-5)
    single = T.numeric_grad(lambda v: float(np.sum(v ** 3)), np.array([2.0]))
    np.testing.assert_allclose(single.gf, [12.0], atol=1e-4)
    abs_err, rel_err = T.numeric_grad.abs_rel_err(np.array([1.0, 0.0]), np.array([1.5, 0.0]))
    np.testing.assert_allclose(abs_err, [0.5, 0.0])
    np.testing.assert_allclose(rel_err, [0.2, 0.0])
    assert g.max_err([2 * a, np.cos(b) + [[0, 1.0]]], 1e-4, 1e-4)[:2] == (1, 1)


def test_a_subclass_of_a_built_in_op_gets_its_own_grad():
    from irc.frontend.elemwise import Elemwise

    class SloppyExp(Elemwise):   # exp whose gradient forgets the chain rule's factor
        def __init__(self):
            super().__init__("exp")

        def grad(self, inputs, outputs, output_grads):
            return [outputs[0]]

    x = rng().uniform(-1, 1, size=(4,))
    T.verify_grad(lambda a: T.exp(a), [x], rng=rng())
    with pytest.raises(T.verify_grad.E_grad):
        T.verify_grad(lambda a: SloppyExp()(a), [x], rng=rng())
