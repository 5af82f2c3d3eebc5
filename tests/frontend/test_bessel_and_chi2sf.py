"""T.j0, j1, jv, i0, i1, iv and T.chi2sf (Theano's theano/scalar/basic_scipy.py ops) through
irc.function: values against mpmath on the ranges Theano's testers use (rtol = atol = 1e-10 in
float64, their eps; 1e-6 in float32), Theano's result dtypes, and Theano's gradients: j0' = -j1,
j1' = (j0 - J_2)/2, i0' = i1, i1' = (i0 + I_2)/2, jv and iv by x only (the order's gradient is
undefined: an error only where it is needed), chi2sf none."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

mp = pytest.importorskip("mpmath")


def mp_j(v, x):
    return float(mp.re(mp.besselj(v, x)))


def mp_i(v, x):
    return float(mp.re(mp.besseli(v, x)))


def mp_chi2sf(x, k):
    return float(mp.gammainc(k / 2, x / 2, mp.inf, regularized=True)) if x > 0 else 1.0


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-10), ("float32", 1e-6)])
def test_unary_functions_on_theanos_range(dtype, tol):
    x = T.vector("x", dtype=dtype)
    v = np.random.RandomState(0).uniform(-10, 10, 600).astype(dtype)
    f = irc.function([x], [T.j0(x), T.j1(x), T.i0(x), T.i1(x)])
    for got, want in zip(f(v), ([mp_j(0, a) for a in v], [mp_j(1, a) for a in v],
                                [mp_i(0, a) for a in v], [mp_i(1, a) for a in v])):
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_orders_and_arguments_of_theanos_binary_tester():
    """JvTester/IvTester: v in (-5, 5), x in (0, 10); integers v in [-5, 5), x in [-10, 10)."""
    rng = np.random.RandomState(1)
    v, x = T.dmatrix("v"), T.dmatrix("x")
    f = irc.function([v, x], [T.jv(v, x), T.iv(v, x)])
    for vv, xv in ((rng.uniform(-5, 5, (20, 30)), rng.uniform(0, 10, (20, 30))),
                   (rng.randint(-5, 5, (20, 30)).astype(float), rng.randint(-10, 10, (20, 30)).astype(float))):
        j, i = f(vv, xv)
        np.testing.assert_allclose(j, np.vectorize(mp_j)(vv, xv), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(i, np.vectorize(mp_i)(vv, xv), rtol=1e-10, atol=1e-10)


def test_non_integer_orders_of_negative_arguments_are_nan():
    v, x = T.dvector("v"), T.dvector("x")
    got = irc.function([v, x], T.jv(v, x))(np.array([0.5, 2.0, -1.5]), np.array([-1.0, -1.0, -2.0]))
    assert np.isnan(got[0]) and np.isnan(got[2])
    assert got[1] == pytest.approx(mp_j(2, -1.0), rel=1e-14)


def test_chi2sf():
    x, k = T.dvector("x"), T.dvector("k")
    xv = np.array([0.5, 1.0, 3.84, 10.0, 30.0, 0.0, -1.0])
    kv = np.array([1.0, 1.0, 1.0, 4.0, 20.0, 3.0, 2.0])
    got = irc.function([x, k], T.chi2sf(x, k))(xv, kv)
    np.testing.assert_allclose(got, [mp_chi2sf(a, b) for a, b in zip(xv, kv)], rtol=1e-13)
    assert T.chi2sf(T.bvector(), 1.0).dtype == "float64"   # the constant 1.0 is float64 (floatX)
    assert T.chi2sf(T.fvector(), np.float32(1)).dtype == "float32"


def test_theanos_dtypes_and_names():
    assert T.j0(T.bvector()).dtype == "float32" and T.j0(T.ivector()).dtype == "float64"
    assert T.i1(T.wvector()).dtype == "float32" and T.jv(T.bvector(), T.bvector()).dtype == "float32"
    assert T.iv(T.lvector(), T.fvector()).dtype == "float64"
    assert str(T.j0(T.dvector()).owner.op) == "Elemwise{j0,no_inplace}"
    assert str(T.chi2sf(T.dvector(), T.dvector()).owner.op) == "Elemwise{chi2sf,no_inplace}"


def numeric(fn, x, h=1e-6):
    return (fn(x + h) - fn(x - h)) / (2 * h)


@pytest.mark.parametrize("name,kind,order", [("j0", "J", 0), ("j1", "J", 1), ("i0", "I", 0), ("i1", "I", 1)])
def test_fixed_order_gradients(name, kind, order):
    x = T.dvector("x")
    g = irc.function([x], T.grad(getattr(T, name)(x).sum(), x))
    v = np.array([-7.3, -0.4, 0.9, 3.3, 9.1])
    ref = np.vectorize(mp_j if kind == "J" else mp_i)
    np.testing.assert_allclose(g(v), numeric(lambda a: ref(order, a), v), rtol=1e-7, atol=1e-9)


def test_jv_iv_gradient_by_x_only():
    v, x = T.dvector("v"), T.dvector("x")
    vv, xv = np.array([1.3, -2.5, 3.0]), np.array([0.7, 4.0, 8.5])
    for fn, ref in ((T.jv, mp_j), (T.iv, mp_i)):
        g = irc.function([v, x], T.grad(fn(v, x).sum(), x))   # v symbolic, not differentiated: fine
        np.testing.assert_allclose(g(vv, xv), numeric(lambda a: np.vectorize(ref)(vv, a), xv), rtol=1e-7)
        with pytest.raises(NotImplementedError, match="no gradient with respect to its float input v"):
            T.grad(fn(v, x).sum(), v)
    with pytest.raises(NotImplementedError, match="chi2sf"):
        T.grad(T.chi2sf(x, 1.0).sum(), x)
