"""T.tan, sinh, cosh, arcsinh, arccosh, arctanh, trunc, deg2rad, rad2deg (Theano's names): table
rows written as expansions over the math library's functions. Against numpy in float64 (the
reference), over wide ranges and the special values, within the bounds of docs/mathlib.md
(`BOUND`; tan over sin and cos's reduced range, |x| ≤ 2^24 in float32, 2^52 in float64); NaN and
±inf where numpy gives them. Gradients against central differences (float64, rtol 1e-6)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

NAMES = ["tan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "trunc", "deg2rad", "rad2deg"]
BOUND = {"tan": 3.5, "sinh": 2.5, "cosh": 2.5, "arccosh": 3.5, "arctanh": 2.0}  # ulp; the others 1.5
TAN_DOMAIN = {"float32": 2.0 ** 24, "float64": 2.0 ** 52}


def points(dtype: str) -> np.ndarray:
    rng = np.random.RandomState(0)
    return np.concatenate([
        rng.uniform(-5, 5, 4000), rng.uniform(-1, 1, 2000), 1 + np.logspace(-7, 0, 300),
        np.logspace(-30, 30, 300), -np.logspace(-30, 30, 300),
        [0.0, -0.0, 1.0, -1.0, 88.9, 89.5, 700.0, 710.0, 3e8, np.inf, -np.inf, np.nan]]).astype(dtype)


@pytest.fixture(scope="module", params=["float32", "float64"])
def computed(request):
    dtype = request.param
    x = T.vector("x", dtype=dtype)
    f = irc.function([x], [getattr(T, n)(x) for n in NAMES])
    v = points(dtype)
    return dtype, v, dict(zip(NAMES, f(v)))


@pytest.mark.parametrize("name", NAMES)
def test_values_against_numpy(computed, name):
    dtype, v, got = computed
    got = got[name]
    if name == "tan":
        keep = ~(np.abs(v) > TAN_DOMAIN[dtype])  # sin and cos's reduced range (docs/mathlib.md)
        v, got = v[keep], got[keep]
    with np.errstate(all="ignore"):
        want = getattr(np, name)(v.astype("float64"))
        rounded = want.astype(dtype)  # (overflows to inf in float32 where numpy's float32 does)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(rounded), err_msg=f"{name}: NaN where numpy")
    finite = np.isfinite(rounded)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(rounded)], rounded[~finite & ~np.isnan(rounded)])
    spacing = np.spacing(np.abs(rounded[finite])).astype("float64")
    tiny = np.finfo(dtype).tiny
    ulp = np.abs(got[finite].astype("float64") - want[finite]) / np.maximum(spacing, tiny)
    assert ulp.max() <= BOUND.get(name, 1.5), f"{name} {dtype}: {ulp.max():.2f} ulp at {v[finite][np.argmax(ulp)]!r}"


@pytest.mark.parametrize("name", [n for n in NAMES if n != "trunc"])
def test_gradients(name):
    x = T.dvector("x")
    g = irc.function([x], T.grad(getattr(T, name)(x).sum(), x))
    v = np.array({"arccosh": [1.5, 3.0, 40.0], "arctanh": [-0.9, 0.1, 0.7]}.get(name, [-2.0, 0.3, 1.7]))
    h = 1e-6
    numeric = (getattr(np, name)(v + h) - getattr(np, name)(v - h)) / (2 * h)
    np.testing.assert_allclose(g(v), numeric, rtol=1e-6)


def test_they_print_as_theanos_ops():
    x = T.vector("x")
    assert [str(getattr(T, n)(x).owner.op) for n in ("sinh", "tan", "deg2rad")] == \
        ["Elemwise{sinh,no_inplace}", "Elemwise{tan,no_inplace}", "Elemwise{deg2rad,no_inplace}"]
