"""T.erfcx (exp(x²)·erfc(x), scaled so it never overflows for large x) and T.ceil_intdiv
(ceil(a / b) without floats), Theano's names. erfcx against an mpmath reference in float64
within docs/mathlib.md's bounds (2 ulp float32, 1.75 float64; the mathlib's own test samples millions of points),
where erfc itself has underflowed (x > 27) and where 2·exp(x²) overflows (x < −26.6: inf, as
scipy); its gradient 2x·erfcx(x) − 2/√π against central differences. ceil_intdiv against
numpy's −(−a // b) on every integer dtype pair, int64 beyond 2^53 included, with Theano's dtypes."""
from __future__ import annotations

import math

import numpy as np
import pytest

import irc
import irc.tensor as T

mp = pytest.importorskip("mpmath")


def erfcx_reference(x: float) -> float:
    if x < -27:
        return math.inf
    with mp.workdps(40):
        if x < 1000:
            return float(mp.erfc(x) * mp.exp(mp.mpf(x) ** 2))
        u = 1 / (2 * mp.mpf(x) ** 2)  # the asymptotic series: exp(x²) has too many digits here
        return float(mp.fsum((-1) ** k * mp.fac2(2 * k - 1) * u ** k for k in range(12)) / (mp.sqrt(mp.pi) * x))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfcx_against_mpmath(dtype):
    rng = np.random.RandomState(0)
    v = np.concatenate([rng.uniform(-9, 40, 1500), rng.uniform(-1, 1, 500), np.logspace(-20, 30, 200),
                        -np.logspace(-20, 0.9, 100), [0.0, -0.0, 0.75, -0.75, 10.1, 27.25, -26.0, -30.0, 1e30,
                                                      np.inf, -np.inf, np.nan]]).astype(dtype)
    x = T.vector("x", dtype=dtype)
    got = irc.function([x], T.erfcx(x))(v)
    assert got.dtype == np.dtype(dtype)
    want = np.array([erfcx_reference(float(a)) if not np.isnan(a) else np.nan for a in v])
    with np.errstate(over="ignore"):
        rounded = want.astype(dtype)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(rounded))
    np.testing.assert_array_equal(got[np.isinf(rounded)], rounded[np.isinf(rounded)])
    finite = np.isfinite(rounded)
    spacing = np.maximum(np.spacing(np.abs(rounded[finite])).astype("float64"), np.finfo(dtype).smallest_subnormal)
    err = np.abs(got[finite] - want[finite]) / spacing
    assert err.max() <= (2.0 if dtype == "float32" else 1.75), f"{err.max():.2f} ulp at {v[finite][np.argmax(err)]!r}"


def test_erfcx_does_not_overflow_where_erfc_underflows():
    x = T.dvector("x")
    got = irc.function([x], [T.erfcx(x), T.exp(x * x) * T.erfc(x)])(np.array([30.0, 1e10]))
    np.testing.assert_allclose(got[0], 1 / (np.sqrt(np.pi) * np.array([30.0, 1e10])), rtol=1e-3)
    assert np.all(np.isnan(got[1]) | (got[1] == 0))  # the naive form: inf·0 or 0


def test_erfcx_gradient_and_integer_upcast():
    x = T.dvector("x")
    v = np.array([-1.5, -0.3, 0.2, 0.9, 3.0, 12.0])
    g = irc.function([x], T.grad(T.erfcx(x).sum(), x))(v)
    h = 1e-6
    numeric = [(erfcx_reference(a + h) - erfcx_reference(a - h)) / (2 * h) for a in v]
    np.testing.assert_allclose(g, numeric, rtol=1e-6)
    assert T.erfcx(T.bvector()).dtype == "float32" and T.erfcx(T.ivector()).dtype == "float64"
    assert str(T.erfcx(x).owner.op) == "Elemwise{erfcx,no_inplace}"


@pytest.mark.parametrize("da, db", [("int8", "int8"), ("int16", "int32"), ("int64", "int64"), ("int32", "int8")])
def test_ceil_intdiv_integers(da, db):
    rng = np.random.RandomState(1)
    a = rng.randint(-100, 100, 400).astype(da)
    b = rng.randint(1, 20, 400).astype(db) * rng.choice([-1, 1], 400).astype(db)
    x, y = T.vector("x", dtype=da), T.vector("y", dtype=db)
    out = T.ceil_intdiv(x, y)
    assert out.dtype == np.result_type(da, db).name
    np.testing.assert_array_equal(irc.function([x, y], out)(a, b), -(-a // b))


def test_ceil_intdiv_is_exact_beyond_float_precision():
    x, y = T.lvector("x"), T.lvector("y")
    a = np.array([2 ** 62 + 1, -(2 ** 62) - 1, 2 ** 53 + 1, 7])
    b = np.array([2, 2, 2, 7])
    np.testing.assert_array_equal(irc.function([x, y], T.ceil_intdiv(x, y))(a, b), -(-a // b))


def test_ceil_intdiv_floats_follow_theanos_definition():
    x, y = T.dvector("x"), T.dvector("y")
    a, b = np.array([0.5, -2.5, 3.0, 7.25]), np.array([0.2, 1.5, 1.5, -2.0])
    np.testing.assert_array_equal(irc.function([x, y], T.ceil_intdiv(x, y))(a, b), a // b + (a % b != 0))
