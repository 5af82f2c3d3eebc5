"""`config.compute_test_value` and `x.tag.test_value`, as Theano's (library/config,
tutorial/debug_faq "Using Test Values"): with the flag on, every node computes its outputs'
test values when it is built, so a shape mistake fails at the line that made it; an input
without a test value is skipped ('ignore'), warned about ('warn'), an error ('raise') or a
debugger session ('pdb'). Values against numpy: float64 to 1e-12 relative."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.frontend import compute_test_values

RNG = np.random.RandomState(3)


@pytest.fixture
def flag():
    """Set the flag for one test, restoring it after."""
    old = irc.config.compute_test_value
    yield lambda mode: setattr(irc.config, "compute_test_value", mode)
    irc.config.compute_test_value = old


def test_off_by_default_and_nothing_is_computed():
    assert irc.config.compute_test_value == "off"
    x = T.dmatrix("x")
    x.tag.test_value = np.ones((2, 2))
    y = T.exp(x)
    assert not hasattr(y.tag, "test_value")


def test_values_flow_through_the_graph(flag):
    flag("raise")
    x, W = T.dmatrix("x"), irc.shared(RNG.normal(size=(3, 4)), name="W")
    X = RNG.normal(size=(5, 3))
    x.tag.test_value = X
    h = T.tanh(T.dot(x, W) + 1.0)
    p = T.nnet.softmax(h)
    cost = -T.log(p)[T.arange(5), T.constant(np.array([0, 1, 2, 3, 0]))].mean()
    expected_h = np.tanh(X @ W.get_value() + 1.0)
    np.testing.assert_allclose(h.tag.test_value, expected_h, rtol=1e-12)
    e = np.exp(expected_h - expected_h.max(1, keepdims=True))
    np.testing.assert_allclose(p.tag.test_value, e / e.sum(1, keepdims=True), rtol=1e-12)
    assert np.ndim(cost.tag.test_value) == 0
    g = T.grad(cost, W)  # the gradient graph gets test values too
    assert g.tag.test_value.shape == (3, 4)


def test_a_shape_mistake_fails_at_the_users_line(flag):
    flag("raise")
    x, y = T.dvector("x"), T.dvector("y")
    x.tag.test_value = np.zeros(3)
    y.tag.test_value = np.zeros(4)
    with pytest.raises(ValueError, match="compute_test_value") as info:
        x + y  # noqa: B018
    assert __file__ in str(info.value) and "x + y" in str(info.value)
    m, W = T.dmatrix("m"), T.dmatrix("W")
    m.tag.test_value, W.tag.test_value = np.zeros((2, 3)), np.zeros((4, 5))
    with pytest.raises(ValueError, match="T.dot"):
        T.dot(m, W)  # the line quoted: T.dot(m, W)


@pytest.mark.parametrize("mode", ["ignore", "warn", "raise"])
def test_an_input_without_a_test_value(flag, mode):
    flag(mode)
    x, y = T.dvector("x"), T.dvector("y")
    x.tag.test_value = np.ones(3)
    if mode == "raise":
        with pytest.raises(ValueError, match="Cannot compute test value: input 1 .* missing default value"):
            x * y
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        z = x * y
        later = T.exp(z)  # downstream of a skipped node: skipped (warned) again, never an error
    assert not hasattr(z.tag, "test_value") and not hasattr(later.tag, "test_value")
    said = [str(w.message) for w in caught if "Cannot compute test value" in str(w.message)]
    assert len(said) == (2 if mode == "warn" else 0)
    assert all(__file__ in m for m in said)  # reported at the user's line


def test_pdb_opens_the_debugger_then_skips(flag, monkeypatch):
    flag("pdb")
    sessions = []
    monkeypatch.setattr(compute_test_values.pdb, "post_mortem", lambda tb: sessions.append(tb))
    x = T.dvector("x")
    z = T.exp(x)
    assert len(sessions) == 1 and not hasattr(z.tag, "test_value")


def test_constants_and_shared_variables_have_their_values(flag):
    flag("raise")
    s = irc.shared(np.arange(3.0), name="s")
    z = s * 2 + T.constant(np.ones(3))
    np.testing.assert_array_equal(z.tag.test_value, np.arange(3.0) * 2 + 1)


def test_a_test_value_of_the_wrong_type(flag):
    flag("raise")
    x = T.dmatrix("x")
    x.tag.test_value = np.zeros(3)  # a vector for a matrix
    with pytest.raises(TypeError, match="does not have its type"):
        T.exp(x)


def test_scan_steps_get_test_values(flag):
    flag("raise")
    seq, h0 = T.dmatrix("seq"), T.dvector("h0")
    W = irc.shared(RNG.normal(size=(3, 3)), name="W")
    S, H0 = RNG.normal(size=(4, 3)), RNG.normal(size=3)
    seq.tag.test_value, h0.tag.test_value = S, H0
    seen = []

    def step(x_t, h):
        out = T.tanh(x_t + T.dot(h, W))
        seen.append(out.tag.test_value)  # the step's graph has values while it is built
        return out

    hs, _ = irc.scan(step, sequences=seq, outputs_info=h0)
    h, want = H0, []
    for row in S:
        h = np.tanh(row + h @ W.get_value())
        want.append(h)
    np.testing.assert_allclose(seen[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(hs.tag.test_value, np.array(want), rtol=1e-12)


def test_ifelse_gets_the_taken_branchs_value(flag):
    flag("raise")
    c, a, b = T.lscalar("c"), T.dvector("a"), T.dvector("b")
    c.tag.test_value, a.tag.test_value, b.tag.test_value = 0, np.ones(2), np.zeros(2)
    out = irc.ifelse.ifelse(c, a, b)
    np.testing.assert_array_equal(out.tag.test_value, np.zeros(2))


def test_bad_flag_value_is_refused():
    with pytest.raises(ValueError, match="compute_test_value"):
        irc.config.compute_test_value = "sometimes"
