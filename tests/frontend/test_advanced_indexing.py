"""Advanced (integer-array) indexing runs as native code: `x[ivec]` on 1-, 2- and 3-d sources,
`x[ivec, jvec]` (broadcast), `x[:, ivec]`, `x[ivec, :, jvec]` (numpy puts the result dims in
front), negative and repeated indices, empty index vectors, int32/int64 indices, non-contiguous
sources; set/inc_subtensor (inc accumulates repeats as np.add.at, set: the last write wins);
gradients against central differences; located errors. Tolerances: exact for values moved or
accumulated in order (gathers, scatters); float64 gradients rtol 1e-6 against differences with
step 1e-6 (the costs are quadratic: the central difference is exact up to rounding)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime.errors import IndexOutOfRangeError

RNG = np.random.default_rng(7)
FLOATS = ["float32", "float64"]
INDEX_DTYPES = ["int32", "int64"]


def native(inputs, outputs, **kw):
    """A compiled function that must run as native code (no reference-executor fallback)."""
    f = irc.function(inputs, outputs, **kw)
    assert type(f.executor).__name__ == "NativeExecutor", "fell back to the reference executor"
    return f


def tensor(dtype, ndim, name=None):
    return T.TensorType(dtype, (False,) * ndim)(name)


def data(shape, dtype="float64"):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("idtype", INDEX_DTYPES)
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_gather_rows(dtype, idtype, ndim):
    x, i = tensor(dtype, ndim), tensor(idtype, 1)
    f = native([x, i], x[i])
    xv = data((5, 3, 2)[:ndim], dtype)
    for iv in ([0, 4, -1, -5, 2, 2], [], [3]):
        iv = np.array(iv, idtype)
        got = f(xv, iv)
        assert got.dtype == xv.dtype
        np.testing.assert_array_equal(got, xv[iv])


@pytest.mark.parametrize("idtype", INDEX_DTYPES)
def test_pairs_columns_and_separated_arrays(idtype):
    m, t3 = T.dmatrix(), T.dtensor3()
    i, j = tensor(idtype, 1), tensor("int64", 1)
    k = tensor(idtype, 2)
    f = native([m, t3, i, j, k], [m[i, j], m[:, j], m[i, 2], m[k], t3[i, :, j], t3[:, i, j], t3[:, k], m[-1, j]])
    mv, tv = data((4, 5)), data((4, 4, 5))
    iv, jv = np.array([0, -1, 2, 2], idtype), np.array([4, 0, -5, 1])
    kv = np.array([[0, 1, 3], [-1, 2, 2]], idtype)
    want = [mv[iv, jv], mv[:, jv], mv[iv, 2], mv[kv], tv[iv, :, jv], tv[:, iv, jv], tv[:, kv], mv[-1, jv]]
    for g, w in zip(f(mv, tv, iv, jv, kv), want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_constant_lists_and_a_broadcast_row_index():
    m = T.dmatrix()
    rows = T.lvector()
    f = native([m, rows], [m[[1, 0, 1]], m[rows.dimshuffle(0, "x"), [[0, 2]]], m[np.array([2])]])
    mv = data((3, 4))
    rv = np.array([2, 0])
    got = f(mv, rv)
    np.testing.assert_array_equal(got[0], mv[[1, 0, 1]])
    np.testing.assert_array_equal(got[1], mv[rv[:, None], [[0, 2]]])
    np.testing.assert_array_equal(got[2], mv[[2]])


def test_non_contiguous_sources():
    m, i = T.dmatrix(), T.lvector()
    f = native([m, i], [m.T[i], m[::2][i], T.inc_subtensor(m.T[i], 1.0)])
    mv = data((6, 4))
    view = data((6, 8))[:, ::2]  # a strided argument
    iv = np.array([1, 1, -1])
    for src in (mv, view):
        got = f(src, iv)
        np.testing.assert_array_equal(got[0], src.T[iv])
        np.testing.assert_array_equal(got[1], src[::2][iv])
        want = src.T.copy()
        np.add.at(want, iv, 1.0)
        np.testing.assert_array_equal(got[2], want)


@pytest.mark.parametrize("dtype", FLOATS + ["int32"])
def test_inc_accumulates_repeats_and_set_keeps_the_last_write(dtype):
    m, i, j, y = tensor(dtype, 2), T.lvector(), T.lvector(), tensor(dtype, 2)
    v, row = tensor(dtype, 1), tensor(dtype, 1)
    f = native([m, i, j, y, v, row], [T.inc_subtensor(m[i], y), T.set_subtensor(m[i], y),
                                      T.inc_subtensor(m[i, j], v), T.set_subtensor(m[:, j], 0),
                                      T.inc_subtensor(m[i], row)])  # row broadcast along the indices
    mv, yv = data((4, 3), dtype), data((5, 3), dtype)
    iv, jv, vv, rv = np.array([1, -3, 2, 1, 3]), np.array([0, 0, 2, 0, -1]), data(5, dtype), data(3, dtype)
    want_inc, want_set, want_pair, want_cols, want_row = (mv.copy() for _ in range(5))
    np.add.at(want_inc, iv, yv)
    want_set[iv] = yv  # numpy: the last write wins
    np.add.at(want_pair, (iv, jv), vv)
    want_cols[:, jv] = 0
    np.add.at(want_row, iv, rv)
    before = mv.copy()
    theano_spelling = native([m, i, y], T.inc_subtensor(m[i], y, set_instead_of_inc=True))
    np.testing.assert_array_equal(theano_spelling(mv, iv, yv), want_set)
    for g, w in zip(f(mv, iv, jv, yv, vv, rv), [want_inc, want_set, want_pair, want_cols, want_row]):
        assert g.dtype == mv.dtype
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(mv, before)  # the user's array is untouched


def test_empty_index_vector_scatters_nothing():
    m, i, y = T.dmatrix(), T.lvector(), T.dmatrix()
    f = native([m, i, y], [T.inc_subtensor(m[i], y), T.grad(T.sum(m[i] ** 2), m)])
    mv = data((3, 2))
    got = f(mv, np.zeros(0, "int64"), np.zeros((0, 2)))
    np.testing.assert_array_equal(got[0], mv)
    np.testing.assert_array_equal(got[1], np.zeros_like(mv))


def test_embedding_update_with_a_shared_table():
    """Word embeddings: W[idx] in the cost, W updated by its (scatter-add) gradient in place."""
    table = data((6, 3))
    w = irc.shared(table.copy(), name="W")
    idx, target = T.lvector(), T.dmatrix()
    cost = T.sum((w[idx] - target) ** 2)
    f = native([idx, target], cost, updates=[(w, w - 0.1 * T.grad(cost, w))])
    iv, tv = np.array([1, 4, 1]), data((3, 3))
    expected = table.copy()
    np.add.at(expected, iv, -0.1 * 2 * (table[iv] - tv))
    f(iv, tv)
    np.testing.assert_allclose(w.get_value(), expected, rtol=0, atol=1e-15)


# ---------------------------------------------------------------------------- gradients
def numeric_grad(cost, values, k, eps=1e-6):
    g = np.zeros_like(values[k])
    for idx in np.ndindex(*g.shape):
        plus, minus = [v.copy() for v in values], [v.copy() for v in values]
        plus[k][idx] += eps
        minus[k][idx] -= eps
        g[idx] = (cost(*plus) - cost(*minus)) / (2 * eps)
    return g


GRAD_CASES = {
    "rows": (lambda x, y, i, j: T.sum(x[i] ** 2 * 1.5), [(4, 3), (3, 3)]),
    "pairs": (lambda x, y, i, j: T.sum(T.sin(x[i, j])), [(4, 3), (3,)]),
    "columns": (lambda x, y, i, j: T.sum(x[:, j] ** 3), [(4, 3), (4, 3)]),
    "inc rows": (lambda x, y, i, j: T.sum(T.inc_subtensor(x[i], y) ** 2), [(4, 3), (3, 3)]),
    "set rows": (lambda x, y, i, j: T.sum(T.set_subtensor(x[i], y) ** 2), [(4, 3), (3, 3)]),
    "inc pairs": (lambda x, y, i, j: T.sum(T.inc_subtensor(x[i, j], y) ** 2), [(4, 3), (3,)]),
    "set columns": (lambda x, y, i, j: T.sum(T.set_subtensor(x[:, j], y) ** 2), [(4, 3), (4, 3)]),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradients_match_central_differences(case):
    build, shapes = GRAD_CASES[case]
    x, y = tensor("float64", len(shapes[0])), tensor("float64", len(shapes[1]))
    i, j = T.lvector(), T.lvector()
    cost = build(x, y, i, j)
    wrt = [v for v in (x, y) if v in irc.frontend.graph.graph_inputs([cost])]
    f = native([x, y, i, j], cost, on_unused_input="ignore")
    g = native([x, y, i, j], T.grad(cost, wrt), on_unused_input="ignore")
    iv, jv = np.array([2, -1, 2]), np.array([0, 2, 0])  # repeated on purpose
    if case.startswith("set"):
        # Theano's gradient of a set gives every write its gz, also one a repeated index
        # overwrote (whose true derivative is 0): compare where the writes are distinct
        iv, jv = np.array([2, -1, 0]), np.array([0, 2, 1])
    values = [data(shapes[0]), data(shapes[1])]
    got = g(*values, iv, jv)
    for k, gk in enumerate(got):
        expected = numeric_grad(lambda *vs: float(f(*vs, iv, jv)), values, k)
        np.testing.assert_allclose(gk, expected, rtol=1e-6, atol=1e-8, err_msg=f"{case}: input {k}")


def test_rop_of_gather_and_scatter():
    x, v, i = T.dmatrix(), T.dmatrix(), T.lvector()
    f = native([x, v, i], [T.Rop(x[i] ** 2, x, v), T.Rop(T.set_subtensor(x[i], x[i] ** 2), x, v)])
    xv, vv, iv = data((4, 2)), data((4, 2)), np.array([3, 0, 3])
    got = f(xv, vv, iv)
    np.testing.assert_allclose(got[0], 2 * xv[iv] * vv[iv], rtol=1e-15)
    want = vv.copy()
    want[iv] = 2 * xv[iv] * vv[iv]
    np.testing.assert_allclose(got[1], want, rtol=1e-15)


def test_gradient_through_a_symbolic_slice():
    x, a, b = T.dmatrix(), T.lscalar(), T.lscalar()
    f = native([x, a, b], [T.grad(T.sum(x[a:b] ** 2), x), T.grad(T.sum(x[:, a:b] ** 3), x)])
    xv = data((6, 5))
    for av, bv in [(1, 3), (-4, -1), (-10, 2), (3, 100), (4, 2), (0, 0)]:
        rows, cols = np.zeros_like(xv), np.zeros_like(xv)
        rows[av:bv] = 2 * xv[av:bv]
        cols[:, av:bv] = 3 * xv[:, av:bv] ** 2
        got = f(xv, av, bv)
        np.testing.assert_allclose(got[0], rows, rtol=1e-15)
        np.testing.assert_allclose(got[1], cols, rtol=1e-15)


# ---------------------------------------------------------------------------- errors
def test_index_out_of_range_names_the_op_and_the_line():
    m, i, y = T.dmatrix(), T.lvector(), T.dmatrix()
    f = native([m, i], m[i] * 2)
    g = native([m, i, y], T.inc_subtensor(m[i], y))
    mv = data((3, 2))
    for bad in ([0, 3], [-4], [2**40]):
        with pytest.raises(IndexOutOfRangeError, match="'tensor.gather' failed at run time: index out of range "
                                                       "for axis 0") as info:
            f(mv, np.array(bad))
        assert "test_advanced_indexing.py" in str(info.value) and "m[i] * 2" in str(info.value)
        with pytest.raises(IndexError, match="'tensor.scatter'"):
            g(mv, np.array(bad), np.zeros((len(bad), 2)))
    np.testing.assert_array_equal(f(mv, np.array([2])), 2 * mv[[2]])  # still works afterwards


def test_mismatched_index_lengths_fail_at_run_time():
    m, i, j = T.dmatrix(), T.lvector(), T.lvector()
    f = native([m, i, j], m[i, j])
    with pytest.raises(ValueError, match="'tensor.gather'"):
        f(data((3, 3)), np.array([0, 1]), np.array([0, 1, 2]))


def test_refused_combinations_say_why():
    m, i = T.dmatrix(), T.lvector()
    with pytest.raises(NotImplementedError, match="boolean mask indexing"):
        m[m > 0]
    with pytest.raises(NotImplementedError, match="boolean mask indexing"):
        m[np.array([True, False, True])]
    with pytest.raises(NotImplementedError, match="only with full slices"):
        m[1:3, i]
    with pytest.raises(NotImplementedError, match="only with full slices"):
        m[None, i]
    with pytest.raises(IndexError, match="integer type"):
        m[T.dvector()]
    with pytest.raises(IndexError, match="integer type"):
        m[[0.5, 1.0]]
    with pytest.raises(ValueError, match="set_subtensor: the value .* has more dims than x\\[indices\\]"):
        T.set_subtensor(m[i, i], m)


def test_take_follows_numpy():
    t, i = T.dtensor3(), T.lvector()
    f = native([t, i], [T.take(t, i), T.take(t, i, axis=1), T.take(t, i, axis=-1), T.take(t, 2, axis=1)])
    tv, iv = data((3, 4, 5)), np.array([1, -1, 0, 1])
    for g, w in zip(f(tv, iv), [np.take(tv, iv), np.take(tv, iv, 1), np.take(tv, iv, -1), np.take(tv, 2, 1)]):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", FLOATS)
def test_categorical_crossentropy_with_labels_is_a_native_gather(dtype):
    """-log p at each row's label, and its gradient through softmax (p - onehot) / n.
    Tolerance: float64 1e-12, float32 1e-5 relative (a softmax and a log per element)."""
    x, y = tensor(dtype, 2), T.ivector()
    loss = T.mean(T.nnet.categorical_crossentropy(T.nnet.softmax(x), y))
    f = native([x, y], [loss, T.grad(loss, x)])
    assert "tensor.gather" in f.ir("optimized") and "log_softmax" in f.ir("optimized")
    xv, yv = data((7, 4), dtype) * 3, np.array([0, 3, 1, 1, 2, 0, 3], "int32")
    xd = xv.astype("float64")
    p = np.exp(xd - xd.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    grad = p.copy()
    grad[np.arange(7), yv] -= 1
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == "float64" else dict(rtol=1e-5, atol=1e-6)
    got_loss, got_grad = f(xv, yv)
    assert got_loss.dtype == dtype and got_grad.dtype == dtype
    np.testing.assert_allclose(got_loss, -np.log(p[np.arange(7), yv]).mean(), **tol)
    np.testing.assert_allclose(got_grad, grad / 7, **tol)


def test_toposort_shows_theanos_class_names():
    m, i, j, y = T.dmatrix(), T.lvector(), T.lvector(), T.dmatrix()
    f = native([m, i, j, y], [m[i], m[i, j], T.inc_subtensor(m[i], y), T.set_subtensor(m[i, j], 0.0)])
    ops = [node.op for node in f.maker.fgraph.toposort()]
    names = [str(op) for op in ops]
    assert {"AdvancedSubtensor1", "AdvancedSubtensor", "AdvancedIncSubtensor1{inc}",
            "AdvancedIncSubtensor{set}"} <= set(names)
    assert sum(isinstance(op, T.AdvancedSubtensor1) for op in ops) == 1
    assert sum(isinstance(op, T.AdvancedSubtensor) for op in ops) == 1
    assert sum(isinstance(op, T.AdvancedIncSubtensor1) for op in ops) == 2  # (the general one is a kind of it)


def test_an_empty_list_selects_nothing():
    m = T.dmatrix()
    f = native([m], [m[[]], T.inc_subtensor(m[[]], 1.0)])
    mv = data((3, 2))
    got = f(mv)
    assert got[0].shape == (0, 2)
    np.testing.assert_array_equal(got[1], mv)


def test_scatter_in_place_over_a_temporary_and_a_shared_table():
    """The `inplace` pass lets a scatter write over a dead dest; the numbers do not change."""
    x, i, y = T.dmatrix(), T.lvector(), T.dmatrix()
    f = native([x, i, y], T.inc_subtensor((x * 2)[i], y))
    assert "inplace" in f.ir("optimized").split("tensor.scatter", 1)[1].split("\n", 1)[0]
    xv, iv, yv = data((4, 3)), np.array([1, 1, -1]), data((3, 3))
    want = 2 * xv
    np.add.at(want, iv, yv)
    np.testing.assert_array_equal(f(xv, iv, yv), want)
    table = irc.shared(xv.copy(), name="table")
    step = native([i, y], [], updates=[(table, T.inc_subtensor(table[i], -0.5 * table[i] * y))])
    want = xv.copy()
    for _ in range(2):
        np.add.at(want, iv, -0.5 * want[iv] * yv)
        step(iv, yv)
        np.testing.assert_allclose(table.get_value(), want, rtol=1e-15)
    with pytest.raises(IndexError):
        step(np.array([0, 4]), yv[:2])
    np.testing.assert_allclose(table.get_value(), want, rtol=1e-15)  # a failed call writes nothing
