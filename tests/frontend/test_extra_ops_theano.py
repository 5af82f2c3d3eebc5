"""Theano's `extra_ops` and the other names its tests missed (`T.cov`, `T.swapaxes`,
`T.permute_row_elements`, `T.get_scalar_constant_value`, `T.power`, `T.second`): values
against numpy (exact where the op only moves or picks elements; 1e-12 relative for float64
arithmetic), gradients against finite differences (`T.verify_grad`'s tolerances), errors
Theano gives. The compositions compile natively; `searchsorted`, `Unique` and `compress` run
with numpy between native parts."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import irc
import irc.configdefaults
import irc.tensor as T
from irc.runtime.native_executor import NativeExecutor
from irc.tensor import extra_ops as E

rng = np.random.RandomState(3)


def native(f):
    assert isinstance(f.executor, NativeExecutor), type(f.executor)
    return f


# ---------------------------------------------------------------------------- extra_ops
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_is_numpys_with_and_without_sorter(side):
    a = np.round(rng.rand(50) * 10)  # ties, so the two sides differ
    b = np.round(rng.rand(8, 10, 5) * 12) - 1
    x, v, s = T.dvector("x"), T.dtensor3("v"), T.ivector("s")
    order = np.argsort(a).astype("int32")
    f = irc.function([x, v], E.searchsorted(x, v, side=side))
    np.testing.assert_array_equal(f(np.sort(a), b), np.searchsorted(np.sort(a), b, side))
    np.testing.assert_array_equal(f(a, b), np.searchsorted(a, b, side))  # unsorted: numpy's answer too
    g = irc.function([x, v, s], x.searchsorted(v, side=side, sorter=s))
    np.testing.assert_array_equal(g(a, b, order), np.searchsorted(a, b, side, order))
    assert f(np.sort(a), b).dtype == np.int64


def test_searchsorted_errors_and_zero_gradient():
    x, v = T.dvector(), T.dtensor3()
    with pytest.raises(ValueError, match="side"):
        E.searchsorted(x, v, side="middle")
    with pytest.raises(ValueError, match="vector"):
        E.searchsorted(T.dmatrix(), v)
    with pytest.raises(TypeError, match="integers"):
        E.searchsorted(x, v, sorter=T.fvector())
    T.verify_grad(E.SearchsortedOp(), [np.sort(rng.rand(10)), rng.rand(2, 3)], rng=rng)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_diff_of_each_order_and_its_gradient(axis):
    m = T.dmatrix("m")
    a = rng.rand(6, 7)
    for n in range(5):
        np.testing.assert_allclose(native(irc.function([m], E.diff(m, n, axis)))(a), np.diff(a, n, axis), rtol=1e-12)
    T.verify_grad(E.DiffOp(n=2, axis=axis), [a], rng=rng)
    with pytest.raises(ValueError, match="out of range"):
        E.diff(m, axis=2)


def test_squeeze_drops_the_broadcastable_dims():
    x = T.TensorType("float64", (True, False, True, True, False))()
    a = rng.rand(1, 5, 1, 1, 6)
    for out in (E.squeeze(x), x.squeeze(), T.squeeze(x)):
        assert out.broadcastable == (False, False)
        np.testing.assert_array_equal(native(irc.function([x], out))(a), np.squeeze(a))
    T.verify_grad(E.squeeze, [rng.rand(1, 3)], rng=rng)


@pytest.mark.parametrize("shape", [(8, 8), (5, 8), (8, 5)])
def test_fill_diagonal_and_its_gradient(shape):
    a, s = T.dmatrix("a"), T.dscalar("s")
    f = native(irc.function([a, s], E.fill_diagonal(a, s)))
    data = rng.rand(*shape)
    expected = data.copy()
    np.fill_diagonal(expected, 7.5)
    np.testing.assert_array_equal(f(data, 7.5), expected)
    T.verify_grad(E.fill_diagonal, [data, 0.3], rng=rng)
    g_a, g_s = T.grad((E.fill_diagonal(a, s) * np.arange(shape[1])).sum(), [a, s])
    ga, gs = irc.function([a, s], [g_a, g_s])(data, 1.0)
    np.testing.assert_array_equal(np.diag(ga), 0)
    assert gs == np.arange(shape[1])[:min(shape)].sum()


def test_fill_diagonal_of_a_cube_and_errors():
    c, s = T.dtensor3(), T.dscalar()
    out = native(irc.function([c, s], E.fill_diagonal(c, s)))(rng.rand(3, 3, 3), 11.0)
    assert (out == 11.0).sum() == 3 and all(out[i, i, i] == 11.0 for i in range(3))
    with pytest.raises(TypeError, match="2 dims"):
        E.fill_diagonal(T.dvector(), s)
    with pytest.raises(TypeError, match="scalar"):
        E.fill_diagonal(T.dmatrix(), T.dvector())


@functools.lru_cache(maxsize=None)
def fill_diagonal_offset_function():
    """The offset an input: one function for every case below."""
    a, s, k = T.dmatrix(), T.dscalar(), T.iscalar()
    return irc.function([a, s, k], E.fill_diagonal_offset(a, s, k))


@pytest.mark.parametrize("offset", [-5, -4, -1, 0, 1, 4, 5])
@pytest.mark.parametrize("shape", [(8, 8), (5, 8), (8, 5)])
def test_fill_diagonal_offset(offset, shape):
    data = rng.rand(*shape)
    out = native(fill_diagonal_offset_function())(data, 2.0, offset)
    expected = data.copy()
    rows = np.arange(shape[0])
    on = (rows + offset >= 0) & (rows + offset < shape[1])
    expected[rows[on], rows[on] + offset] = 2.0
    np.testing.assert_array_equal(out, expected)
    T.verify_grad(lambda a, s: E.fill_diagonal_offset(a, s, offset), [data, 0.5], rng=rng)


def test_to_one_hot_bartlett_and_repeat_op():
    y = T.ivector()
    out = native(irc.function([y], E.to_one_hot(y, 10)))([1, 2, 3, 5, 6])
    assert out.dtype == irc.config.floatX
    np.testing.assert_array_equal(out, np.eye(10)[[1, 2, 3, 5, 6]])
    assert irc.function([y], E.to_one_hot(y, 4, dtype="int32"))([0, 3]).dtype == np.int32
    m = T.lscalar()
    f = irc.function([m], E.bartlett(m))  # (a size read from an input's value: the reference executor)
    for k in (0, -1, 1, 2, 3, 17):
        np.testing.assert_allclose(f(k), np.bartlett(k), rtol=1e-12, atol=1e-15)
    x = T.TensorType("float64", (False, True, False))()
    assert E.RepeatOp(axis=1)(x, 2).broadcastable == (False, False, False)
    assert E.RepeatOp(axis=1)(x, 1).broadcastable == (False, True, False)
    assert E.RepeatOp(axis=0)(x, 2).broadcastable == (False, True, False)
    data = rng.rand(3, 1, 4)
    np.testing.assert_array_equal(native(irc.function([x], E.RepeatOp(axis=0)(x, 2)))(data), np.repeat(data, 2, 0))


def test_cum_op_with_theanos_signature():
    x = T.dtensor3()
    a = rng.rand(3, 5, 2)
    np.testing.assert_allclose(irc.function([x], E.CumOp()(x))(a), np.cumsum(a), rtol=1e-12)
    np.testing.assert_allclose(irc.function([x], E.CumOp(axis=-2, mode="mul")(x))(a), np.cumprod(a, -2), rtol=1e-12)
    for bad in (3, -4):
        with pytest.raises(ValueError, match="out of range"):
            E.cumsum(x, axis=bad)
        with pytest.raises(ValueError, match="out of range"):
            E.CumOp(axis=bad)(x)
    T.verify_grad(E.CumOp(mode="mul"), [a], rng=rng)


@pytest.mark.parametrize("flags", [(), (True,), (False, True), (True, True, True), (False, False, True)])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_unique_is_numpys(flags, axis):
    x = T.dmatrix()
    data = np.asarray([[2, 1], [3, 2], [2, 1]], dtype="float64")
    outs = irc.function([x], E.Unique(*flags, axis=axis)(x, return_list=True))(data)
    expected = np.unique(data, *flags, axis=axis)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected):
        np.testing.assert_array_equal(got, want)
    total = irc.function([x], (E.unique(x) * 2).sum())(data)  # a native part after it
    assert total == 2 * np.unique(data).sum()


def test_compress():
    c, x = T.ivector(), T.dmatrix()
    data = rng.rand(4, 3)
    for axis, cond in [(None, [1, 0, 1, 0, 0, 1]), (0, [0, 1, 1, 0]), (0, []), (1, [1, 0, 1])]:
        out = irc.function([c, x], E.compress(c, x, axis=axis))(cond, data)
        np.testing.assert_array_equal(out, np.compress(cond, data, axis=axis))
    np.testing.assert_array_equal(irc.function([c, x], c.compress(x, axis=0))([0, 1, 1, 0], data), data[1:3])


# ---------------------------------------------------------------------------- T.*
@functools.lru_cache(maxsize=None)
def cov_functions():
    """T.cov plain, by rows, by columns, of x and y, biased, ddof=0: compiled once for every
    shape below."""
    x, y = T.dmatrix(), T.dmatrix()
    return (irc.function([x], T.cov(x)), irc.function([x], T.cov(x, rowvar=True)),
            irc.function([x], T.cov(x, rowvar=False)), irc.function([x, y], T.cov(x, y=y)),
            irc.function([x], T.cov(x, bias=True)), irc.function([x], T.cov(x, ddof=0)))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (2, 2), (1, 2)])
def test_cov_is_numpys(shape):
    plain, by_rows, by_columns, with_y, biased, ddof0 = cov_functions()
    a, b = rng.rand(*shape), rng.rand(*shape)
    np.testing.assert_allclose(native(plain)(a), np.cov(a), rtol=1e-12)
    for f, rowvar in ((by_rows, True), (by_columns, False)):
        np.testing.assert_allclose(f(a), np.cov(a, rowvar=rowvar), rtol=1e-12)
    np.testing.assert_allclose(with_y(a, b), np.cov(a, y=b), rtol=1e-12)
    np.testing.assert_allclose(biased(a), np.cov(a, bias=True), rtol=1e-12)
    np.testing.assert_allclose(ddof0(a), np.cov(a, ddof=0), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="fweights"):
        T.cov(T.dmatrix(), fweights=a)


def test_swapaxes():
    y = T.dtensor3()
    data = rng.rand(2, 3, 4)
    for out in (T.swapaxes(y, 0, 2), y.swapaxes(0, 2)):
        np.testing.assert_array_equal(native(irc.function([y], out))(data), np.swapaxes(data, 0, 2))
    for args in ((2, 0, 1), ([2, 1], 0, 1), ([[2, 1], [3, 4]], 3, 4)):
        with pytest.raises(IndexError):
            T.swapaxes(*args)


@pytest.mark.parametrize("xshape, pshape", [((5,), (5,)), ((3, 5), (5,)), ((3, 5), (3, 5)), ((5,), (3, 5)),
                                             ((4, 1, 5), (3, 5))])
def test_permute_row_elements_and_its_inverse(xshape, pshape):
    bcast = tuple(d == 1 for d in xshape)
    x = T.TensorType("float64", bcast)()
    p = T.TensorType("int32", (False,) * len(pshape))()
    data = rng.rand(*xshape)
    perms = np.asarray([rng.permutation(pshape[-1]) for _ in range(int(np.prod(pshape[:-1])))],
                       dtype="int32").reshape(pshape)
    lead = np.broadcast_shapes(xshape[:-1], pshape[:-1])
    xb, pb = np.broadcast_to(data, (*lead, xshape[-1])), np.broadcast_to(perms, (*lead, pshape[-1]))
    expected = np.take_along_axis(xb, pb, axis=-1)
    out = native(irc.function([x, p], T.permute_row_elements(x, p)))(data, perms)
    np.testing.assert_array_equal(out, expected)
    back = native(irc.function([x, p], T.permute_row_elements(T.permute_row_elements(x, p), p, inverse=1)))
    np.testing.assert_array_equal(back(data, perms), xb)
    T.verify_grad(lambda v: T.permute_row_elements(v, perms), [data], rng=rng)


def test_get_scalar_constant_value():
    g, NotConstant = T.get_scalar_constant_value, T.NotScalarConstantError
    a = T.stack([1, 2, 3])
    assert [int(g(a[k])) for k in range(3)] == [1, 2, 3]
    b = T.iscalar()
    a = T.stack([b, 2, 3])
    assert g(a[1]) == 2
    with pytest.raises(NotConstant):
        g(a[0])
    with pytest.raises(NotConstant):
        g(T.stack([T.ivector(), [2], [3]])[1])
    assert g(T.row().shape[0]) == 1
    c = T.constant(rng.rand(5, 5))
    assert g(c[1, 3]) == c.data[1, 3]
    assert g(np.array(3)) == 3
    with pytest.raises(NotConstant):
        g(np.array([0, 1]))
    with pytest.raises(T.EmptyConstantError):
        g(np.array([]))
    k = T.constant(0.25)
    assert g(k * 4 + 1) == 2.0 and g(T.second(k, 0.4)) == 0.4 and g(k < 0.5) == 1
    with pytest.raises(NotConstant):
        g(irc.shared(1.0))


def test_power_second_and_configdefaults():
    x = T.dvector()
    np.testing.assert_array_equal(irc.function([x], T.power(x, [1, 2, 3]))([1.0, 2.0, 3.0]), [1, 4, 27])
    np.testing.assert_array_equal(irc.function([x], T.second(x, 2.0))([1.0, 5.0]), [2.0, 2.0])
    assert irc.configdefaults.local_bitwidth() == 64 and irc.configdefaults.python_int_bitwidth() == 64


@pytest.mark.parametrize("axes", [(0, 1), (1, 2), (0, 2), [np.array(0), np.array(2)], np.array(1)])
def test_argmax_and_argmin_over_several_axes_and_axes_as_arrays(axes):
    """Theano's rule: the index into the reduced axes flattened in order, the others kept."""
    x = T.dtensor3()
    a = rng.rand(3, 4, 5)
    picked = tuple(int(v) for v in np.atleast_1d(axes))
    kept = [d for d in range(3) if d not in picked]
    merged = np.transpose(a, kept + list(picked)).reshape([a.shape[k] for k in kept] + [-1])
    f = native(irc.function([x], [x.argmax(axes), x.argmin(axes, keepdims=True)]))
    top, bottom = f(a)
    np.testing.assert_array_equal(top, merged.argmax(-1))
    np.testing.assert_array_equal(bottom.reshape(merged.shape[:-1]), merged.argmin(-1))
    assert bottom.ndim == 3
    for reduce in ("sum", "mean", "max", "min", "var"):
        np.testing.assert_allclose(irc.function([x], getattr(x, reduce)(axes))(a),
                                   getattr(np, reduce)(a, axis=picked), rtol=1e-12)


def test_sort_and_argsort_along_an_axis_given_at_run_time():
    """Theano's symbolic `axis` (here a float scalar, as its test_sort): a lazy choice among
    the sorts along each axis, compiled."""
    a, axis = T.dmatrix(), T.scalar()
    data = rng.rand(3, 4)
    f = native(irc.function([a, axis], [T.sort(a, axis), T.argsort(a, axis)]))
    for k in (0, 1, -1, -2):
        values, order = f(data, k)
        np.testing.assert_array_equal(values, np.sort(data, k))
        np.testing.assert_array_equal(order, np.argsort(data, k, kind="stable"))
    assert irc.function([a], T.sort(a, T.constant(0)))(data).tolist() == np.sort(data, 0).tolist()


def test_copy_and_an_empty_tuple_index():
    x = T.dmatrix("x")
    y = x.copy(name="y")
    data = rng.rand(2, 2)
    assert y.name == "y" and y is not x
    np.testing.assert_array_equal(irc.function([x], y)(data), data)
    assert irc.function([x], x[:, ()])(data).shape == (2, 0) == data[:, ()].shape


def test_isclose_allclose_and_the_grids():
    left = np.asarray([0., 1., -1., 0., np.nan, np.inf, -np.inf, np.inf])
    right = np.asarray([0., 1.0001, -1.000000000001, np.nan, np.nan, np.inf, np.inf, 0.])
    x, y = T.dvector(), T.dvector()
    for equal_nan in (False, True):
        close = irc.function([x, y], [T.isclose(x, y, equal_nan=equal_nan), T.allclose(x, y, equal_nan=equal_nan)])
        got, every = close(left, right)
        np.testing.assert_array_equal(got, np.isclose(left, right, equal_nan=equal_nan))
        assert bool(every) == np.allclose(left, right, equal_nan=equal_nan)
    for ours, numpys in ((T.mgrid[0:1:.1, 1:10:1., 10:100:10.], np.mgrid[0:1:.1, 1:10:1., 10:100:10.]),
                         (T.ogrid[0:2:1, 1:10:1, 10:100:10], np.ogrid[0:2:1, 1:10:1, 10:100:10])):
        for t, n in zip(ours, numpys):
            np.testing.assert_allclose(t.eval(), n, rtol=1e-12)
    i, j = T.lscalars("i", "j")
    f = irc.function([i, j], T.mgrid[i:3, 0:j])
    for t, n in zip(f(0, 4), np.mgrid[0:3, 0:4]):
        np.testing.assert_array_equal(t, n)


def test_inverse_permutation_stacklists_smallest_and_max_and_argmax():
    p, pm = T.ivector(), T.imatrix()
    pv = rng.permutation(7).astype("int32")
    pmv = np.asarray([rng.permutation(5) for _ in range(3)], "int32")
    np.testing.assert_array_equal(native(irc.function([p], T.inverse_permutation(p)))(pv), np.argsort(pv))
    np.testing.assert_array_equal(irc.function([pm], T.inverse_permutation(pm))(pmv), np.argsort(pmv, axis=1))
    a, b, c, d = T.dscalars("a", "b", "c", "d")
    assert irc.function([a, b, c, d], T.stacklists([[a, b], [c, d]]))(1, 2, 3, 4).tolist() == [[1, 2], [3, 4]]
    assert T.smallest([1, 5], [3, 2], [4, 0]).eval().tolist() == [1, 0]
    assert T.largest([1, 5], [3, 2]).eval().tolist() == [3, 5]
    m = T.dmatrix()
    top, where = irc.function([m], T.max_and_argmax(m, 1))(np.array([[1.0, 3.0], [4.0, 2.0]]))
    assert top.tolist() == [3.0, 4.0] and where.tolist() == [1, 0]


@pytest.mark.parametrize("shape", [(8,), (8, 9), (3, 4, 5)])
def test_nonzero_flatnonzero_and_nonzero_values(shape):
    data = rng.rand(*shape)
    data[:2] = 0
    x = T.TensorType("float64", (False,) * len(shape))()
    np.testing.assert_array_equal(irc.function([x], T.nonzero(x, return_matrix=True))(data),
                                  np.vstack(np.nonzero(data)))
    for got, want in zip(irc.function([x], list(x.nonzero()))(data), np.nonzero(data)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(irc.function([x], T.flatnonzero(x))(data), np.flatnonzero(data))
    np.testing.assert_array_equal(irc.function([x], x.nonzero_values())(data), data[np.nonzero(data)])
    with pytest.raises(ValueError, match="at least one dim"):
        T.nonzero(T.dscalar())


def test_var_with_ddof_take_modes_and_flatten_outdim():
    a = T.dtensor3()
    data = np.arange(60.0).reshape(3, 4, 5)
    for axis in (None, 0, 2):
        for ddof in (0, 1):
            np.testing.assert_allclose(irc.function([a], T.var(a, axis=axis, ddof=ddof))(data),
                                       np.var(data, axis=axis, ddof=ddof), rtol=1e-12)
            np.testing.assert_allclose(irc.function([a], a.std(axis, ddof=ddof))(data),
                                       np.std(data, axis=axis, ddof=ddof), rtol=1e-12)
    corrected = irc.function([a], T.var(a, corrected=True))(data)
    centered = data - data.mean()
    np.testing.assert_allclose(corrected, np.mean(centered ** 2) - np.mean(centered) ** 2, rtol=1e-12)
    assert irc.function([a], T.flatten(a, outdim=2))(data).shape == (3, 20)
    m = T.dmatrix()
    mv, idx = rng.rand(5, 4), np.array([[1, 0, 5], [-1, 7, 2]])
    for axis in (1, -1, 0, None):
        for mode in ("wrap", "clip"):
            np.testing.assert_array_equal(m.take(idx, axis, mode=mode).eval({m: mv}), mv.take(idx, axis, mode=mode))
    with pytest.raises(ValueError, match="mode"):
        m.take(idx, 0, mode="bogus")


@pytest.mark.parametrize("pattern, ndim, expected", [((False,) * 4, 2, (False, False)),
                                                     ((False, True, False, True), 2, (False, False)),
                                                     ((False, True, True, True), 2, (False, True)),
                                                     ((True, False, True, True), 3, (True, False, True))])
def test_flatten_keeps_the_broadcast_pattern(pattern, ndim, expected):
    """Theano's test_flatten_broadcastable: the merged dim is 1 when every merged dim is."""
    x = T.TensorType("float64", pattern)()
    out = T.flatten(x, ndim)
    assert out.broadcastable == expected
    data = rng.rand(*[1 if b else 3 for b in pattern])
    np.testing.assert_array_equal(irc.function([x], out)(data), data.reshape(data.shape[:ndim - 1] + (-1,)))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_diag_of_any_matrix_and_offsets_and_outer_of_any_rank(shape):
    m, v = T.dmatrix(), T.dvector()
    data = rng.rand(*shape)
    for k in (-2, -1, 0, 1, 2, 7):
        np.testing.assert_array_equal(native(irc.function([m], T.diag(m, k)))(data), np.diag(data, k))
    vec = rng.rand(4)
    for k in (-2, 0, 3):
        np.testing.assert_array_equal(irc.function([v], T.diag(v, k))(vec), np.diag(vec, k))
    T.verify_grad(T.diag, [data], rng=rng)
    x, y = T.dmatrix(), T.dtensor3()
    a, b = rng.rand(2, 3), rng.rand(2, 1, 2)
    np.testing.assert_allclose(irc.function([x, y], T.outer(x, y))(a, b), np.outer(a, b), rtol=1e-12)


def test_as_tensor_variable_strips_leading_broadcastable_dims_only():
    """Theano's test_strip_leading_broadcastable (its error is a ValueError; irc's also a TypeError)."""
    x = T.TensorType("float64", (True, False))("x")
    assert T.as_tensor_variable(x, ndim=1).ndim == 1
    for error in (ValueError, TypeError):
        with pytest.raises(error, match="expected 1"):
            T.as_tensor_variable(T.dmatrix(), ndim=1)


def test_arange_op_class():
    """Theano's TestARange::test_Op_integers and test_grads."""
    a, b, c = T.iscalars("a", "b", "c")
    f = irc.function([a, b, c], T.ARange("int32")(a, b, c))
    for args in [(0, 5, 1), (2, 11, 4), (-5, 1, 1), (10, 2, -2), (10, 2, 2), (0, 0, 1)]:
        np.testing.assert_array_equal(f(*args), np.arange(*args))
    for point in [(0, 4.9, 1), (5.1, 0, -0.5), (1, 5.1, 0.5)]:
        T.verify_grad(lambda x, y, z: T.ARange(x.dtype)(x, y, z), [np.asarray(v, dtype="float64") for v in point],
                      rng=rng)
