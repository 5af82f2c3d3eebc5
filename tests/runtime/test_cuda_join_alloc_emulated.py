"""Ops that make or assemble tensors under device=cuda — join/stack/concatenate
(`tensor.concat`), alloc/zeros_like/ones (`tensor.alloc`, `tensor.broadcast`), arange
(`tensor.iota`), set_subtensor/inc_subtensor with slices (`tensor.insert_slice`) and with
integer indices from constants or inputs (`tensor.insert_index`, `tensor.index`) — as device ops, their kernels
run by the CPU emulator of the grid against numpy (exact: they only move or add values), with
odd and empty sizes and strided inputs; such an index out of range is an IndexError naming
the op and the user's line, found by the host plan before any launch. PTX assembles (ptxas:
the `cuda_emulated` fixture)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from test_cuda_path_emulated import cuda_emulated, rand  # noqa: F401  (the fixture)


def no_host_ops():
    return irc.config.change_flags(assert_no_cpu_op="raise")


def names(f) -> set[str]:
    return {type(n.op).__name__ for n in f.maker.fgraph.toposort()}


@pytest.mark.parametrize("rows", [0, 1, 31, 33])
def test_join_and_stack(cuda_emulated, rows):
    x, y, v = T.fmatrix("x"), T.fmatrix("y"), T.fvector("v")
    with no_host_ops():
        f = irc.function([x, y, v], [T.concatenate([x, y], axis=0), T.concatenate([x, y * 2, x], axis=1),
                                     T.stack([v, v + 1, v]), T.join(0, v, v[::2])])
    assert "GpuJoin" in names(f)
    xv, yv, vv = rand(rows, 5, seed=1), rand(rows, 5, seed=2), rand(rows, seed=3)
    want = [np.concatenate([xv, yv]), np.concatenate([xv, yv * 2, xv], axis=1), np.stack([vv, vv + 1, vv]),
            np.concatenate([vv, vv[::2]])]
    for got, w in zip(f(xv, yv, vv), want):
        np.testing.assert_array_equal(got, w)


def test_join_of_strided_and_transposed_parts(cuda_emulated):
    x = T.dmatrix("x")
    with no_host_ops():
        f = irc.function([x], T.concatenate([x.T, x[::2].T * 1.5, x[::3].T[:, 1:]], axis=1))
    xv = rand(66, 33, dtype="float64", seed=4)
    for xin in (xv, np.asfortranarray(xv)):
        np.testing.assert_array_equal(f(xin), np.concatenate([xin.T, xin[::2].T * 1.5, xin[::3].T[:, 1:]], axis=1))


@pytest.mark.parametrize("n", [0, 1, 31, 1000003])
def test_alloc_fill_zeros_like_and_arange(cuda_emulated, n):
    v = T.fvector("v")
    with no_host_ops():
        f = irc.function([v], [T.zeros_like(v) + 1, T.alloc(np.float32(3), 2, v.shape[0]),
                               T.ones((v.shape[0], 2), dtype="float32") * v.dimshuffle(0, "x"),
                               T.arange(v.shape[0]) * 2, T.fill(v, 7.0)])
    assert "GpuAlloc" in names(f)
    vv = rand(n, seed=5)
    want = [np.ones(n), np.full((2, n), 3.0), np.ones((n, 2)) * vv[:, None], np.arange(n) * 2, np.full(n, 7.0)]
    for got, w in zip(f(vv), want):
        assert got.shape == w.shape
        np.testing.assert_array_equal(got, w)


@pytest.mark.parametrize("shape", [(1, 1), (5, 4), (33, 31)])
def test_set_and_inc_subtensor_with_slices(cuda_emulated, shape):
    x, y = T.fmatrix("x"), T.fmatrix("y")
    with no_host_ops():
        f = irc.function([x, y], [T.set_subtensor(x[1:, ::2], y[1:, ::2] * 2),
                                  T.inc_subtensor(x[::-1, :1], y[:, :1]),
                                  T.inc_subtensor(x[:, -1], y[:, 0])])
    assert "GpuIncSubtensor" in names(f)
    xv, yv = rand(*shape, seed=6), rand(*shape, seed=7)
    a, b, c = xv.copy(), xv.copy(), xv.copy()
    a[1:, ::2] = yv[1:, ::2] * 2
    b[::-1, :1] += yv[:, :1]
    c[:, -1] += yv[:, 0]
    for got, w in zip(f(xv, yv), [a, b, c]):
        np.testing.assert_array_equal(got, w)


def test_constant_integer_index_checked_by_the_host_plan(cuda_emulated):
    """`x[:, 2]` is a device view; for a matrix with 2 columns the index is out of range: an
    IndexError naming the op and the line, before any kernel runs."""
    x = T.fmatrix("x")
    with no_host_ops():
        f = irc.function([x], [x[:, 2] * 2, T.set_subtensor(x[-1], x[0])])
    xv = rand(4, 3, seed=8)
    col, last = f(xv)
    np.testing.assert_array_equal(col, xv[:, 2] * 2)
    want = xv.copy()
    want[-1] = xv[0]
    np.testing.assert_array_equal(last, want)
    with pytest.raises(IndexError, match=r"'tensor.index'.*index out of range for axis 1(.|\n)*test_cuda_join"):
        f(rand(4, 2))


def test_integer_index_from_an_input_is_a_device_view(cuda_emulated):
    """`x[i]` for a user input i: a view the host side makes from i's value (checked there)."""
    x, i = T.fmatrix("x"), T.lscalar("i")
    with no_host_ops():
        f = irc.function([x, i], [x[i] * 2, T.set_subtensor(x[i - 1], x[0])])
    xv = rand(5, 3, seed=9)
    for k in (0, 4, -4, 2):
        row, put = f(xv, k)
        want = xv.copy()
        want[k - 1] = xv[0]
        np.testing.assert_array_equal(row, xv[k] * 2)
        np.testing.assert_array_equal(put, want)
    with pytest.raises(IndexError, match="'tensor.index'.*index out of range for axis 0"):
        f(xv, 5)


def test_integer_index_from_device_data_is_a_device_gather(cuda_emulated):
    """`x[argmax(v)]`: an index only the device knows is made a gather (read and checked on the
    device), and `set_subtensor` by it a scatter; no host op, numpy's numbers and IndexError."""
    x, v = T.fmatrix("x"), T.fvector("v")
    i = T.argmax(v)
    with no_host_ops():
        f = irc.function([x, v], [x[i] * 2, T.set_subtensor(x[i], 0.0), x[i - 4]])
    names = {type(n.op).__name__ for n in f.maker.fgraph.toposort()}
    assert "GpuAdvancedSubtensor1" in names or "GpuAdvancedSubtensor" in names, names
    xv, vv = rand(3, 4, seed=1), np.array([0.5, 2.0, -1.0], "float32")
    row, cleared, wrapped = f(xv, vv)
    np.testing.assert_array_equal(row, xv[1] * 2)
    want = xv.copy()
    want[1] = 0
    np.testing.assert_array_equal(cleared, want)
    np.testing.assert_array_equal(wrapped, xv[-3])  # (argmax 1, 1 - 4 = -3: numpy's wrap)
    with pytest.raises(IndexError, match="index out of range"):
        f(xv, np.array([3.0, 2.0, -1.0], "float32"))  # argmax 0: x[-4] of 3 rows
def test_sizes_from_an_integer_input(cuda_emulated):
    """`zeros((n, 2))`, `arange(n)` for a user input n: device ops whose sizes the host side
    computes from n's value (a host plan per value)."""
    n = T.lscalar("n")
    with no_host_ops():
        f = irc.function([n], [T.zeros((n, 2), dtype="float32") + 1, T.arange(n + 1) * 3])
    for k in (0, 3, 33, 3):
        ones, tripled = f(k)
        np.testing.assert_array_equal(ones, np.ones((k, 2)))
        np.testing.assert_array_equal(tripled, np.arange(k + 1) * 3)
