"""`T.Rop` through `scan` (forward mode: another scan carrying tangents) against central
differences of the compiled function (step 1e-6; agreement to 1e-6 relative and absolute)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.scan_module import until

rng = np.random.RandomState(11)


def check_rop(build, inputs, values):
    """Rop of build(*inputs) along random directions, for each input, against differences."""
    out = build(*inputs)
    f = irc.function(inputs, out)
    directions = [rng.uniform(-1, 1, size=np.shape(v)) for v in values]
    points = [T.TensorType("float64", i.broadcastable)(f"e{k}") for k, i in enumerate(inputs)]
    for k, (x, e) in enumerate(zip(inputs, points)):
        rop = irc.function(inputs + [e], T.Rop(out, x, e), on_unused_input="ignore")
        got = rop(*values, directions[k])
        plus, minus = list(values), list(values)
        plus[k] = values[k] + 1e-6 * directions[k]
        minus[k] = values[k] - 1e-6 * directions[k]
        expected = (f(*plus) - f(*minus)) / 2e-6
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_rop_of_a_recurrent_network():
    """Theano's test_rop: h_t = tanh(W (u_t + h_{t-1})), the last state."""
    u, h0, W = T.dmatrix("u"), T.dvector("h0"), T.dmatrix("W")
    check_rop(lambda u, h0, W: irc.scan(lambda a, h, w: T.tanh(T.dot(w, a + h)), sequences=u, outputs_info=h0,
                                        non_sequences=W)[0][-1],
              [u, h0, W], [rng.uniform(size=(5, 3)), rng.uniform(size=3), rng.uniform(size=(3, 3)) * 0.5])


def test_rop_with_a_window_of_states_and_an_output_without_state():
    x0, s = T.dvector("x0"), T.dvector("s")

    def build(x0, s):
        outs, _ = irc.scan(lambda s_t, a, b: [a * b + s_t, T.sin(a)], sequences=s,
                           outputs_info=[dict(initial=x0, taps=[-2, -1]), None])
        return outs[0].sum() + outs[1].sum()
    check_rop(build, [x0, s], [rng.uniform(size=2), rng.uniform(size=5)])


def test_rop_of_a_scan_with_until_and_an_integer_state():
    x, k0 = T.dvector("x"), T.lscalar("k0")

    def build(x):
        (ys, ks), _ = irc.scan(lambda v, y, k: ([y * v + 1.0, k + 1], until(k >= 3)), sequences=x,
                               outputs_info=[T.constant(0.5), k0])
        return ys
    f = irc.function([x, k0], build(x))
    assert len(f(np.arange(1.0, 8.0), 0)) == 4
    e = T.dvector("e")
    (ys, ks), _ = irc.scan(lambda v, y, k: ([y * v + 1.0, k + 1], until(k >= 3)), sequences=x,
                           outputs_info=[T.constant(0.5), k0])
    rop = irc.function([x, k0, e], T.Rop(ys, x, e))
    xv, ev = np.arange(1.0, 8.0), rng.uniform(size=7)
    expected = (f(xv + 1e-6 * ev, 0) - f(xv - 1e-6 * ev, 0)) / 2e-6
    np.testing.assert_allclose(rop(xv, 0, ev), expected, rtol=1e-6, atol=1e-6)
