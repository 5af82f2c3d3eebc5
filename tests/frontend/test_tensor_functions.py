"""The tensor functions of Theano's API added on the new ops and as compositions: values
against numpy (float64 exact or 1e-12 relative, float32 1e-6 relative), gradients against
central finite differences (float64, 1e-6 relative), and every graph compiled natively (a
fallback to the reference executor would warn: warnings are errors here)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime import native_executor
from irc.runtime.errors import ExecutionError

RNG = np.random.default_rng(3)
X = RNG.normal(size=(3, 4))


def native(inputs, outputs, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return irc.function(inputs, outputs, **kw)


@pytest.mark.parametrize("build,reference", [
    (lambda x: T.zeros((x.shape[0], 2)), lambda v: np.zeros((v.shape[0], 2))),
    (lambda x: T.ones((2, x.shape[1] + 1), "int32"), lambda v: np.ones((2, v.shape[1] + 1), "int32")),
    (lambda x: T.alloc(x.sum(), x.shape[1], 2), lambda v: np.full((v.shape[1], 2), v.sum())),
    (lambda x: T.alloc(x[0], 2, x.shape[1]), lambda v: np.broadcast_to(v[0], (2, v.shape[1]))),
    (lambda x: T.arange(x.shape[1]), lambda v: np.arange(v.shape[1])),
    (lambda x: T.arange(x.shape[0] * 4, 1, -3), lambda v: np.arange(v.shape[0] * 4, 1, -3)),
    (lambda x: T.arange(2, 7), lambda v: np.arange(2, 7)),
    (lambda x: T.arange(0.5, 2.0, 0.25), lambda v: np.arange(0.5, 2.0, 0.25)),
    (lambda x: T.eye(x.shape[0], x.shape[1], k=1), lambda v: np.eye(*v.shape, k=1)),
    (lambda x: T.identity_like(x), lambda v: np.eye(*v.shape)),
    (lambda x: T.tile(x, (2, 3)), lambda v: np.tile(v, (2, 3))),
    (lambda x: T.tile(x[0], (2, 2)), lambda v: np.tile(v[0], (2, 2))),
    (lambda x: T.repeat(x, 2, axis=0), lambda v: np.repeat(v, 2, axis=0)),
    (lambda x: T.repeat(x, 3), lambda v: np.repeat(v, 3)),
    (lambda x: T.diag(x[0]), lambda v: np.diag(v[0])),
    (lambda x: T.diag(x[:, :3]), lambda v: np.diag(v[:, :3])),
    (lambda x: T.split(x, [1, 3], 2, axis=1)[1].T, lambda v: v[:, 1:].T),
    (lambda x: T.tensordot(x, x, [[0], [0]]), lambda v: np.tensordot(v, v, [[0], [0]])),
    (lambda x: T.tensordot(x, x.T, 1), lambda v: np.tensordot(v, v.T, 1)),
    (lambda x: T.batched_dot(x, x), lambda v: np.einsum("bk,bk->b", v, v)),
    (lambda x: T.batched_dot(x.reshape((3, 2, 2)), x.reshape((3, 2, 2))),
     lambda v: np.einsum("bnk,bkm->bnm", v.reshape(3, 2, 2), v.reshape(3, 2, 2))),
    (lambda x: T.cumsum(x, axis=1), lambda v: np.cumsum(v, axis=1)),
    (lambda x: T.cumsum(x), lambda v: np.cumsum(v)),
    (lambda x: T.cumprod(x, axis=0), lambda v: np.cumprod(v, axis=0)),
    (lambda x: T.sort(x), lambda v: np.sort(v)),
    (lambda x: T.sort(x, axis=0), lambda v: np.sort(v, axis=0)),
    (lambda x: T.argsort(x), lambda v: np.argsort(v, kind="stable")),
    (lambda x: T.argsort(x, axis=None), lambda v: np.argsort(v, axis=None, kind="stable")),
    (lambda x: T.specify_shape(x, (3, 4)) * 2, lambda v: v * 2),
    (lambda x: T.addbroadcast(x[:1], 0) + x, lambda v: v[:1] + v),
    (lambda x: T.nnet.logsoftmax(x), lambda v: v - v.max(1, keepdims=True)
     - np.log(np.exp(v - v.max(1, keepdims=True)).sum(1, keepdims=True))),
    (lambda x: T.round_half_to_even(x * 2), lambda v: np.rint(v * 2)),
])
def test_values_match_numpy(build, reference):
    x = T.dmatrix("x")
    out = native([x], build(x), on_unused_input="ignore")(X)
    expected = reference(X)
    assert out.dtype == expected.dtype or (expected.dtype == np.float64 and out.dtype == irc.config.floatX)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def test_float32_values():
    x = T.fmatrix("x")
    x32 = X.astype("float32")
    f = native([x], [T.cumsum(x, 1), T.sort(x), T.tile(x, (1, 2)), T.tensordot(x, x.T, 1)])
    refs = [np.cumsum(x32, 1), np.sort(x32), np.tile(x32, (1, 2)), np.tensordot(x32, x32.T, 1)]
    for got, ref in zip(f(x32), refs):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)


def test_sort_puts_nan_last_and_is_stable():
    v = T.dvector("v")
    data = np.array([3.0, np.nan, 1.0, 3.0, -np.inf, 1.0])
    values, order = native([v], [T.sort(v), T.argsort(v)])(data)
    np.testing.assert_array_equal(values, np.sort(data))
    np.testing.assert_array_equal(order, np.argsort(data, kind="stable"))
    i = T.ivector("i")
    np.testing.assert_array_equal(native([i], T.sort(i))(np.array([5, -2, 7, 0], "int32")), [-2, 0, 5, 7])


def _fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        g[idx] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("build", [
    lambda x: T.cumsum(x, axis=1),
    lambda x: T.cumprod(x + 3.0, axis=0),
    lambda x: T.sort(x, axis=1),
    lambda x: T.sort(x, axis=0),
    lambda x: T.tile(x, (2, 1)),
    lambda x: T.repeat(x, 2, axis=1),
    lambda x: T.diag(x[:, :3]),
    lambda x: T.tensordot(x, x, [[1], [1]]),
    lambda x: T.batched_dot(x, x),
    lambda x: T.alloc(x[0], 2, x.shape[1]),
    lambda x: T.specify_shape(x, (3, 4)),
], ids=["cumsum", "cumprod", "sort1", "sort0", "tile", "repeat", "diag", "tensordot", "batched_dot",
        "alloc", "specify_shape"])
def test_gradients_match_finite_differences(build):
    x = T.dmatrix("x")
    out = build(x)
    f_out = native([x], out)
    ref = f_out(X)
    wv = RNG.normal(size=ref.shape)
    cost = (out * T.constant(wv)).sum()
    g = native([x], T.grad(cost, x))(X)
    f_cost = native([x], cost)
    np.testing.assert_allclose(g, _fd_grad(lambda v: f_cost(v), X), rtol=1e-6, atol=1e-8)


def test_size_read_from_data_warns_and_still_computes(monkeypatch):
    # (the warning is given once per op name and process: a test before this one may have had it)
    monkeypatch.setattr(native_executor, "_warned", set())
    n = T.lscalar("n")
    with pytest.warns(RuntimeWarning, match="size read from the data"):
        f = irc.function([n], T.arange(n))
    np.testing.assert_array_equal(f(4), np.arange(4))


def test_run_time_checks():
    x = T.dmatrix("x")
    with pytest.raises(ExecutionError, match="tensor.alloc"):
        native([x], T.specify_shape(x, (2, 4)))(X)
    np.testing.assert_array_equal(native([x], T.diag(x))(X), np.diag(X))  # not square: numpy's diagonal
    with pytest.raises(ValueError, match="reps must be ints or 0-d integer tensors"):
        T.tile(x, (T.dscalar(), 2))   # (symbolic integer counts: tests/frontend/test_theano_api_details.py)
    with pytest.raises(TypeError, match="must be an integer"):
        T.zeros((2.5, 3))


@pytest.mark.parametrize("dtype,rtol", [("float32", 1e-6), ("float64", 1e-14)])
def test_erf_erfc_values_and_gradients(dtype, rtol):
    """Against Python's math.erf/erfc (float64; the mathlib's ulp bounds are checked in
    tests/codegen_cpu/test_mathlib.py)."""
    x = T.vector("x", dtype=dtype)
    values = np.array([-6.0, -2.5, -1.0, -0.3, 0.0, 1e-5, 0.5, 0.8, 1.7, 2.2, 3.9, 4.5, 9.5], dtype)
    erf, erfc, g = native([x], [T.erf(x), T.erfc(x), T.grad((T.erf(x) - 2 * T.erfc(x)).sum(), x)])(values)
    assert erf.dtype == erfc.dtype == dtype
    np.testing.assert_allclose(erf, [math.erf(v) for v in values], rtol=rtol, atol=0)
    np.testing.assert_allclose(erfc, [math.erfc(v) for v in values], rtol=rtol, atol=0)
    d = 2 / math.sqrt(math.pi) * np.exp(-values.astype(np.float64) ** 2)
    np.testing.assert_allclose(g, 3 * d, rtol=max(rtol, 1e-12) * 10, atol=1e-37)


def test_broadcast_pattern_functions():
    r = T.drow("r")
    u = T.unbroadcast(r, 0)
    assert u.broadcastable == (False, False)
    m = T.dmatrix("m")
    p = T.patternbroadcast(m, (True, False))
    assert p.broadcastable == (True, False)
    f = native([r], u * 2)
    np.testing.assert_array_equal(f(np.ones((1, 3))), 2 * np.ones((1, 3)))
    g = native([m], p + 1)
    np.testing.assert_array_equal(g(np.zeros((1, 2))), np.ones((1, 2)))
    with pytest.raises(ExecutionError):
        g(np.zeros((2, 2)))  # the dim declared broadcastable must have size 1


def test_digamma_reference_known_values():
    """The float64 reference of psi (Python has none): psi(1) = -gamma, psi(1/2) = -gamma -
    2 log 2, psi(n + 1) = H_n - gamma, the reflection at -1/2, the poles."""
    from irc.dialects.elementwise import TABLE
    psi = TABLE["psi"].reference
    euler = 0.5772156649015329
    np.testing.assert_allclose(psi(np.array([1.0, 0.5, 11.0, 101.0, -0.5])),
                               [-euler, -euler - 2 * math.log(2), sum(1 / k for k in range(1, 11)) - euler,
                                sum(1 / k for k in range(1, 101)) - euler, 2 - euler - 2 * math.log(2)],
                               rtol=2e-15, atol=2e-16)  # absolute near the roots
    assert np.isnan(psi(np.array(-3.0))) and psi(np.array(0.0)) == -np.inf


@pytest.mark.parametrize("dtype,rtol", [("float32", 2e-6), ("float64", 2e-14)])
def test_gammaln_psi_values_and_gradient(dtype, rtol):
    """Values against math.lgamma and the psi reference for x > 0 (the mathlib's ulp bounds:
    tests/codegen_cpu/test_mathlib.py); d gammaln / dx = psi; d psi / dx = tri_gamma (Theano's)."""
    from irc.dialects.elementwise import TABLE
    x = T.vector("x", dtype=dtype)
    values = np.array([1e-3, 0.3, 0.5, 1.0, 1.3, 2.0, 2.7, 5.5, 9.99, 12.5, 100.0, 1e4], dtype)
    lg, ps, g = native([x], [T.gammaln(x), T.psi(x), T.grad(T.gammaln(x).sum(), x)])(values)
    np.testing.assert_allclose(lg, [math.lgamma(v) for v in values], rtol=rtol, atol=0)
    ref_psi = TABLE["psi"].reference(values.astype(np.float64))
    np.testing.assert_allclose(ps, ref_psi, rtol=rtol, atol=0)
    np.testing.assert_array_equal(g, ps)
    dpsi, tri = native([x], [T.grad(T.psi(x).sum(), x), T.tri_gamma(x)])(values)
    np.testing.assert_array_equal(dpsi, tri)


@pytest.mark.parametrize("dtype,rtol", [("float32", 2e-6), ("float64", 2e-14)])
def test_gamma_values_and_gradient(dtype, rtol):
    """Values against math.gamma (the mathlib's ulp bounds: tests/codegen_cpu/test_mathlib.py),
    the poles as scipy's gamma, d gamma / dx = gamma psi."""
    from irc.dialects.elementwise import TABLE
    x = T.vector("x", dtype=dtype)
    top = 34.5 if dtype == "float32" else 170.5
    values = np.array([1e-3, 0.3, 0.5, 1.0, 1.3, 2.0, 2.7, 5.5, 9.99, 12.5, top, -0.5, -2.3, -15.6], dtype)
    gm, g = native([x], [T.gamma(x), T.grad(T.gamma(x).sum(), x)])(values)
    np.testing.assert_allclose(gm, [math.gamma(v) for v in values.astype(np.float64)], rtol=rtol, atol=0)
    np.testing.assert_allclose(g, gm * TABLE["psi"].reference(values.astype(np.float64)), rtol=rtol * 10)
    poles = native([x], T.gamma(x))(np.array([0.0, -0.0, -3.0, np.inf, 200.0], dtype))
    np.testing.assert_array_equal(poles, [np.inf, -np.inf, np.nan, np.inf, np.inf])


@pytest.mark.parametrize("dtype,rtol", [("float32", 2e-6), ("float64", 2e-14)])
def test_erfcinv_values_and_gradient(dtype, rtol):
    """erfc(erfcinv(y)) = y down to the smallest denormal (where erfinv(1 - y) would give inf),
    values against the float64 reference, d erfcinv/dy = -sqrt(pi)/2 exp(erfcinv(y)^2)."""
    from irc.dialects.elementwise import TABLE
    y = T.vector("y", dtype=dtype)
    tiny = np.finfo(dtype).smallest_subnormal
    values = np.array([tiny, 1e-30, 1e-6, 0.1, 0.5, 1.0, 1.5, 1.9, 2 - 1e-6], dtype)
    inv, g = native([y], [T.erfcinv(y), T.grad(T.erfcinv(y).sum(), y)])(values)
    ref = TABLE["erfcinv"].reference(values.astype(np.float64))
    np.testing.assert_allclose(inv, ref, rtol=rtol, atol=0)
    np.testing.assert_allclose([math.erfc(v) for v in inv[1:].astype(np.float64)], values[1:], rtol=rtol * 50)
    assert np.isfinite(inv[0]) and inv[0] > 5
    with np.errstate(over="ignore"):  # at the smallest denormal the slope overflows float32
        slope = (-math.sqrt(math.pi) / 2 * np.exp(ref ** 2)).astype(dtype)
    np.testing.assert_allclose(g, slope, rtol=rtol * 20)
    ends = native([y], T.erfcinv(y))(np.array([0.0, 2.0, -1.0, 3.0], dtype))
    np.testing.assert_array_equal(ends, [np.inf, -np.inf, np.nan, np.nan])


@pytest.mark.parametrize("dtype,rtol", [("float32", 2e-6), ("float64", 2e-14)])
def test_erfinv_values_and_gradient(dtype, rtol):
    """erf(erfinv(y)) = y, values against the float64 reference, d erfinv/dy = sqrt(pi)/2
    exp(erfinv(y)^2)."""
    from irc.dialects.elementwise import TABLE
    y = T.vector("y", dtype=dtype)
    values = np.array([-0.999, -0.5, -1e-6, 0.0, 0.1, 0.5, 0.9, 0.999, 0.99999], dtype)
    inv, g = native([y], [T.erfinv(y), T.grad(T.erfinv(y).sum(), y)])(values)
    ref = TABLE["erfinv"].reference(values.astype(np.float64))
    np.testing.assert_allclose(inv, ref, rtol=rtol, atol=0)
    np.testing.assert_allclose(g, math.sqrt(math.pi) / 2 * np.exp(ref ** 2), rtol=rtol * 20)
    assert np.isinf(native([y], T.erfinv(y))(np.array([1.0], dtype))).all()
