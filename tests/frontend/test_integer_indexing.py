"""Integer indexing runs as native code: constant and symbolic indices, negative ones, out of
range (an IndexError naming the user's line, at run time), gradients, set/inc_subtensor —
against numpy, for float32, float64 and integer dtypes. Tolerances: exact (indexing and
scattering copy values; the gradients here are sums of at most a few ones)."""
from __future__ import annotations

import os

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.ir.parser import parse_module
from irc.runtime.errors import IndexOutOfRangeError
from irc.runtime.reference import ReferenceExecutor

DTYPES = ["float32", "float64", "int32", "int64"]
RNG = np.random.default_rng(12)


def native(inputs, outputs, **kw):
    """A compiled function that must run as native code (no reference-executor fallback)."""
    f = irc.function(inputs, outputs, **kw)
    assert type(f.executor).__name__ == "NativeExecutor", "fell back to the reference executor"
    return f


def data(shape, dtype):
    return (RNG.standard_normal(shape) * 10).astype(dtype)


def vector(dtype):
    return T.TensorType(dtype, (False,))()


def matrix(dtype):
    return T.TensorType(dtype, (False, False))()


@pytest.mark.parametrize("dtype", DTYPES)
def test_constant_indices(dtype):
    x, m = vector(dtype), matrix(dtype)
    f = native([x, m], [x[1], x[-1], m[1], m[2, 3], m[-1, -4], m[:, 2], m[1, 1:3], m[None, 0]])
    xv, mv = data(5, dtype), data((3, 4), dtype)
    got = f(xv, mv)
    want = [xv[1], xv[-1], mv[1], mv[2, 3], mv[-1, -4], mv[:, 2], mv[1, 1:3], mv[None, 0]]
    for g, w in zip(got, want):
        assert g.dtype == np.dtype(dtype) and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", DTYPES)
def test_symbolic_indices(dtype):
    x, m = vector(dtype), matrix(dtype)
    i, j = T.lscalar("i"), T.iscalar("j")
    f = native([x, m, i, j], [x[i], m[i], m[i, j], m[:, j], x[i + 1], m[-1, j]])
    xv, mv = data(6, dtype), data((3, 4), dtype)
    for iv, jv in [(0, 0), (2, 3), (-1, -2), (-3, 1), (1, -4)]:
        got = f(xv, mv, iv, np.int32(jv))
        want = [xv[iv], mv[iv], mv[iv, jv], mv[:, jv], xv[iv + 1], mv[-1, jv]]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_index_from_a_computed_value():
    x = T.dvector()
    f = native([x], x[T.argmax(x)] + x[T.argmin(x)])
    xv = data(7, "float64")
    assert f(xv) == xv.max() + xv.min()


def test_a_0d_integer_array_indexes_as_an_integer():
    x, m = T.dvector(), T.dmatrix()
    f = native([x, m], [x[np.array(2)], m[np.array(-1), np.array(1, dtype=np.int32)], m[np.array(1)]])
    xv, mv = data(5, "float64"), data((3, 4), "float64")
    want = [xv[np.array(2)], mv[np.array(-1), np.array(1, dtype=np.int32)], mv[np.array(1)]]
    for g, w in zip(f(xv, mv), want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("index", [3, -4, 100])
def test_constant_index_out_of_range_raises_at_run_time(index):
    x = T.dvector()
    f = native([x], x[index] * 2)
    with pytest.raises(IndexError) as info:
        f(np.arange(3.0))  # line-marker: constant-out-of-range
    message = str(info.value)
    assert isinstance(info.value, IndexOutOfRangeError)
    assert "'tensor.index'" in message and "index out of range for axis 0" in message
    assert "test_integer_indexing.py" in message and "x[index] * 2" in message
    np.testing.assert_array_equal(f(np.arange(float(abs(index) + 1))), 2 * np.arange(abs(index) + 1.0)[index])


def test_symbolic_index_out_of_range_raises_naming_the_line():
    m, i, j = T.fmatrix(), T.lscalar(), T.lscalar()
    f = native([m, i, j], m[i, j])
    mv = data((2, 3), "float32")
    for iv, jv, axis in [(2, 0, 0), (-3, 0, 0), (0, 3, 1), (1, -4, 1), (2**40, 0, 0)]:
        with pytest.raises(IndexError, match=rf"index out of range for axis {axis}") as info:
            f(mv, iv, jv)
        assert "m[i, j])" in str(info.value) and "test_integer_indexing.py" in str(info.value)
    assert f(mv, 1, 2) == mv[1, 2]  # the function still works after a failed call


def test_empty_axis_has_no_valid_index():
    x, i = T.dvector(), T.lscalar()
    f = native([x, i], x[i])
    for iv in (0, -1):
        with pytest.raises(IndexError):
            f(np.zeros(0), iv)


INDEX_IR = """
func.func @f(%x: tensor<?xf64>, %i: tensor<i64>) -> tensor<f64> {
  %0 = tensor.index %x, %i {axes = array<i64: 0>} : (tensor<?xf64>, tensor<i64>) -> tensor<f64> loc("user.py":7:3)
  func.return %0 : tensor<f64>
}
"""


def test_reference_executor_raises_index_error_too():
    func = parse_module(INDEX_IR).body.ops[0]
    ex = ReferenceExecutor(func)
    assert ex.run([np.arange(3.0), np.array(-1)])[0] == 2.0
    with pytest.raises(IndexOutOfRangeError, match="index 5 is out of range for axis 0 of size 3") as info:
        ex.run([np.arange(3.0), np.array(5)])
    assert "user.py:7" in str(info.value)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_through_integer_indices(dtype):
    x, m, i, j = vector(dtype), matrix(dtype), T.lscalar(), T.lscalar()
    cost = 3 * x[i] + x[-1] * x[i] + T.sum(m[i] ** 2) + 5 * m[i, j] + m[1, j]
    gx, gm = T.grad(cost, [x, m])
    f = native([x, m, i, j], [gx, gm])
    xv, mv = data(4, dtype), data((3, 5), dtype)
    for iv, jv in [(0, 1), (-1, -1), (2, 4), (1, 0)]:
        gxv, gmv = f(xv, mv, iv, jv)
        want_x = np.zeros_like(xv)
        want_x[iv] += 3 + xv[-1]
        want_x[-1] += xv[iv]
        want_m = np.zeros_like(mv)
        want_m[iv] += 2 * mv[iv]
        want_m[iv, jv] += 5
        want_m[1, jv] += 1
        tol = dict(rtol=1e-6, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(gxv, want_x, **tol)
        np.testing.assert_allclose(gmv, want_m, **tol)
        assert gxv.dtype == np.dtype(dtype) and gmv.dtype == np.dtype(dtype)


def test_gradient_with_respect_to_the_index_is_disconnected():
    x, i = T.dvector(), T.lscalar()
    with pytest.raises(Exception):
        T.grad(x[i], i)


@pytest.mark.parametrize("dtype", DTYPES)
def test_set_and_inc_subtensor_with_integer_indices(dtype):
    m, i = matrix(dtype), T.lscalar()
    row = vector(dtype)
    outs = [T.set_subtensor(m[i], row), T.inc_subtensor(m[i, 1], 7), T.set_subtensor(m[-1, 1:3], 0),
            T.inc_subtensor(m[:, i], row[:3])]
    f = native([m, i, row], outs)
    mv, rv = data((3, 4), dtype), data(4, dtype)
    for iv in (0, -1, 2):
        got = f(mv.copy(), iv, rv)
        a = mv.copy(); a[iv] = rv
        b = mv.copy(); b[iv, 1] += 7
        c = mv.copy(); c[-1, 1:3] = 0
        d = mv.copy(); d[:, iv] += rv[:3]
        for g, w in zip(got, [a, b, c, d]):
            np.testing.assert_array_equal(g, w)
    with pytest.raises(IndexError):
        f(mv, 3, rv)


def test_shared_variable_update_at_an_index():
    w, i = irc.shared(np.zeros(4), name="w"), T.lscalar()
    f = native([i], [], updates=[(w, T.inc_subtensor(w[i], 1.0))])
    for iv in (1, -1, 1):
        f(iv)
    np.testing.assert_array_equal(w.get_value(), [0.0, 2.0, 0.0, 1.0])
    with pytest.raises(IndexError):
        f(4)
    np.testing.assert_array_equal(w.get_value(), [0.0, 2.0, 0.0, 1.0])  # untouched by the failed call


def test_bad_indices_are_refused_when_building():
    x = T.dvector()
    with pytest.raises(IndexError, match="only integers"):
        x[1.5]
    with pytest.raises(IndexError, match="only integers"):
        x[T.dscalar()]
    with pytest.raises(IndexError, match="boolean index"):
        x[True]
    with pytest.raises(IndexError, match="only integers"):
        x[np.array(1.0)]
    with pytest.raises(IndexError, match="too many indices"):
        x[1, 2]


def _resident_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads the resident size from /proc")
def test_a_failing_index_frees_the_temporaries_made_before_it():
    """The check fails after `exp(x) * 2` was computed into a temporary: 100 failing calls over
    2 MiB temporaries would keep 200 MiB if the failure path did not free them."""
    x, i = T.dvector(), T.lscalar()
    y = T.exp(x) * 2
    f = native([x, i], y[i] + T.sum(y))
    xv = np.random.default_rng(0).random(1 << 18)
    assert f(xv, 3) == pytest.approx(2 * np.exp(xv[3]) + 2 * np.exp(xv).sum())
    before = _resident_mib()
    for _ in range(100):
        with pytest.raises(IndexError):
            f(xv, 1 << 20)
    assert _resident_mib() - before < 64
