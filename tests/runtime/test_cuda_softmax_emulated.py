"""The softmax family under device=cuda (`tensor.softmax`, `log_softmax`, `softmax_grad` as
device ops: a warp per short row in one kernel, or the rows' max and sum by the reduction
passes then one store), their kernels run
by the CPU emulator of the grid against numpy in float64: odd row counts and lengths (0, 1, 31,
33, a row of 1000003), strided and transposed inputs, float32 and float64, -inf and NaN as
numpy has them; the results the same bits on every run. PTX assembles (ptxas: the
`cuda_emulated` fixture). Tolerances: float32 rtol 2e-6/atol 1e-6 of values in [0, 1] (log:
atol 1e-5), float64 1e-12."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.conversion.tensor_to_loop import device_softmax
from irc.dialects.func import FuncOp
from irc.runtime.host_plan import record_plan
from test_cuda_path_emulated import cuda_emulated, rand  # noqa: F401  (the fixture)

TOL = {"float32": dict(rtol=2e-6, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-14)}
LOG_TOL = {"float32": dict(rtol=1e-6, atol=1e-5), "float64": dict(rtol=1e-12, atol=1e-12)}


def no_host_ops():
    return irc.config.change_flags(assert_no_cpu_op="raise")


def softmax(x: np.ndarray) -> np.ndarray:
    if x.size == 0:
        return x.copy()
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_family(x, g):
    p = T.nnet.softmax(x)
    return [p, T.nnet.logsoftmax(x), T.grad(T.sum(p * g), x)]


def expected(xv, gv):
    x64, g64 = xv.astype("float64"), gv.astype("float64")
    p = softmax(x64)
    return [p, np.log(p), (g64 - (g64 * p).sum(axis=-1, keepdims=True)) * p]


def check(got, want, dtype):
    for k, (a, w) in enumerate(zip(got, want)):
        assert a.shape == w.shape and a.dtype == dtype
        np.testing.assert_allclose(a, w, **(LOG_TOL if k == 1 else TOL)[dtype])


def names(f) -> list[str]:
    return [type(n.op).__name__ for n in f.maker.fgraph.toposort()]


@functools.lru_cache(maxsize=None)
def row_functions(dtype: str):
    """(the family, the softmax alone), with no host op: the shapes' cases share them."""
    x, g = T.matrix("x", dtype=dtype), T.matrix("g", dtype=dtype)
    with no_host_ops():
        return irc.function([x, g], softmax_family(x, g)), irc.function([x], T.nnet.softmax(x))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(0, 4), (3, 0), (1, 1), (31, 10), (33, 33), (2, 1000)])
def test_rows_of_a_matrix(cuda_emulated, dtype, shape):
    f, alone = row_functions(dtype)
    # beside its log_softmax, the softmax is read from it (`specialize-device`)
    assert {"GpuLogSoftmax", "GpuSoftmaxGrad"} <= set(names(f)) and "GpuSoftmax" not in names(f)
    assert "GpuSoftmax" in names(alone)
    xv, gv = rand(*shape, dtype=dtype, seed=1), rand(*shape, dtype=dtype, seed=2)
    want = expected(xv, gv)
    check(f(xv, gv), want, dtype)
    check([alone(xv)], want[:1], dtype)


@pytest.mark.parametrize("n", [1, 31, 1000003])
def test_one_long_row(cuda_emulated, n):
    """A vector is one row (Theano's softmax of a vector is a 1×n matrix): its statistics
    chunked over many threads."""
    x = T.fvector("x")
    with no_host_ops():
        f = irc.function([x], [T.nnet.softmax(x), T.nnet.logsoftmax(x)])
    xv = rand(n, seed=n, low=-20.0, high=20.0)
    p, lp = f(xv)
    want = softmax(xv.astype("float64"))[None, :]
    assert p.shape == lp.shape == (1, n)
    np.testing.assert_allclose(p, want, rtol=2e-6, atol=1e-12)
    np.testing.assert_allclose(lp, np.log(want), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("view", ["transposed", "strided", "fortran"])
def test_transposed_and_strided_inputs(cuda_emulated, view):
    x = T.dmatrix("x")
    y = x.T if view == "transposed" else x[::2, 1::3] if view == "strided" else x
    with no_host_ops():
        f = irc.function([x], [T.nnet.softmax(y), T.nnet.logsoftmax(y * 2)])
    xv = rand(66, 99, dtype="float64", seed=3)
    if view == "fortran":
        xv = np.asfortranarray(xv)
    yv = xv.T if view == "transposed" else xv[::2, 1::3] if view == "strided" else xv
    p, lp = f(xv)
    np.testing.assert_allclose(p, softmax(yv), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(lp, np.log(softmax(yv * 2)), rtol=1e-12, atol=1e-12)


def test_infinities_and_nan_as_numpy(cuda_emulated):
    """-inf is a class of probability 0; a NaN in a row makes that row NaN, the others stay."""
    x = T.fmatrix("x")
    f = irc.function([x], T.nnet.softmax(x))
    xv = rand(4, 40, seed=4)
    xv[0, 3] = -np.inf
    xv[1, :] = -np.inf
    xv[1, 7] = 2.0
    xv[2, 9] = np.nan
    got = f(xv)
    with np.errstate(invalid="ignore"):
        want = softmax(xv.astype("float64"))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
    assert got[0, 3] == 0 and got[1, 7] == 1 and np.isnan(got[2]).all()


@pytest.mark.parametrize("shape", [(7, 5000), (45, 50)])
def test_the_same_bits_on_every_run(cuda_emulated, shape):
    x = T.fmatrix("x")
    f = irc.function([x], [T.nnet.softmax(x), T.nnet.logsoftmax(x)])
    xv = rand(*shape, seed=5)
    first = [r.tobytes() for r in f(xv)]
    assert [r.tobytes() for r in f(xv)] == first


def test_the_mlp_output_layer_and_its_gradient(cuda_emulated):
    """tanh hidden units, softmax over 10 classes, the one-hot cross-entropy written with a
    dense target: softmax, log_softmax and softmax_grad all on the device."""
    h, t = T.fmatrix("h"), T.fmatrix("t")
    cost = -T.mean(T.sum(t * T.log(T.nnet.softmax(T.tanh(h))), axis=1))
    with no_host_ops():
        f = irc.function([h, t], [cost, T.grad(cost, h)])
    hv = rand(256, 10, seed=6)
    tv = np.eye(10, dtype="float32")[np.random.RandomState(7).randint(0, 10, 256)]
    p = softmax(np.tanh(hv.astype("float64")))
    c, gh = f(hv, tv)
    np.testing.assert_allclose(c, -np.mean(np.sum(tv * np.log(p), axis=1)), rtol=1e-5)
    np.testing.assert_allclose(gh, (p - tv) / 256 * (1 - np.tanh(hv.astype("float64")) ** 2),
                               rtol=1e-4, atol=1e-7)


def test_short_rows_take_one_kernel_long_rows_the_chunked_passes(cuda_emulated):
    """Both paths are compiled (the row length is known at run time); the host plan launches
    one: a warp per row up to 64 classes (one kernel), the reductions' passes beyond."""
    x = T.fmatrix("x")
    f = irc.function([x], T.nnet.softmax(x))
    host = next(op for op in cuda_emulated[-1].body.ops if type(op) is FuncOp)

    def launched(shape):
        return [launch.work for launch in record_plan(host, [shape], [np.float32]).launches if launch.work]

    assert launched((256, 10)) == [256 * 32] and launched((7, 64)) == [7 * 32]
    # beyond: a warp per row for the max and the sum (rows up to 2048, or 1024 rows or more),
    # then the output; long rows that are few take the chunked passes (two each)
    assert launched((1000, 1000)) == [32000, 32000, 1000000] and len(launched((3, 65))) == 3
    assert len(launched((2, 5000))) == 5
    xv = rand(3, 65, seed=9)
    np.testing.assert_allclose(f(xv), softmax(xv.astype("float64")), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("shape", [(256, 10), (33, 64), (3, 65), (2, 300), (0, 10)])
def test_a_row_sum_reading_the_softmax_is_computed_by_its_kernels(cuda_emulated, monkeypatch, shape):
    """A classifier's cross-entropy per row, Σ y·log p, and the y·log p values it keeps: the
    softmax's warp per row computes them as it stores log p (one launch fewer than the sum's own
    kernel: `softmax_row_reader.py`); long rows (65, 300) reduce the stored result after the
    chunked passes. float32 against float64 numpy (rtol 1e-5, atol 1e-5)."""
    x, y = T.fmatrix("x"), T.fmatrix("y")
    logp = T.nnet.logsoftmax(x)
    kept = y * logp
    xv, yv = rand(*shape, seed=11), rand(*shape, seed=12, low=0, high=1)
    p64 = softmax(xv.astype("float64"))
    want_rows = (yv * np.log(p64)).sum(axis=1) if xv.size else np.zeros(shape[0])
    counts = []
    for absorbed in (True, False):
        if not absorbed:
            monkeypatch.setattr(device_softmax, "row_reader", lambda ctx, op: None)
        with no_host_ops():
            f = irc.function([x, y], [kept.sum(axis=1), kept, logp])
        rows, got_kept, got_logp = f(xv, yv)
        np.testing.assert_allclose(rows, want_rows, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got_kept, yv * np.log(p64), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got_logp, np.log(p64), **LOG_TOL["float32"])
        host = next(op for op in cuda_emulated[-1].body.ops if type(op) is FuncOp)
        counts.append(len([k for k in record_plan(host, [shape, shape], [np.float32] * 2).launches if k.work]))
    if shape[0] and shape[1] <= device_softmax.SHORT_ROW:
        assert counts[1] - counts[0] == 1, counts
