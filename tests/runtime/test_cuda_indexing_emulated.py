"""Advanced indexing under device=cuda — `x[ivec]`, the tutorials' `log(p)[arange(n), y]`,
inc_subtensor/set_subtensor with index vectors and the gradient of a gather — as device ops
(GpuAdvancedSubtensor1, GpuAdvancedIncSubtensor1), their kernels run by the CPU emulator of the
grid against numpy: odd sizes (0, 1, 31, 33, a source of 1000003), negative and repeated
indices, strided sources. Scatters walk the indices in order (no atomics): the same bits as
the CPU backend. An index out of range is found on the device and read back after the call:
an IndexError naming the op and the user's line, never a wrong number (the kernels clamp, so
the emulator's bounds checks never fire). PTX assembles (ptxas: the `cuda_emulated` fixture).
Gathers and scatters only move or add values: exact, except sums of repeated indices
(float32: compared with the CPU backend bit for bit, with numpy to rtol 1e-6)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from test_cuda_path_emulated import cuda_emulated, rand  # noqa: F401  (the fixture)


def no_host_ops():
    return irc.config.change_flags(assert_no_cpu_op="raise")


def names(f) -> set[str]:
    return {str(n.op).split("{")[0] for n in f.maker.fgraph.toposort()}


@pytest.mark.parametrize("n", [1, 31, 33, 1000003])
def test_gather_rows_and_elements(cuda_emulated, n):
    m, v, i = T.fmatrix("m"), T.fvector("v"), T.lvector("i")
    with no_host_ops():
        f = irc.function([m, v, i], [m[i % m.shape[0]], v[i], m.T[i % m.shape[1]]])
    assert "GpuAdvancedSubtensor1" in names(f)
    mv, vv = rand(33, 7, seed=1), rand(n, seed=2)
    iv = np.random.RandomState(n).randint(-n, n, 40).astype("int64")
    iv[:3] = [0, n - 1, -n]
    for got, want in zip(f(mv, vv, iv), [mv[iv % 33], vv[iv], mv.T[iv % 7]]):
        np.testing.assert_array_equal(got, want)


def test_gather_with_no_indices_and_empty_rows(cuda_emulated):
    m, i = T.fmatrix("m"), T.lvector("i")
    f = irc.function([m, i], m[i])
    assert f(rand(5, 3), np.zeros(0, "int64")).shape == (0, 3)
    assert f(np.zeros((5, 0), "float32"), np.array([4, -5])).shape == (2, 0)


def test_the_tutorials_negative_log_likelihood_and_its_gradient(cuda_emulated):
    """`-mean(log(p)[arange(n), y])` over a softmax: log_softmax, a two-index gather, a mean;
    its gradient a scatter into zeros then softmax_grad's rewrite — all on the device."""
    x, y = T.fmatrix("x"), T.ivector("y")
    p = T.nnet.softmax(x)
    nll = -T.mean(T.log(p)[T.arange(y.shape[0]), y])
    with no_host_ops():
        f = irc.function([x, y], [nll, T.grad(nll, x), T.argmax(p, axis=1)])
    assert {"GpuAdvancedSubtensor", "GpuAdvancedIncSubtensor"} & names(f)
    for n in (1, 20, 33):
        xv = rand(n, 10, seed=n)
        yv = np.random.RandomState(n).randint(0, 10, n).astype("int32")
        x64 = xv.astype("float64")
        e = np.exp(x64 - x64.max(1, keepdims=True))
        pv = e / e.sum(1, keepdims=True)
        grad = pv.copy()
        grad[np.arange(n), yv] -= 1
        c, g, pred = f(xv, yv)
        np.testing.assert_allclose(c, -np.mean(np.log(pv[np.arange(n), yv])), rtol=1e-5)
        np.testing.assert_allclose(g, grad / n, rtol=1e-5, atol=1e-7)
        np.testing.assert_array_equal(pred, pv.argmax(1))


@pytest.mark.parametrize("rows", [1, 31, 33])
def test_inc_and_set_subtensor_with_repeated_indices(cuda_emulated, rows):
    """inc: repeated indices accumulate (numpy's add.at); set: the last write wins."""
    x, y, i = T.fmatrix("x"), T.fmatrix("y"), T.lvector("i")
    with no_host_ops():
        f = irc.function([x, y, i], [T.inc_subtensor(x[i], y), T.set_subtensor(x[i], y),
                                     T.inc_subtensor(x[i, 2], y[:, 0])])
    assert "GpuAdvancedIncSubtensor1" in names(f)
    xv = rand(rows, 5, seed=3)
    iv = np.random.RandomState(rows).randint(-rows, rows, 45).astype("int64")
    yv = rand(45, 5, seed=4)
    inc, put, part = xv.copy(), xv.copy(), xv.copy()
    np.add.at(inc, iv, yv)
    for k, j in enumerate(iv):
        put[j] = yv[k]
    np.add.at(part, (iv, 2), yv[:, 0])
    got = f(xv, yv, iv)
    np.testing.assert_allclose(got[0], inc, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got[1], put)
    np.testing.assert_allclose(got[2], part, rtol=1e-6, atol=1e-6)


def test_scatter_sums_the_same_bits_as_the_cpu(cuda_emulated):
    """Each element adds its updates in index order, as the CPU's sequential loop does."""
    x, y, i = T.fvector("x"), T.fvector("y"), T.lvector("i")
    out = T.inc_subtensor(x[i], y)
    f = irc.function([x, y, i], out)
    with irc.config.change_flags(device="cpu"):
        cpu = irc.function([x, y, i], out)
    rng = np.random.RandomState(5)
    xv, yv = rand(7, seed=6), rng.uniform(-1e4, 1e4, 500).astype("float32")
    iv = rng.randint(0, 7, 500).astype("int64")
    assert f(xv, yv, iv).tobytes() == cpu(xv, yv, iv).tobytes()


def test_gradient_of_a_gather_from_a_strided_source(cuda_emulated):
    w, i = T.dmatrix("w"), T.lvector("i")
    emb = w[::2][i]
    with no_host_ops():
        f = irc.function([w, i], [emb, T.grad(T.sum(emb ** 2), w)])
    wv, iv = rand(66, 4, dtype="float64", seed=7), np.array([0, 32, 5, 5, -1])
    rows, g = f(wv, iv)
    want = np.zeros_like(wv)
    np.add.at(want[::2], iv, 2 * wv[::2][iv])
    np.testing.assert_array_equal(rows, wv[::2][iv])
    np.testing.assert_allclose(g, want, rtol=1e-14)


@pytest.mark.parametrize("bad", [3, -4, 1 << 40])
def test_index_out_of_range_is_an_index_error_naming_the_op_and_line(cuda_emulated, bad):
    m, i = T.fmatrix("m"), T.lvector("i")
    f = irc.function([m, i], m[i] * 2)
    good = np.array([0, 2, -3, 1])
    np.testing.assert_array_equal(f(rand(3, 4), good), rand(3, 4)[good] * 2)
    with pytest.raises(IndexError, match=r"'tensor.gather'.*index out of range for axis 0(.|\n)*"
                                         r"test_cuda_indexing_emulated.py"):
        f(rand(3, 4), np.array([0, bad, 1]))
    np.testing.assert_array_equal(f(rand(3, 4), good), rand(3, 4)[good] * 2)  # usable after


def test_second_index_array_and_scatter_out_of_range(cuda_emulated):
    x, y, r, c = T.fmatrix("x"), T.fvector("y"), T.lvector("r"), T.lvector("c")
    g = irc.function([x, r, c], x[r, c])
    with pytest.raises(IndexError, match="'tensor.gather'.*index out of range for axis 1"):
        g(rand(3, 4), np.array([0, 1]), np.array([0, 4]))
    s = irc.function([x, y, r], T.inc_subtensor(x[r], y))
    with pytest.raises(IndexError, match="'tensor.scatter'.*index out of range for axis 0"):
        s(rand(3, 4), rand(4), np.array([1, -4]))


def test_indices_into_an_empty_axis(cuda_emulated):
    """Every index is out of range for an axis of size 0 (numpy raises too)."""
    m, i = T.fmatrix("m"), T.lvector("i")
    f = irc.function([m, i], m[i])
    with pytest.raises(IndexError, match="'tensor.gather'.*index out of range for axis 0"):
        f(np.zeros((0, 3), "float32"), np.array([0]))
    assert f(np.zeros((0, 3), "float32"), np.zeros(0, "int64")).shape == (0, 3)


def test_sparse_update_of_a_shared_table(cuda_emulated):
    """An embedding-style update `w[i] -= lr * g` of a device-resident shared variable; the
    table keeps its last good value after a call with a bad index."""
    w = irc.shared(rand(9, 3, seed=8), name="w")
    i, g = T.lvector("i"), T.fmatrix("g")
    with no_host_ops():
        step = irc.function([i, g], T.sum(w[i]), updates={w: T.inc_subtensor(w[i], -0.5 * g)})
    want = w.get_value()
    for seed in range(3):
        iv = np.random.RandomState(seed).randint(-9, 9, 12)
        gv = rand(12, 3, seed=seed)
        np.testing.assert_allclose(step(iv, gv), want[iv].sum(), rtol=1e-5)
        np.add.at(want, iv, -0.5 * gv)
        np.testing.assert_allclose(w.get_value(), want, rtol=1e-6, atol=1e-6)
    before = w.get_value()
    with pytest.raises(IndexError, match="'tensor.(gather|scatter)'"):
        step(np.array([1, 9]), rand(2, 3))
    np.testing.assert_array_equal(w.get_value(), before)
