"""T.tri_gamma (psi', Theano's name; the math library's emitter, codegen_llvm/mathlib_trigamma.py)
against mpmath within docs/mathlib.md's bounds (3.5 ulp for x > 0; below 0, float64 6 ulp and
float32 1, its reflection computed in float64), scipy's values at
the poles (+inf at 0 and the negative integers), and T.psi's gradient, which is tri_gamma (as
Theano's). tri_gamma itself has no gradient (Theano raises NotImplementedError; irc, as for
its other non-differentiable ops, DisconnectedInputError)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

mp = pytest.importorskip("mpmath")


def reference(x: float) -> float:
    if x <= 0 and x == int(x):
        return np.inf
    with mp.workdps(30):
        return float(mp.psi(1, x))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_against_mpmath(dtype):
    rng = np.random.RandomState(0)
    v = np.concatenate([rng.uniform(0, 30, 1000), np.logspace(-15, 15, 200), rng.uniform(-30, 0, 500),
                        [1.0, 2.0, 0.5, 9.99, 10.0, 12.0, 1e-3, -0.5, -2.5]]).astype(dtype)
    x = T.vector("x", dtype=dtype)
    got = irc.function([x], T.tri_gamma(x))(v)
    assert got.dtype == np.dtype(dtype)
    want = np.array([reference(float(a)) for a in v])
    spacing = np.maximum(np.spacing(np.abs(want.astype(dtype))).astype("float64"), np.finfo(dtype).smallest_subnormal)
    err = np.abs(got - want) / spacing
    assert err[v > 0].max() <= 3.5, v[v > 0][np.argmax(err[v > 0])]
    assert err[v < 0].max() <= (1.0 if dtype == "float32" else 6.0), v[v < 0][np.argmax(err[v < 0])]


def test_special_values_are_scipys():
    x = T.dvector("x")
    got = irc.function([x], T.tri_gamma(x))(np.array([0.0, -0.0, -3.0, np.inf, -np.inf, np.nan, 1.0]))
    np.testing.assert_array_equal(got[:6], [np.inf, np.inf, np.inf, 0.0, np.inf, np.nan])
    assert got[6] == pytest.approx(np.pi ** 2 / 6, rel=1e-15)


def test_psi_has_theanos_gradient_and_tri_gamma_none():
    x = T.dvector("x")
    v = np.array([0.3, 1.7, 6.0, -0.4])
    g = irc.function([x], T.grad(T.psi(x).sum(), x))(v)
    np.testing.assert_allclose(g, [reference(a) for a in v], rtol=1e-13)
    assert T.tri_gamma(T.ivector()).dtype == "float64" and T.tri_gamma(T.bvector()).dtype == "float32"
    assert str(T.tri_gamma(x).owner.op) == "Elemwise{tri_gamma,no_inplace}"
    with pytest.raises(NotImplementedError, match="tri_gamma.* has no gradient"):  # (Theano's error too)
        T.grad(T.tri_gamma(x).sum(), x)
