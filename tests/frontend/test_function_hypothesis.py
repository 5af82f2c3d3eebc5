"""Random elementwise expression graphs, compiled with irc.function, match numpy.

Tolerances (against a float64 numpy evaluation of the same expression): float64 rtol 1e-9;
float32 rtol 1e-3 with an absolute slack of 1e-4 x the largest intermediate magnitude, which
covers float32 rounding accumulated over the graph's depth (cancellation in `a - b`)."""
from __future__ import annotations

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import irc  # noqa: E402
import irc.tensor as T  # noqa: E402

UNARY = {
    "neg": (lambda a: -a, lambda a: -a),
    "tanh": (T.tanh, np.tanh),
    "sin": (T.sin, np.sin),
    "cos": (T.cos, np.cos),
    "abs": (abs, np.abs),
    "exp_tanh": (lambda a: T.exp(T.tanh(a)), lambda a: np.exp(np.tanh(a))),
    "sqr": (lambda a: a * a, lambda a: a * a),
}
BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "max": (T.maximum, np.maximum),
    "min": (T.minimum, np.minimum),
    "half_add": (lambda a, b: (a + b) * 0.5, lambda a, b: (a + b) * 0.5),
}

leaf = st.sampled_from(["x", "y", "c"])
expr = st.recursive(
    leaf,
    lambda sub: st.one_of(st.tuples(st.sampled_from(sorted(UNARY)), sub),
                          st.tuples(st.sampled_from(sorted(BINARY)), sub, sub)),
    max_leaves=8)


def build(e, env_sym, env_num, scale):
    if isinstance(e, str):
        return env_sym[e], env_num[e]
    if len(e) == 2:
        fs, fn = UNARY[e[0]]
        s, n = build(e[1], env_sym, env_num, scale)
        out = fn(n)
    else:
        fs, fn = BINARY[e[0]]
        s1, n1 = build(e[1], env_sym, env_num, scale)
        s2, n2 = build(e[2], env_sym, env_num, scale)
        s, n, out = (s1, s2), (n1, n2), fn(n1, n2)
    scale.append(float(np.max(np.abs(out))) if np.size(out) else 0.0)
    return (fs(*s) if isinstance(s, tuple) else fs(s)), out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(e=expr, dtype=st.sampled_from(["float32", "float64"]),
       mode=st.sampled_from(["FAST_RUN", "FAST_COMPILE"]),
       seed=st.integers(0, 2 ** 16), n=st.integers(1, 7))
def test_random_elementwise_graphs(e, dtype, mode, seed, n):
    rng = np.random.RandomState(seed)
    xv = rng.uniform(-2, 2, n)
    yv = rng.uniform(-2, 2, n)
    cv = 0.75
    x = T.vector("x", dtype=dtype)
    y = T.vector("y", dtype=dtype)
    c = T.constant(np.asarray(cv, dtype=dtype))
    scale: list[float] = [2.0]
    sym, ref = build(e, {"x": x, "y": y, "c": c}, {"x": xv, "y": yv, "c": np.float64(cv)}, scale)
    f = irc.function([x, y], sym, mode=mode, on_unused_input="ignore")
    got = f(xv.astype(dtype), yv.astype(dtype))
    ref = np.broadcast_to(ref, got.shape)
    assert got.dtype == np.dtype(dtype)
    if dtype == "float64":
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12 * max(scale))
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-3, atol=1e-4 * max(scale))
