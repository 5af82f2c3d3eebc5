"""T.arcsin, arccos, arctan, arctan2 (Theano's names): the math library's arctan kernel
(codegen_llvm/mathlib_atan.py) through irc.function, against numpy in float64 (the reference)
over the whole range — near +-1, where 1 - x^2 cancels; every quadrant of arctan2; signed zeros,
infinities and NaN as numpy gives them — within 1 ulp (docs/mathlib.md; the mathlib's own test
samples millions of points). Theano's dtype rules: integers upcast (int8/int16 to float32, wider
ones to float64), float16 stays float16. Gradients against central differences."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

UNARY = ["arcsin", "arccos", "arctan"]
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30]


def points(dtype: str) -> np.ndarray:
    rng = np.random.RandomState(0)
    near_one = 1 - np.logspace(-16 if dtype == "float64" else -7, -1, 400)
    return np.concatenate([rng.uniform(-1, 1, 3000), near_one, -near_one, rng.uniform(-50, 50, 500),
                           np.logspace(-30, 30, 200), -np.logspace(-30, 30, 200), SPECIAL]).astype(dtype)


def ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in ulps of the result's dtype; matching NaN/inf count 0."""
    dtype = got.dtype
    with np.errstate(all="ignore"):
        rounded = want.astype(dtype)
        finite = np.isfinite(rounded)
        spacing = np.maximum(np.spacing(np.abs(rounded)).astype("float64"), np.finfo(dtype).smallest_subnormal)
        err = np.abs(got.astype("float64") - want) / spacing
        same = (got == rounded) & (np.signbit(got) == np.signbit(rounded)) | np.isnan(got) & np.isnan(rounded)
    return np.where(finite, err, np.where(same, 0.0, np.inf))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_values_against_numpy(name, dtype):
    x = T.vector("x", dtype=dtype)
    v = points(dtype)
    got = irc.function([x], getattr(T, name)(x))(v)
    assert got.dtype == np.dtype(dtype)
    with np.errstate(invalid="ignore"):
        err = ulps(got, getattr(np, name)(v.astype("float64")))
    assert err.max() <= 1.0, f"{name} {dtype}: {err.max():.2f} ulp at {v[np.argmax(err)]!r}"
    zeros = irc.function([x], getattr(T, name)(x))(np.array([0.0, -0.0], dtype))
    assert list(np.signbit(zeros)) == list(np.signbit(getattr(np, name)(np.array([0.0, -0.0]))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arctan2_every_quadrant_and_the_special_pairs(dtype):
    rng = np.random.RandomState(1)
    special = np.array(SPECIAL + [3.0, -3.0])
    sy, sx = (a.ravel() for a in np.meshgrid(special, special))
    y = np.concatenate([rng.uniform(-5, 5, 2000), np.exp(rng.uniform(-60, 60, 500)) * rng.choice([-1, 1], 500), sy])
    x = np.concatenate([rng.uniform(-5, 5, 2000), np.exp(rng.uniform(-60, 60, 500)) * rng.choice([-1, 1], 500), sx])
    y, x = y.astype(dtype), x.astype(dtype)
    a, b = T.vector("a", dtype=dtype), T.vector("b", dtype=dtype)
    got = irc.function([a, b], T.arctan2(a, b))(y, x)
    err = ulps(got, np.arctan2(y.astype("float64"), x.astype("float64")))
    assert err.max() <= 1.0, f"{err.max():.2f} ulp at {(y[np.argmax(err)], x[np.argmax(err)])}"


def test_arctan2_broadcasts_a_scalar():
    y = T.dmatrix("y")
    f = irc.function([y], T.arctan2(y, -1))
    v = np.array([[0.0, -0.0], [2.0, -3.0]])
    np.testing.assert_array_equal(f(v), np.arctan2(v, -1.0))


@pytest.mark.parametrize("dtype, want", [("int8", "float32"), ("int16", "float32"), ("int32", "float64"),
                                         ("int64", "float64"), ("float16", "float16"), ("float32", "float32")])
def test_result_dtypes_follow_theano(dtype, want):
    x = T.vector("x", dtype=dtype)
    for name in UNARY:
        assert getattr(T, name)(x).dtype == want
    assert T.arctan2(x, x).dtype == want
    assert T.arctan2(x, T.bvector()).dtype == want  # int8 joins without widening
    v = np.array([0, 1, -1], dtype)
    got = irc.function([x], [T.arcsin(x), T.arctan2(x, x)])(v)
    rtol = 1e-3 if want == "float16" else 1e-6
    np.testing.assert_allclose(got[0], np.arcsin(v.astype("float64")), rtol=rtol)
    np.testing.assert_allclose(got[1], np.arctan2(v * 1.0, v * 1.0).astype(want), rtol=rtol)


def test_float16_rounds_the_float32_result_once():
    x = T.vector("x", dtype="float16")
    v = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)
    got = irc.function([x], [getattr(T, n)(x) for n in UNARY])(v)
    for name, g in zip(UNARY, got):
        with np.errstate(invalid="ignore"):
            assert ulps(g, getattr(np, name)(v.astype("float64"))).max() <= 0.501, name


@pytest.mark.parametrize("name", UNARY + ["arctan2"])
def test_gradients(name):
    x, y = T.dvector("x"), T.dvector("y")
    v, w = np.array([-0.9, 0.1, 0.7, -0.3]), np.array([0.4, -2.0, -0.6, 1.5])
    h = 1e-6
    if name == "arctan2":
        g = irc.function([x, y], T.grad(T.arctan2(x, y).sum(), [x, y]))(v, w)
        numeric = [(np.arctan2(v + h, w) - np.arctan2(v - h, w)) / (2 * h),
                   (np.arctan2(v, w + h) - np.arctan2(v, w - h)) / (2 * h)]
    else:
        g = [irc.function([x], T.grad(getattr(T, name)(x).sum(), x))(v)]
        numeric = [(getattr(np, name)(v + h) - getattr(np, name)(v - h)) / (2 * h)]
    for got, want in zip(g, numeric):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_they_print_as_theanos_ops():
    x = T.vector("x")
    assert [str(getattr(T, n)(x).owner.op) for n in UNARY] == \
        ["Elemwise{arcsin,no_inplace}", "Elemwise{arccos,no_inplace}", "Elemwise{arctan,no_inplace}"]
    assert str(T.arctan2(x, x).owner.op) == "Elemwise{arctan2,no_inplace}"
