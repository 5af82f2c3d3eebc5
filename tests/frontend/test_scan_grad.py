"""`T.grad` through scan (backpropagation through time) against central finite differences
of numpy loops and against the gradient of the same graph unrolled by hand.

Tolerances: float64; finite differences with eps = 1e-6 agree to 1e-7 absolute; the unrolled
graph's gradient agrees to 1e-12 relative. Every function must compile natively."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")
rng = np.random.default_rng(11)


def numeric_grad(fn, v, eps=1e-6):
    g = np.zeros_like(v)
    for i in np.ndindex(v.shape):
        vp, vm = v.copy(), v.copy()
        vp[i] += eps
        vm[i] -= eps
        g[i] = (fn(vp) - fn(vm)) / (2 * eps)
    return g


def rnn_cost(xv, h0v, Wv, Uv):
    h, c = h0v, 0.0
    for t in range(len(xv)):
        h = np.tanh(h @ Wv + xv[t] @ Uv)
        c += (h ** 2).sum() * (t + 1)
    return c


def rnn_graph():
    x, W, U = T.dmatrix("x"), T.dmatrix("W"), T.dmatrix("U")
    h0 = T.dvector("h0")
    hs, _ = irc.scan(lambda xt, h, W: T.tanh(T.dot(h, W) + T.dot(xt, U)),
                     sequences=x, outputs_info=h0, non_sequences=W)
    weights = T.arange(1, hs.shape[0] + 1).astype("float64")
    cost = ((hs ** 2).sum(axis=1) * weights).sum()
    return [x, h0, W, U], cost


def test_rnn_gradient_against_finite_differences():
    inputs, cost = rnn_graph()
    f = irc.function(inputs, [cost, *T.grad(cost, inputs)])
    xv, h0v = rng.normal(size=(6, 2)), rng.normal(size=3)
    Wv, Uv = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(2, 3))
    c, gx, gh0, gW, gU = f(xv, h0v, Wv, Uv)
    np.testing.assert_allclose(c, rnn_cost(xv, h0v, Wv, Uv), rtol=1e-12)
    for got, which, v in ((gx, 0, xv), (gh0, 1, h0v), (gW, 2, Wv), (gU, 3, Uv)):
        def fn(value, which=which):
            args = [xv, h0v, Wv, Uv]
            args[which] = value
            return rnn_cost(*args)
        np.testing.assert_allclose(got, numeric_grad(fn, v), atol=1e-7)


def test_gradient_equals_the_unrolled_graph():
    """The same recurrence written as 4 explicit steps: identical gradients."""
    x0 = T.dmatrix("x0")
    s = T.dmatrix("s")
    U = T.dmatrix("U")
    ys, _ = irc.scan(lambda st, a, b: T.tanh(T.dot(a, U)) + b * st, sequences=s,
                     outputs_info=[dict(initial=x0, taps=[-2, -1])], n_steps=4)
    cost = (ys ** 2).sum()
    buf = [x0[0], x0[1]]
    for t in range(4):
        buf.append(T.tanh(T.dot(buf[-2], U)) + buf[-1] * s[t])
    unrolled = sum((y ** 2).sum() for y in buf[2:])
    wrt = [x0, s, U]
    f = irc.function(wrt, T.grad(cost, wrt) + T.grad(unrolled, wrt))
    values = [rng.normal(size=(2, 3)), rng.normal(size=(6, 3)), rng.normal(size=(3, 3)) * 0.5]
    got = f(*values)
    for a, b in zip(got[:3], got[3:]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert np.all(got[1][4:] == 0)  # rows past n_steps get no gradient


def test_gradient_of_go_backwards_and_of_a_non_sequence_used_by_fn_implicitly():
    x = T.dvector("x")
    a = T.dscalar("a")
    acc, _ = irc.scan(lambda v, total: total * a + v ** 2, sequences=x, outputs_info=T.constant(0.0),
                      go_backwards=True)
    cost = acc[-1]
    f = irc.function([x, a], T.grad(cost, [x, a]))

    def np_cost(xv, av):
        total = 0.0
        for v in xv[::-1]:
            total = total * av + v ** 2
        return total
    xv, av = rng.normal(size=5), np.float64(0.7)
    gx, ga = f(xv, av)
    np.testing.assert_allclose(gx, numeric_grad(lambda v: np_cost(v, av), xv), atol=1e-7)
    np.testing.assert_allclose(ga, numeric_grad(lambda v: np_cost(xv, v), np.array(av)), atol=1e-7)


def test_truncate_gradient():
    """truncate_gradient=1: only the last step is differentiated (Theano's meaning)."""
    x = T.dmatrix("x")
    W = T.dmatrix("W")
    h0 = T.dvector("h0")
    hs, _ = irc.scan(lambda xt, h: T.tanh(T.dot(h, W) + xt), sequences=x, outputs_info=h0, truncate_gradient=1)
    cost = hs[-1].sum()
    f = irc.function([x, h0, W], T.grad(cost, [x, h0, W]) + [hs])
    xv, h0v, Wv = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=(3, 3))
    gx, gh0, gW, hv = f(xv, h0v, Wv)
    d = 1 - hv[-1] ** 2
    np.testing.assert_allclose(gx[-1], d, rtol=1e-12)
    assert np.all(gx[:-1] == 0) and np.all(gh0 == 0)
    np.testing.assert_allclose(gW, np.outer(hv[-2], d), rtol=1e-12)
    full, _ = irc.scan(lambda xt, h: T.tanh(T.dot(h, W) + xt), sequences=x, outputs_info=h0, truncate_gradient=10)
    g_full = irc.function([x, h0, W], T.grad(full[-1].sum(), h0))(xv, h0v, Wv)
    assert np.abs(g_full).sum() > 0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradient_keeps_the_dtype(dtype):
    x = T.vector("x", dtype=dtype)
    out, _ = irc.scan(lambda v, s: s * v, sequences=x, outputs_info=T.constant(np.ones((), dtype)))
    g = T.grad(out[-1], x)
    assert g.dtype == dtype
    xv = rng.uniform(0.5, 1.5, size=4).astype(dtype)
    expected = np.prod(xv) / xv
    np.testing.assert_allclose(irc.function([x], g)(xv), expected, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_a_random_factor_on_the_outputs_is_drawn_once_for_the_gradient():
    """Theano's scan_project_sum: cost = sum(outputs * uniform(outputs.shape)) with the stream's
    updates off. The backward scan reads the factors as they are; it must not find the
    stream's state in its step and draw anew at every step (the gradient was wrong)."""
    from irc.tensor.shared_randomstreams import RandomStreams
    u, x0, w_in, w = T.dvector("u"), T.dscalar("x0"), T.dscalar("w_in"), T.dscalar("w")
    outs, _ = irc.scan(lambda u_t, x_tm1, a, b: u_t * a + x_tm1 * b, u, x0, [w_in, w])
    srng = RandomStreams(123)
    srng.add_default_updates = False
    factors = srng.uniform(size=outs.shape, low=0.1, high=0.9)
    inputs = [u, x0, w_in, w]
    rs = np.random.RandomState(1)
    values = [rs.uniform(-0.5, 0.5, size=10), rs.uniform(), rs.uniform(), rs.uniform()]
    drawn = irc.function(inputs, factors, no_default_updates=True)(*values)
    with_draw = irc.function(inputs, T.grad((outs * factors).sum(), inputs), no_default_updates=True)(*values)
    with_constant = irc.function(inputs, T.grad((outs * drawn).sum(), inputs))(*values)
    for a, b in zip(with_draw, with_constant):
        np.testing.assert_allclose(a, b, rtol=1e-12)
