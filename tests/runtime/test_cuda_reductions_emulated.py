"""Reductions under device=cuda, their kernels run by the CPU emulator of the grid: every kind
against numpy for odd sizes, over every set of axes, contiguous, transposed and strided
inputs, float32 and float64; the results bit-identical across runs and grid sizes; numpy's
tie and NaN rules for max/min/argmax/argmin; fused reductions as device ops. PTX assembles
(ptxas, where installed: the `cuda_emulated` fixture). Tolerances: float32 rtol 1e-5 (sums
of up to 10^6 values: chunked sums, compared with float64 numpy), float64 1e-12."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.dialects.func import FuncOp
from irc.runtime.host_plan import record_plan
from irc.runtime.kernel_emulator import run_function
from test_cuda_path_emulated import cuda_emulated, rand  # noqa: F401  (the fixture)

TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-12, atol=1e-12)}
KINDS = {"sum": (T.sum, np.sum), "prod": (T.prod, np.prod), "max": (T.max, np.max),
         "min": (T.min, np.min), "argmax": (T.argmax, np.argmax), "argmin": (T.argmin, np.argmin),
         "mean": (T.mean, np.mean)}


def no_host_ops():
    return irc.config.change_flags(assert_no_cpu_op="raise")


def check(got, want, dtype, kind):
    if kind.startswith("arg"):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(np.asarray(got, dtype="float64"), want, **TOL[dtype])


def gpu_names(f) -> list[str]:
    return [type(n.op).__name__ for n in f.maker.fgraph.toposort()]


# The functions of the size and shape cases below depend on the dtype only: compiled once per
# dtype (in the first case's `cuda_emulated`; a later case runs the same kernels in the emulator)
VECTOR_KINDS = ["sum", "max", "min", "argmax", "argmin", "mean"]
MATRIX_CASES = [(k, a) for k in KINDS for a in (0, 1, None) if not (k.startswith("arg") and a is None)]


@functools.lru_cache(maxsize=None)
def vector_reductions(dtype: str):
    """(every kind but prod of a vector, with no host op; the product alone)."""
    x = T.vector("x", dtype=dtype)
    with no_host_ops():
        f = irc.function([x], [KINDS[k][0](x) for k in VECTOR_KINDS])
    return f, irc.function([x], T.prod(x))


@functools.lru_cache(maxsize=None)
def matrix_reductions(dtype: str):
    """Every kind over every axis of a matrix, with no host op."""
    x = T.matrix("x", dtype=dtype)
    with no_host_ops():
        return irc.function([x], [KINDS[k][0](x, axis=a) for k, a in MATRIX_CASES])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 31, 33, 1000003])
def test_vector_every_kind(cuda_emulated, dtype, n):
    f, p = vector_reductions(dtype)
    assert "GpuCAReduce" in gpu_names(f)
    xv = rand(n, dtype=dtype, low=0.0, high=1.0, seed=n)
    for k, got in zip(VECTOR_KINDS, f(xv)):
        check(got, KINDS[k][1](xv.astype("float64")), dtype, k)
    # a product that neither overflows nor vanishes. f32: 10^6 roundings of partial products
    # that all start at 1, where the spacing of floats changes (measured 5e-4 for n = 10^6, the
    # same as numpy computing the same chunks; the cpu backend's 8 accumulators: 1.6e-5)
    xv = (1 + rand(n, dtype="float64", low=-1.0, high=1.0, seed=1) / 1000).astype(dtype)
    np.testing.assert_allclose(p(xv), np.prod(xv.astype("float64")),
                               rtol=1e-3 if dtype == "float32" else 1e-12)


def test_empty_vector(cuda_emulated):
    x = T.fvector("x")
    f = irc.function([x], [T.sum(x), T.prod(x)])
    s, p = f(np.zeros(0, "float32"))
    assert s == 0 and p == 1
    g = irc.function([x], T.max(x))
    with pytest.raises(ValueError, match="max over an empty axis"):
        g(np.zeros(0, "float32"))


MATRICES = [(1, 1), (33, 31), (257, 1025), (2, 5000)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", MATRICES)
def test_matrix_axes_every_kind(cuda_emulated, dtype, shape):
    f = matrix_reductions(dtype)
    # values near 1 so that products neither overflow nor vanish
    xv = np.exp(rand(*shape, dtype="float64", low=-0.05, high=0.05, seed=sum(shape))).astype(dtype)
    for (k, a), got in zip(MATRIX_CASES, f(xv)):
        want = KINDS[k][1](xv.astype("float64"), axis=a)
        if k == "prod":  # compared as logarithms: f32 rounding grows with the count
            np.testing.assert_allclose(np.log(np.asarray(got, "float64")), np.log(want),
                                       atol=1e-4 if dtype == "float32" else 1e-11)
        else:
            check(got, want, dtype, k)


@pytest.mark.parametrize("view", ["transposed", "strided", "fortran"])
def test_transposed_and_strided_inputs(cuda_emulated, view):
    x = T.dmatrix("x")
    y = x.T if view == "transposed" else x[::2, 1::3] if view == "strided" else x
    outs = [T.sum(y, axis=0), T.sum(y, axis=1), T.sum(y), T.max(y, axis=0), T.argmin(y, axis=1)]
    with no_host_ops():
        f = irc.function([x], outs)
    xv = rand(66, 99, dtype="float64", seed=3)
    if view == "fortran":
        xv = np.asfortranarray(xv)
    yv = xv.T if view == "transposed" else xv[::2, 1::3] if view == "strided" else xv
    want = [yv.sum(0), yv.sum(1), yv.sum(), yv.max(0), yv.argmin(1)]
    for got, w in zip(f(xv), want):
        np.testing.assert_allclose(got, w, rtol=1e-12)


def test_three_dims_any_set_of_axes(cuda_emulated):
    x = T.ftensor3("x")
    axes = [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]
    with no_host_ops():
        f = irc.function([x], [T.sum(x, axis=a) for a in axes] + [T.max(x, axis=(0, 2))])
    xv = rand(7, 33, 65, seed=5)
    got = f(xv)
    for a, g in zip(axes, got):
        np.testing.assert_allclose(g, xv.astype("float64").sum(axis=a), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[-1], xv.max(axis=(0, 2)))


def test_integer_and_bool_reductions(cuda_emulated):
    i, b = T.ivector("i"), T.bmatrix("b")
    with no_host_ops():
        f = irc.function([i, b], [T.sum(i), T.max(i), T.argmin(i), T.sum(b, axis=0), T.max(b, axis=1)])
    iv = np.random.RandomState(0).randint(-1000, 1000, 4001).astype("int32")
    bv = np.random.RandomState(1).randint(0, 3, (35, 70)).astype("int8")
    want = [iv.sum(), iv.max(), iv.argmin(), bv.sum(0), bv.max(1)]
    for got, w in zip(f(iv, bv), want):
        np.testing.assert_array_equal(got, w)


def test_ties_take_the_first_index_across_chunks(cuda_emulated):
    """The extremum at indices that fall in different interleaved chunks: the smallest index
    wins whichever chunk is combined first."""
    x, m = T.fvector("x"), T.fmatrix("m")
    f = irc.function([x, m], [T.argmax(x), T.argmin(x), T.argmax(m, axis=1), T.argmax(m, axis=0)])
    xv = np.zeros(100003, "float32")
    xv[[99999, 4097, 70, 5000]] = 7.0
    xv[[80000, 333, 100002]] = -7.0
    mv = np.zeros((3, 9000), "float32")
    mv[:, [8999, 1, 4500]] = 2.0
    mv[[2, 1], 7] = 3.0
    for got, want in zip(f(xv, mv), [70, 333, [1, 7, 7], np.argmax(mv, axis=0)]):
        np.testing.assert_array_equal(got, want)


def test_nan_rules_match_numpy(cuda_emulated):
    x, m = T.fvector("x"), T.fmatrix("m")
    f = irc.function([x, m], [T.max(x), T.min(x), T.argmax(x), T.argmin(x), T.sum(x),
                              T.max(m, axis=0), T.argmax(m, axis=1)])
    xv = rand(5000, seed=2)
    xv[[4000, 1234]] = np.nan
    mv = rand(40, 300, seed=3)
    mv[5, 17] = mv[20, 17] = mv[9, 250] = np.nan
    got = f(xv, mv)
    want = [np.max(xv), np.min(xv), np.argmax(xv), np.argmin(xv), np.sum(xv), np.max(mv, 0),
            np.argmax(mv, 1)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_float16_sums_accumulate_in_float32(cuda_emulated):
    x = T.vector("x", dtype="float16")
    f = irc.function([x], T.sum(x))
    assert f(np.ones(10000, "float16")) == 10000


def test_fused_reductions_are_device_ops(cuda_emulated):
    """An elementwise body and its reduction: one fused device op; its elementwise result
    (also returned) computed in the reduction's first pass."""
    x, b = T.fmatrix("x"), T.frow("b")
    y = T.exp(x * 0.5 + b)
    with no_host_ops():
        f = irc.function([x, b], [y, y.sum(axis=1), (x * x).sum(axis=0), (abs(x) - 1).max()])
    ops = [n.op for n in f.maker.fgraph.toposort()]
    assert any(getattr(o, "ir_name", "") == "tensor.fused_reduce" and type(o).__name__ == "GpuCAReduce"
               for o in ops)
    xv, bv = rand(257, 129, seed=7), rand(1, 129, seed=8)
    yv = np.exp(xv * 0.5 + bv)
    for got, want in zip(f(xv, bv), [yv, yv.sum(1), (xv * xv).sum(0), (abs(xv) - 1).max()]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_logistic_regression_cost_on_the_device(cuda_emulated):
    """The tutorial's cost and its mean: the reductions no longer send the function to the cpu."""
    x, y, w = T.fmatrix("x"), T.fvector("y"), T.fvector("w")
    p = T.nnet.sigmoid(T.sum(x * w, axis=1))
    cost = T.nnet.binary_crossentropy(p, y).mean() + 0.01 * (w ** 2).sum()
    with no_host_ops():
        f = irc.function([x, y, w], [cost, T.mean(p > 0.5)])
    rng = np.random.RandomState(0)
    xv, yv, wv = rng.randn(400, 78).astype("float32"), rng.randint(0, 2, 400).astype("float32"), \
        rng.randn(78).astype("float32") * 0.1
    pv = 1 / (1 + np.exp(-(xv.astype("float64") * wv).sum(1)))
    ref = -np.mean(yv * np.log(pv) + (1 - yv) * np.log(1 - pv)) + 0.01 * (wv.astype("float64") ** 2).sum()
    c, acc = f(xv, yv, wv)
    np.testing.assert_allclose(c, ref, rtol=1e-5)
    np.testing.assert_allclose(acc, np.mean(pv > 0.5))


def test_bit_identical_across_runs_and_grids(cuda_emulated):
    """The chunking depends on the sizes only: the same bits for every run and grid size."""
    x = T.fmatrix("x")
    f = irc.function([x], [T.sum(x, axis=0), T.sum(x, axis=1), T.sum(x), T.argmax(x, axis=1)])
    xv = rand(300, 700, seed=11) * np.float32(1e3)
    first = f(xv)
    for got, again in zip(first, f(xv)):
        assert np.asarray(got).tobytes() == np.asarray(again).tobytes()
    module = cuda_emulated[-1]
    for sm_count in (1, 3, 132):
        for got, again in zip(first, run_function(module, [xv], sm_count=sm_count)):
            assert np.asarray(got).tobytes() == np.asarray(again).tobytes(), sm_count


def test_a_warp_per_row_keeps_numpys_tie_and_nan_rules(cuda_emulated):
    """Rows reduced by a warp each (many rows, or short ones): the lanes' states meet in a
    butterfly of shuffles, whose order differs from the chunks'; ties still go to the first
    index and the first NaN still wins, and the emulator checks every warp reaches each shuffle
    whole."""
    m = T.fmatrix("m")
    f = irc.function([m], [T.argmax(m, axis=1), T.argmin(m, axis=1), T.max(m, axis=1), T.sum(m, axis=1)])
    mv = rand(1100, 70, seed=4)
    mv[:, [40, 5, 66]] = 9.0                  # lanes 8, 5 and 2: index 5 wins
    mv[7, [50, 10]] = np.nan                  # the first NaN (10) wins
    mv[9, [69, 1]] = -9.0                     # argmin: 1
    got = f(mv)
    want = [np.argmax(mv, 1), np.argmin(mv, 1), np.max(mv, 1), np.sum(mv.astype("float64"), 1)]
    for g, w in zip(got[:3], want):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-5, equal_nan=True)
    module = cuda_emulated[-1]
    assert any(op.op_name == "gpu.shuffle_xor" for op in module.walk())


@pytest.mark.parametrize("rows,cols", [(256, 10), (512, 512), (513, 7), (300, 1000), (3, 9), (1, 33)])
def test_column_sums_fused_with_their_producer_take_two_passes(cuda_emulated, rows, cols):
    """A bias gradient's column sums of a batch, fused with the elementwise values they sum
    (also a result) and the bias's update: pass 1 (coalesced: a thread per chunk of rows and
    column) writes the values and the partial sums, pass 2 combines them and updates the bias
    — two kernels at every size (float32 rtol 1e-5)."""
    d, h = T.fmatrix("d"), T.fmatrix("h")
    b = irc.shared(rand(cols, seed=5), name="b")
    delta = d * (1 - h ** 2)
    with no_host_ops():
        f = irc.function([d, h], delta, updates={b: b - 0.1 * delta.sum(axis=0)})
    dv, hv = rand(rows, cols, seed=6), rand(rows, cols, seed=7, low=-1, high=1)
    b0 = b.get_value()
    got = f(dv, hv)
    want = dv.astype("float64") * (1 - hv.astype("float64") ** 2)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.get_value(), b0 - 0.1 * want.sum(axis=0), rtol=1e-5, atol=1e-5)
    host = next(op for op in cuda_emulated[-1].body.ops if type(op) is FuncOp)
    arrays = [dv, hv, b0]
    plan = record_plan(host, [a.shape for a in arrays], [a.dtype for a in arrays])
    assert len([x for x in plan.launches if x.work > 0]) == 2
