"""`T.Rop` (forward mode, per-op R-op rules) and `T.Lop` (reverse mode from a given output
gradient), checked against central finite differences in float64 (relative 1e-6) and against
each other (u . Lop(v) == Rop(u) . v), plus the tutorial's examples."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

RNG = np.random.default_rng(7)


def _exprs():
    """(name, builder from a dmatrix x, input value): expressions over the ops with R-op rules."""
    w = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    return [
        ("elementwise", lambda x: T.tanh(x) * T.exp(-x) + x ** 3 / (1 + x * x), RNG.normal(size=(2, 3))),
        ("dot", lambda x: T.dot(x, w) + T.dot(x.T, x).sum(), RNG.normal(size=(2, 3))),
        ("reductions", lambda x: T.stack([x.sum(), x.max(), x.prod(), x.mean()]), RNG.uniform(0.5, 2, (2, 3))),
        ("shapes", lambda x: x.dimshuffle(1, "x", 0).reshape((3, 2)) * x[0, 1:].dimshuffle("x", 0),
         RNG.normal(size=(2, 3))),
        ("softmax", lambda x: T.nnet.softmax(x) * T.log(T.nnet.sigmoid(x)), RNG.normal(size=(2, 3))),
        ("log_softmax", lambda x: T.nnet.logsoftmax(x) * x, RNG.normal(size=(2, 3))),
        ("softmax_grad", lambda x: T.grad((T.nnet.softmax(x) * T.constant(w[:2, :3])).sum(), x),
         RNG.normal(size=(2, 3))),
        ("broadcast", lambda x: T.maximum(x, 0.1) * T.minimum(x, 0.5) + T.stack([x, x * 2], axis=1)
         .sum(axis=0), RNG.normal(size=(2, 3))),
    ]


def _numeric_jvp(f, x, u, eps=1e-6):
    return (f(x + eps * u) - f(x - eps * u)) / (2 * eps)


@pytest.mark.parametrize("name,build,value", _exprs(), ids=[e[0] for e in _exprs()])
def test_rop_and_lop_match_finite_differences(name, build, value):
    x, u = T.dmatrix("x"), T.dmatrix("u")
    out = T.cast(build(x), "float64")
    v = T.TensorType("float64", out.broadcastable)("v")
    f = irc.function([x], out)
    jvp = irc.function([x, u], T.Rop(out, x, u))
    vjp = irc.function([x, v], T.Lop(out, x, v), on_unused_input="ignore")
    uval = RNG.normal(size=value.shape)
    expected = _numeric_jvp(f, value, uval)
    got = jvp(value, uval)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    vval = RNG.normal(size=np.shape(expected))
    pulled = vjp(value, vval)
    np.testing.assert_allclose(np.sum(pulled * uval), np.sum(vval * got), rtol=1e-8)


def test_tutorial_jacobian_times_vector():
    W, V = T.dmatrices("W", "V")
    x = T.dvector("x")
    y = T.dot(x, W)
    JV = T.Rop(y, W, V)
    f = irc.function([W, V, x], JV)  # W is read (a zero tangent for x meets it), as in Theano
    np.testing.assert_allclose(f([[1, 1], [1, 1]], [[2, 2], [2, 2]], [0, 1]), [2.0, 2.0])
    v = T.dvector("v")
    VJ = T.Lop(y, W, v)
    np.testing.assert_allclose(irc.function([v, x], VJ)([2, 2], [0, 1]), [[0, 0], [2, 2]])


def test_tutorial_hessian_times_vector():
    x, v = T.dvectors("x", "v")
    y = T.sum(x ** 2)
    gy = T.grad(y, x)
    vH = T.grad(T.sum(gy * v), x)
    np.testing.assert_allclose(irc.function([x, v], vH)([4, 4], [2, 2]), [4.0, 4.0])
    Hv = T.Rop(gy, x, v)
    np.testing.assert_allclose(irc.function([x, v], Hv)([4, 4], [2, 2]), [4.0, 4.0])


def test_rop_of_several_wrt_and_disconnected_output():
    a, b = T.dvectors("a", "b")
    da, db = T.dvectors("da", "db")
    c = T.dscalar("c")
    with pytest.raises(ValueError, match="output #1"):  # Theano's disconnected_outputs="raise"
        T.Rop([a * b, c * 2], [a, b], [da, db])
    outs = T.Rop([a * b, c * 2], [a, b], [da, db], disconnected_outputs="ignore")
    f = irc.function([a, b, da, db, c], outs, on_unused_input="ignore")
    got, zero = f([1, 2], [3, 4], [1, 0], [0, 1], 5.0)
    np.testing.assert_allclose(got, [3.0, 2.0])  # da*b + a*db
    assert zero == 0.0


def test_rop_errors_are_clear():
    x = T.dvector("x")
    with pytest.raises(TypeError, match="ndim"):
        T.Rop(x * 2, x, T.dmatrix("m"))
    with pytest.raises(ValueError, match="eval point"):
        T.Rop(x * 2, [x], [])

    class NoRop(T.Op):
        def make_node(self, v):
            return T.Apply(self, [v], [v.type()])

    with pytest.raises(NotImplementedError, match="NoRop has no R-op.*test_rop_lop.py"):
        T.Rop(NoRop()(x), x, x)


def test_rop_keeps_a_tuple_takes_a_number_and_refuses_a_wrong_eval_point():
    """Theano's test_multiple_outputs and test_invalid_input (its error is a ValueError)."""
    m, v, m_, v_ = T.dmatrix("m"), T.dvector("v"), T.dmatrix("m_"), T.dvector("v_")
    assert isinstance(T.Rop((m, v, m + v), [m, v], [m_, v_]), tuple)
    assert isinstance(T.Rop([m, v, m + v], [m, v], [m_, v_]), list)
    with pytest.raises(ValueError, match="eval point"):
        T.Rop(0.0, [T.dmatrix()], [T.dvector()])

