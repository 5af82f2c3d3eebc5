"""Details of Theano's API that its own tests check (theano/tensor/tests/test_basic.py):
addbroadcast/unbroadcast/patternbroadcast identities (a change that changes nothing is the
variable itself; consecutive changes make one op over the source), `transpose(x).name ==
'x.T'`, dot's gradients keep their operands' broadcast patterns, `tile` with symbolic counts,
`is_flat`, `tensor.basic._dot`, `compile.mode.get_mode`, `x.size` of a 0-d x, Theano's clip
when lo > hi, and means accumulated as Theano's (float16 in float32, float32 in float64)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
import irc.tensor.basic as tensor_basic
from irc.compile.mode import Mode, ProfileMode, get_mode


def test_rebroadcast_identities():
    x = T.matrix()
    assert T.unbroadcast(x, 0) is x and T.unbroadcast(x, 1, 0) is x
    assert T.addbroadcast(x, 0) is not x and T.addbroadcast(x, 1, 0).owner.inputs[0] is x
    assert T.unbroadcast(T.addbroadcast(x, 0), 0) is x
    r = T.row()
    assert T.addbroadcast(r, 0) is r and T.unbroadcast(r, 1) is r
    assert T.unbroadcast(T.unbroadcast(r, 0), 0).owner.inputs[0] is r
    s = T.TensorType("float64", (True, True))()
    assert T.unbroadcast(T.unbroadcast(s, 1), 0).owner.inputs[0] is s
    assert T.addbroadcast(T.unbroadcast(s, 0), 0) is s
    assert T.patternbroadcast(x, ()) is x and T.patternbroadcast(x, (True,)).broadcastable == (True, False)
    with pytest.raises(ValueError, match="axis 2 does not exist"):
        T.addbroadcast(x, 2)
    with pytest.raises(ValueError, match="3 flags"):
        T.patternbroadcast(x, (True, True, True))
    f = irc.function([x], [T.unbroadcast(T.addbroadcast(x, 0), 0) * 2, T.patternbroadcast(x, (True, False))])
    a, b = f(np.ones((1, 3)))
    np.testing.assert_array_equal(a, 2 * np.ones((1, 3)))
    assert b.shape == (1, 3)


def test_transpose_names():
    v, m = T.dvector("v"), T.dmatrix("m")
    assert T.transpose(v).name == "v.T" and T.transpose(m).name == "m.T" and m.T.name == "m.T"
    assert v.name == "v" and T.transpose(T.dmatrix()).name is None
    assert T.transpose(T.tensor3("t"), (0, 2, 1)).name is None
    np.testing.assert_array_equal(irc.function([v], T.transpose(v))(np.arange(3.0)), np.arange(3.0))


@pytest.mark.parametrize("bx", [(True,), (False,), (True, False), (False, True)])
@pytest.mark.parametrize("by", [(True,), (False,), (True, True), (False, False)])
def test_dot_gradients_keep_the_operands_patterns(bx, by):
    x, y = T.tensor("float64", bx), T.tensor("float64", by)
    gx, gy = T.grad(T.dot(x, y).sum(), [x, y])
    assert gx.broadcastable == x.broadcastable and gy.broadcastable == y.broadcastable
    xv, yv = np.full([1] * len(bx), 1.5), np.full([1] * len(by), 2.0)
    got = irc.function([x, y], [gx, gy])(xv, yv)
    np.testing.assert_allclose(got[0], np.full_like(xv, 2.0))
    np.testing.assert_allclose(got[1], np.full_like(yv, 1.5))


def test_tile_with_symbolic_counts():
    x = T.dmatrix("x")
    xv = np.arange(8.0).reshape(2, 4)
    d = T.iscalar("d")
    np.testing.assert_array_equal(irc.function([x, d], T.tile(x, [2, d, 4]))(xv, 3), np.tile(xv, [2, 3, 4]))
    np.testing.assert_array_equal(irc.function([x, d], T.tile(x, d))(xv, 3), np.tile(xv, 3))
    r = T.ivector("r")
    with warnings.catch_warnings():  # (an alloc sized by data runs in the reference executor)
        warnings.simplefilter("ignore", RuntimeWarning)
        f = irc.function([x, r], T.tile(x, r, 3))
    np.testing.assert_array_equal(f(xv, [2]), np.tile(xv, [1, 1, 2]))
    np.testing.assert_array_equal(f(xv, [2, 3]), np.tile(xv, [1, 2, 3]))
    for bad in (2.5, T.fscalar(), T.fvector(), T.imatrix()):
        with pytest.raises(ValueError):
            T.tile(x, bad)
    with pytest.raises(ValueError, match="give ndim"):
        T.tile(x, T.ivector())
    with pytest.raises(ValueError, match="ndim"):
        T.tile(x, [2, 3, 4], 2)
    with pytest.raises(ValueError, match="at least x.ndim"):
        T.tile(x, 2, 1)


def test_small_names():
    assert T.is_flat(T.vector()) and T.is_flat(T.tensor3(), ndim=3) and not T.is_flat(T.tensor3())
    assert T.is_flat(T.tensor4().reshape((T.iscalar(),) * 3), ndim=3)
    with pytest.raises(TypeError):
        tensor_basic._dot(T.scalar(), T.vector())
    assert tensor_basic._dot(T.matrix(), T.vector()).ndim == 1
    assert isinstance(get_mode("FAST_RUN"), Mode) and get_mode("FAST_COMPILE").name == "FAST_COMPILE"
    assert get_mode("DebugMode").name == "DebugMode" and isinstance(get_mode("ProfileMode"), ProfileMode)
    m = Mode(optimizer=None)
    assert get_mode(m) is m and get_mode(None).name == irc.config.mode
    with pytest.raises(ValueError, match="unknown mode"):
        get_mode("FAST")
    x = T.dvector()
    assert irc.function([x], x * 2, mode=get_mode("FAST_RUN").excluding("fusion"))(np.ones(2)).tolist() == [2, 2]


def test_size_of_a_scalar_reads_it():
    s = T.dscalar()
    assert irc.function([s], s.size)(2.0) == 1
    assert irc.function([], irc.shared(np.zeros((1, 2, 3))).size)() == 6


def test_clip_is_theanos_when_lo_exceeds_hi():
    x, lo, hi = T.dvector(), T.dscalar(), T.dscalar()
    f = irc.function([x, lo, hi], [T.clip(x, lo, hi)] + T.grad(T.clip(x, lo, hi).sum(), [x, lo, hi]))
    v = np.array([-2.0, 0.5, 3.0])
    out, gx, glo, ghi = f(v, 1.0, -1.0)
    np.testing.assert_array_equal(out, np.where(v < 1.0, 1.0, np.minimum(v, -1.0)))
    out, gx, glo, ghi = f(np.array([-2.0, 0.5, 3.0, np.nan]), 0.0, 1.0)
    np.testing.assert_array_equal(out[:3], [0.0, 0.5, 1.0])
    assert np.isnan(out[3])
    np.testing.assert_array_equal(gx, [0, 1, 0, 0])
    assert glo == 1 and ghi == 1
    assert T.clip(T.fvector(), 0.0, 1.0).dtype == "float32"


def test_float16_mean_is_summed_in_float32():
    x = T.vector(dtype="float16")
    m = x.mean()
    assert m.dtype == "float16"
    assert irc.function([x], m)(np.ones(100000, "float16")) == 1.0


def test_float32_mean_accumulates_in_float64():
    x = irc.shared(np.asarray([1e8, 1, -1e8], dtype="float32"))
    m = x.mean()
    assert m.dtype == "float32"
    np.testing.assert_allclose(irc.function([], m)(), 1 / 3, rtol=1e-7)


@pytest.mark.parametrize("s1,s2", [((4, 5), (5,)), ((5,), (4, 5)), ((2, 3, 2), (3, 2)), ((2,), (2, 3, 2)),
                                   ((1, 5), (4, 5)), ((4, 1), (1, 5))])
def test_second_broadcasts_both_ways(s1, s2):
    """Theano's `second(a, b)` (`fill`): b broadcast against a, either with fewer or size-1 dims;
    the dtype is b's; sizes that do not broadcast fail at run time."""
    a = T.tensor("float64", [n == 1 for n in s1])
    b = T.tensor("int16", [n == 1 for n in s2])
    av, bv = np.random.rand(*s1), np.arange(np.prod(s2), dtype="int16").reshape(s2)
    got = irc.function([a, b], T.second(a, b))(av, bv)
    assert got.dtype == np.int16
    np.testing.assert_array_equal(got, np.broadcast_arrays(av, bv)[1])
    g = irc.function([a, b], T.grad(T.second(a, T.cast(b, "float64")).sum(), b))(av, bv)
    np.testing.assert_array_equal(g, np.ones(s2) * (np.prod(np.broadcast_shapes(s1, s2)) / np.prod(s2)))


def test_second_of_mismatched_sizes_fails_at_run_time():
    a, b = T.dmatrix(), T.dvector()
    with pytest.raises(ValueError):
        irc.function([a, b], T.second(a, b))(np.ones((5, 4)), np.ones(5))


def test_assert_op():
    from irc.tensor.opt import Assert, assert_op
    s = T.dscalar()
    f = irc.function([s], Assert("s must be positive")(s * s, T.gt(s, 0)) + 1)
    assert f(3.0) == 10
    with pytest.raises(AssertionError, match="s must be positive"):
        f(-1.0)
    np.testing.assert_allclose(irc.function([s], T.grad(assert_op(s * s, T.gt(s, 0)), s))(3.0), 6.0)
    c = T.constant(2)
    assert T.get_scalar_constant_value(Assert()(c, c > 1)) == 2
    for a in (Assert()(c, c > 2), Assert()(c, c > s)):
        with pytest.raises(T.NotScalarConstantError):
            T.get_scalar_constant_value(a)
    with pytest.raises(TypeError, match="0-d"):
        Assert()(s, T.dvector() > 0)


def test_tile_by_a_vector_of_more_counts_than_ndim_asserts():
    x, r = T.dmatrix(), T.ivector()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        f = irc.function([x, r], T.tile(x, r, 3))
    with pytest.raises(AssertionError, match="more entries than ndim"):
        f(np.ones((2, 4)), [2, 3, 4, 5])


def test_rebroadcast_of_a_clone_stays_in_the_clones_graph():
    x, y = T.dmatrix("x"), T.dmatrix("y")
    z = T.addbroadcast(x, 0)
    (z2,) = irc.clone([z], replace={x: y})
    back = T.unbroadcast(z2, 0)
    assert back is not x   # (a clone copies the tag; the graph it reads is y's)
    f = irc.function([y], back * 2)
    np.testing.assert_array_equal(f(np.ones((1, 3))), 2 * np.ones((1, 3)))
