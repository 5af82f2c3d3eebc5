"""`RandomStreams`: compiled draws equal the generator's numpy definition (uniform bit for bit,
normal within a few ulp: the compiled log/cos are the project's mathlib), their statistics fall
within bounds (fixed seeds; the bounds are ~5 standard errors, so a wrong transform fails), and
the state API (default updates, no_default_updates, seeding, save/restore) behaves as Theano's.
Errors name the user's line."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.dialects.philox import sample
from irc.sandbox.rng_mrg import MRG_RandomStreams
from irc.tensor.shared_randomstreams import RandomStreams

N = 200_000
NORMAL_RTOL = {"float32": 2e-6, "float64": 1e-13}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("distribution", ["uniform", "normal"])
def test_compiled_draws_equal_the_definition(distribution, dtype):
    srng = RandomStreams(seed=7)
    x = T.matrix(dtype=dtype)
    r = getattr(srng, distribution)(x.shape, dtype=dtype)
    f = irc.function([x], r)
    for _ in range(2):  # the second call draws with the advanced counter
        state = r.rng.get_value()
        out = f(np.zeros((30, 101), dtype))
        ref = sample(state, (30, 101), distribution, dtype)
        assert out.dtype == dtype and out.shape == (30, 101)
        if distribution == "uniform":
            np.testing.assert_array_equal(out, ref)
        else:
            np.testing.assert_allclose(out, ref, rtol=NORMAL_RTOL[dtype], atol=NORMAL_RTOL[dtype])
        assert int(r.rng.get_value()[2]) == int(state[2]) + 1


def _mean_var_within(values, mean, var, count):
    values = np.asarray(values, dtype=np.float64)
    assert abs(values.mean() - mean) < 5 * np.sqrt(var / count), values.mean()
    assert abs(values.var() - var) < 0.02 * var, values.var()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_statistics(dtype):
    srng = RandomStreams(seed=123)
    u = srng.uniform((N,), low=-1.0, high=3.0, dtype=dtype)
    z = srng.normal((N,), avg=2.0, std=0.5, dtype=dtype)
    b = srng.binomial((N,), n=5, p=0.3)
    f = irc.function([], [u, z, b])
    uv, zv, bv = f()
    assert uv.dtype == dtype and zv.dtype == dtype and bv.dtype == np.int64
    assert uv.min() >= -1 and uv.max() < 3
    _mean_var_within(uv, 1.0, 16 / 12, N)
    _mean_var_within(zv, 2.0, 0.25, N)
    _mean_var_within(bv, 1.5, 5 * 0.3 * 0.7, N)
    # the normal's tails: 4.55% beyond 2 sigma (binomial standard error ~0.05%)
    assert abs(np.mean(np.abs(zv - 2.0) > 1.0) - 0.0455) < 0.003
    assert set(np.unique(bv)) <= set(range(6))


def test_binomial_with_a_symbolic_p_and_the_shape_of_p():
    srng = RandomStreams(seed=5)
    p = T.dvector("p")
    b = srng.binomial(p=p, dtype="float64")
    f = irc.function([p], b)
    probs = np.array([0.0, 0.25, 1.0] * 20_000)
    out = f(probs)
    assert out.shape == probs.shape and out.dtype == np.float64
    assert (out[0::3] == 0).all() and (out[2::3] == 1).all()
    assert abs(out[1::3].mean() - 0.25) < 5 * np.sqrt(0.25 * 0.75 / 20_000)


def test_integers_choice_and_permutation():
    srng = RandomStreams(seed=9)
    k = srng.random_integers((N,), low=3, high=7)
    c = srng.choice((N,), a=4, p=[0.1, 0.2, 0.3, 0.4])
    c_uniform = srng.choice((N,), a=3)
    perm = srng.permutation((50,), n=9)
    once = srng.choice((3,), a=10, replace=False)
    kv, cv, cu, pv, ov = irc.function([], [k, c, c_uniform, perm, once])()
    assert kv.min() == 3 and kv.max() == 7
    _mean_var_within(kv, 5.0, 2.0, N)
    frequencies = np.bincount(cv, minlength=4) / N
    np.testing.assert_allclose(frequencies, [0.1, 0.2, 0.3, 0.4], atol=0.005)
    np.testing.assert_allclose(np.bincount(cu, minlength=3) / N, [1 / 3] * 3, atol=0.005)
    assert pv.shape == (50, 9) and (np.sort(pv, axis=1) == np.arange(9)).all()
    assert len({tuple(row) for row in pv}) > 40  # not the same permutation over and over
    assert ov.shape == (3,) and len(set(ov)) == 3 and ov.min() >= 0 and ov.max() < 10


def test_each_call_draws_anew_unless_no_default_updates():
    srng = RandomStreams(seed=1)
    u = srng.uniform((5,))
    f = irc.function([], u)
    g = irc.function([], u, no_default_updates=True)
    h = irc.function([], u, no_default_updates=[u.rng])
    assert [str(n.op) for n in f.maker.fgraph.toposort()] == ["RandomFunction{uniform}", "Elemwise{add,no_inplace}"]
    a, b = f(), f()
    assert not np.array_equal(a, b)
    c = g()
    np.testing.assert_array_equal(c, g())
    np.testing.assert_array_equal(h(), c)
    assert not np.array_equal(c, b)  # f advanced the state g reads


def test_state_save_restore_and_seeding_replay_exactly():
    srng = RandomStreams(seed=3)
    z = srng.normal((4, 3))
    f = irc.function([], z)
    saved = z.rng.get_value().get_state()
    first = [f(), f()]
    rng = z.rng.get_value(borrow=True)
    rng.set_state(saved)
    z.rng.set_value(rng, borrow=True)
    np.testing.assert_array_equal(f(), first[0])
    np.testing.assert_array_equal(f(), first[1])
    srng.seed(3)
    np.testing.assert_array_equal(f(), first[0])
    other = RandomStreams(seed=3)
    np.testing.assert_array_equal(irc.function([], other.normal((4, 3)))(), first[0])
    srng.seed(4)
    assert not np.array_equal(f(), first[0])


def test_draws_of_one_stream_differ_and_a_size_may_be_zero_or_empty():
    srng = RandomStreams(seed=2)
    a, b = srng.uniform((1000,)), srng.uniform((1000,))
    av, bv = irc.function([], [a, b])()
    assert not np.array_equal(av, bv)
    assert abs(np.corrcoef(av, bv)[0, 1]) < 0.15
    empty, scalar = irc.function([], [srng.normal((0, 3)), srng.uniform(())])()
    assert empty.shape == (0, 3) and scalar.shape == () and 0 <= scalar < 1


def test_a_size_read_from_an_input_value_is_read_at_run_time():
    srng = RandomStreams(seed=8)
    n = T.lscalar("n")
    u = srng.uniform((n, 2), dtype="float64")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        f = irc.function([n], T.max(u))  # native: the sample is a temporary
    state = u.rng.get_value()
    assert f(4) == sample(state, (4, 2), "uniform", "float64").max()
    with pytest.raises(Exception, match="'tensor.random' failed at run time: size 0 is negative") as info:
        f(-1)
    assert "test_random_streams.py" in str(info.value)
    with pytest.warns(RuntimeWarning, match="has a size that depends on values read at run time"):
        g = irc.function([n], u)  # a returned sample sized by data: the reference executor
    state = u.rng.get_value()
    np.testing.assert_array_equal(g(3), sample(state, (3, 2), "uniform", "float64"))


def test_no_gradient_through_a_draw():
    srng = RandomStreams(seed=4)
    w = T.dvector("w")
    u = srng.uniform(w.shape, dtype="float64")
    gw = T.grad(T.sum(w * u), w)
    f = irc.function([w], [gw, u], no_default_updates=True)
    g, uv = f(np.ones(6))
    np.testing.assert_array_equal(g, uv)


@pytest.mark.parametrize("build,message", [
    (lambda s: s.uniform((2, -1)), "uniform: size 1 is negative"),
    (lambda s: s.normal((2.5,)), "normal: size 0 must be an integer, got 2.5"),
    (lambda s: s.uniform(T.dmatrix()), "uniform: size must be a tuple of sizes or a vector"),
    (lambda s: s.uniform((2, 3), ndim=1), "uniform: ndim=1 but size"),
    (lambda s: s.binomial((3,), p=1.5), r"binomial: p=1.5 is not a probability"),
    (lambda s: s.binomial((3,), n=-2), "binomial: n must be a non-negative Python int"),
    (lambda s: s.uniform((T.dscalar(),)), "uniform: size 0 must be a 0-d integer"),
    (lambda s: s.choice((20,), a=10, replace=False), "cannot take 20 of 10 without replacement"),
])
def test_bad_draws_name_the_users_line(build, message):
    srng = RandomStreams(seed=0)
    with pytest.raises((ValueError, TypeError)) as info:
        build(srng)
    text = str(info.value)
    assert message in text
    assert "test_random_streams.py:" in text and "error:" in text


def test_bad_seeds_and_states():
    with pytest.raises(ValueError, match=r"a seed must be in \[0, 2\*\*64\)"):
        RandomStreams(seed=-1)
    with pytest.raises(TypeError, match="a seed must be an integer"):
        RandomStreams(seed=1.5)
    u = RandomStreams(seed=0).uniform((2,))
    with pytest.raises(ValueError, match=r"a generator state is an integer array \[key0, key1, draw\] of 3"):
        u.rng.set_value(np.zeros(4, np.int64))


def test_mrg_random_streams_signatures_on_the_same_engine():
    mrg = MRG_RandomStreams(seed=42)
    u = mrg.uniform((N,), nstreams=64)
    z = mrg.normal((N,), avg=1.0, std=2.0)
    b = mrg.binomial(size=(N,), p=0.75, dtype="int8")
    m = mrg.multinomial(pvals=np.tile([[0.2, 0.5, 0.3]], (N // 10, 1)))
    c = mrg.choice(size=(N,), p=[0.25, 0.75])
    uv, zv, bv, mv, cv = irc.function([], [u, z, b, m, c])()
    assert uv.dtype == irc.config.floatX and bv.dtype == np.int8 and mv.dtype == np.int64
    _mean_var_within(uv, 0.5, 1 / 12, N)
    _mean_var_within(zv, 1.0, 4.0, N)
    _mean_var_within(bv, 0.75, 0.75 * 0.25, N)
    assert (mv.sum(axis=1) == 1).all()
    np.testing.assert_allclose(mv.mean(axis=0), [0.2, 0.5, 0.3], atol=0.01)
    np.testing.assert_allclose(np.bincount(cv) / N, [0.25, 0.75], atol=0.005)
    # same seed and draw order as RandomStreams: the same numbers
    np.testing.assert_array_equal(irc.function([], RandomStreams(seed=42).uniform((N,)))(), uv)
    with pytest.raises(NotImplementedError, match="truncate=True"):
        mrg.normal((2,), truncate=True)


def test_size_none_takes_the_parameters_shape():
    srng = RandomStreams(seed=6)
    low = T.dvector("low")
    u = srng.uniform(low=low, high=low + 1)
    z = srng.normal(avg=T.zeros((3, 2)))
    k = srng.uniform(size=np.array([2, 5]))
    uv, zv, kv = irc.function([low], [u, z, k])(np.arange(4.0))
    assert uv.shape == (4,) and ((np.arange(4) <= uv) & (uv < np.arange(4) + 1)).all()
    assert zv.shape == (3, 2) and kv.shape == (2, 5)
