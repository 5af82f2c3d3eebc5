"""`irc.scan` and its sugar (map, reduce, foldl, foldr) against numpy loops doing the same.

Every function here must compile natively (a fallback to the reference executor warns, and
the module turns that warning into an error). Tolerances: float64 1e-12 relative, float32
1e-5 relative (a recurrence compounds rounding over its steps)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.dialects.builtin import MemRefType
from irc.ifelse import ifelse
from irc.ir.parser import parse_module
from irc.runtime.native_executor import NativeExecutor

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")
RTOL = {"float32": 1e-5, "float64": 1e-12}
rng = np.random.default_rng(7)


def close(a, b, dtype="float64"):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=RTOL[dtype], atol=RTOL[dtype])


def native(f):
    assert isinstance(f.executor, NativeExecutor), type(f.executor)
    return f


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 1000])
def test_recurrence_over_n_steps(dtype, n):
    """h_t = tanh(h_{t-1} W + b): a state, a non-sequence, n_steps given at run time."""
    h0 = T.vector("h0", dtype=dtype)
    W = T.matrix("W", dtype=dtype)
    b = T.vector("b", dtype=dtype)
    k = T.lscalar("k")
    hs, updates = irc.scan(lambda h, W: T.tanh(T.dot(h, W) + b), outputs_info=h0, non_sequences=W, n_steps=k)
    f = native(irc.function([h0, W, b, k], hs))
    h0v = rng.normal(size=4).astype(dtype)
    Wv = (rng.normal(size=(4, 4)) * 0.5).astype(dtype)
    bv = rng.normal(size=4).astype(dtype)
    expected = np.zeros((n, 4), dtype)
    h = h0v
    for t in range(n):
        h = np.tanh(h @ Wv + bv)
        expected[t] = h
    out = f(h0v, Wv, bv, n)
    assert out.dtype == dtype and out.shape == (n, 4) and updates == {}
    close(out, expected, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sequences_are_cut_to_the_shortest_and_to_n_steps(dtype):
    x = T.matrix("x", dtype=dtype)
    y = T.vector("y", dtype=dtype)
    k = T.lscalar("k")
    out, _ = irc.scan(lambda a, b: a * b, sequences=[x, y], n_steps=k)
    f = native(irc.function([x, y, k], out))
    xv, yv = rng.normal(size=(6, 3)).astype(dtype), rng.normal(size=4).astype(dtype)
    close(f(xv, yv, 10), xv[:4] * yv[:, None], dtype)
    close(f(xv, yv, 2), xv[:2] * yv[:2, None], dtype)
    out2, _ = irc.scan(lambda a, b: a * b, sequences=[x, y])
    close(irc.function([x, y], out2)(xv, yv), xv[:4] * yv[:, None], dtype)


def test_taps_minus_two_and_minus_one():
    """Fibonacci: x_t = x_{t-2} + x_{t-1}, from a window of two initial states."""
    x0 = T.lvector("x0")
    fib, _ = irc.scan(lambda a, b: a + b, outputs_info=dict(initial=x0, taps=[-2, -1]), n_steps=10)
    f = native(irc.function([x0], fib))
    assert f([0, 1]).tolist() == [1, 2, 3, 5, 8, 13, 21, 34, 55, 89]
    assert f([7, 0, 1]).tolist()[:2] == [1, 2]  # a longer window: its last states
    with pytest.raises(ValueError, match="initial value of result #0 holds the wrong number of states"):
        f([1])


def test_tap_minus_two_alone_and_sequence_taps():
    """Only x_{t-2} read; a sequence read at t-1 and t (dict(input=, taps=[-1, 0]))."""
    x0 = T.dvector("x0")
    s = T.dvector("s")
    out, _ = irc.scan(lambda s_prev, s_now, x_tm2: x_tm2 * 2 + s_now - s_prev,
                      sequences=dict(input=s, taps=[-1, 0]), outputs_info=dict(initial=x0, taps=[-2]))
    f = native(irc.function([s, x0], out))
    sv, x0v = rng.normal(size=6), np.array([0.5, -1.0])
    buf = list(x0v)
    for t in range(5):
        buf.append(buf[t] * 2 + sv[t + 1] - sv[t])
    close(f(sv, x0v), buf[2:])


def test_go_backwards():
    x = T.dvector("x")
    acc, _ = irc.scan(lambda v, total: total * 0.5 + v, sequences=x, outputs_info=T.constant(0.0), go_backwards=True)
    f = native(irc.function([x], acc))
    xv = rng.normal(size=7)
    expected, total = [], 0.0
    for v in xv[::-1]:
        total = total * 0.5 + v
        expected.append(total)
    close(f(xv), expected)


def test_several_outputs_with_and_without_state():
    """Outputs in outputs_info order: a running sum (state), a square (no state), a product
    (state); non-sequences passed explicitly and read implicitly."""
    x = T.dvector("x")
    c = T.dscalar("c")
    d = T.dscalar("d")
    (sums, squares, prods), updates = irc.scan(
        lambda v, s, p, c: (s + v * c, v ** 2 + d, p * v),
        sequences=x, outputs_info=[T.constant(0.0), None, T.constant(1.0)], non_sequences=c)
    f = native(irc.function([x, c, d], [sums, squares, prods]))
    xv = rng.normal(size=5)
    s_out, q_out, p_out = f(xv, 2.0, 1.0)
    close(s_out, np.cumsum(xv * 2.0))
    close(q_out, xv ** 2 + 1.0)
    close(p_out, np.cumprod(xv))


def test_shared_variable_update_and_implicit_read():
    """A shared variable fn updates becomes a state; its last value is the update scan
    returns. Another shared variable is only read (an implicit non-sequence)."""
    total = irc.shared(np.float64(0.0), name="total")
    scale = irc.shared(np.float64(3.0), name="scale")
    x = T.dvector("x")
    out, updates = irc.scan(lambda v: (v * scale, {total: total + v * scale}), sequences=x)
    assert list(updates) == [total]
    f = native(irc.function([x], out, updates=updates))
    xv = rng.normal(size=4)
    close(f(xv), xv * 3.0)
    close(total.get_value(), xv.sum() * 3.0)
    f(xv)
    close(total.get_value(), xv.sum() * 6.0)


def test_scan_inside_scan():
    """A map over rows whose body is itself a scan (a running sum of the row)."""
    m = T.dmatrix("m")
    out, _ = irc.map(lambda row: irc.scan(lambda v, s: s + v, sequences=row, outputs_info=T.constant(0.0))[0],
                     sequences=m)
    f = native(irc.function([m], out))
    mv = rng.normal(size=(3, 4))
    close(f(mv), np.cumsum(mv, axis=1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_map_reduce_foldl_foldr(dtype):
    x = T.vector("x", dtype=dtype)
    xv = rng.normal(size=6).astype(dtype)
    zero = np.asarray(0, dtype)
    squares, _ = irc.map(lambda v: v * v, sequences=x)
    close(native(irc.function([x], squares))(xv), xv * xv, dtype)
    total, _ = irc.reduce(lambda v, acc: acc + v, sequences=x, outputs_info=zero)
    close(native(irc.function([x], total))(xv), xv.sum(), dtype)
    left, _ = irc.foldl(lambda v, acc: acc * 0.5 + v, sequences=x, outputs_info=zero)
    right, _ = irc.foldr(lambda v, acc: acc * 0.5 + v, sequences=x, outputs_info=zero)
    f = native(irc.function([x], [left, right]))
    lv = rv = 0.0
    for v in xv:
        lv = lv * 0.5 + v
    for v in xv[::-1]:
        rv = rv * 0.5 + v
    out_l, out_r = f(xv)
    close(out_l, lv, dtype)
    close(out_r, rv, dtype)


def test_theano_paths_and_reference_executor():
    """`irc.scan_module.scan` is `irc.scan`; the reference executor runs tensor.scan too."""
    assert irc.scan_module.scan is irc.scan
    x = T.dvector("x")
    out, _ = irc.scan(lambda v, s: s + v, sequences=x, outputs_info=T.constant(0.0))
    xv = rng.normal(size=5)
    for mode in ("DebugMode", irc.Mode(linker="py")):
        close(irc.function([x], out, mode=mode)(xv), np.cumsum(xv))


def test_long_scan_of_a_scalar_state():
    """100,000 steps of a counter (an integer state held as one element per row)."""
    k = T.lscalar("k")
    out, _ = irc.scan(lambda c: c + 1, outputs_info=T.constant(np.int64(0)), n_steps=k)
    f = native(irc.function([k], out[-1]))
    assert int(f(100_000)) == 100_000


def test_a_random_stream_inside_the_step_draws_every_step_and_every_call():
    """A draw in fn reads a shared state with a default update: as in Theano, scan makes that
    state a loop state (new numbers each step) and returns its final value as an update."""
    from irc.tensor.shared_randomstreams import RandomStreams
    srng = RandomStreams(seed=7)
    rows, updates = irc.scan(lambda: srng.uniform((3,)), n_steps=4)
    assert len(updates) == 1
    g = irc.function([], rows, updates=updates)
    a, b = g(), g()
    assert a.shape == (4, 3) and len({tuple(r) for r in a}) == 4
    assert not np.array_equal(a, b) and np.all((a >= 0) & (a < 1))


def test_second_loop_of_one_step_taps_does_not_reuse_the_first_loops_values():
    """Taps of [-1] lower the body twice (step 0, then steps 1..); a value the first copy
    bound (here the concatenation's pieces) must not stand in for the second's."""
    h0 = T.scalar("h0")
    w = T.vector("w")
    out, _ = irc.scan(lambda h: T.concatenate([(h * 2).dimshuffle("x"), w]).sum(), outputs_info=h0, n_steps=4)
    f = native(irc.function([h0, w], out))
    expected, h = [], 1.0
    for _ in range(4):
        h = h * 2 + 1.0
        expected.append(h)
    close(f(1.0, np.array([1.0])), expected)


@pytest.mark.parametrize("cv", [1.0, -1.0])
def test_ifelse_in_the_body_in_the_reference_executor(cv):
    """The reference runs a body's nested ifs with the values they read from the body."""
    x = T.vector("x")
    c = T.scalar("c")
    out, _ = irc.scan(lambda xt: ifelse(c > 0, T.exp(xt) + 1.0, xt * 2.0), sequences=x)
    f = irc.function([x, c], out, mode=irc.Mode(linker="py"))
    xv = rng.normal(size=5)
    close(f(xv, cv), np.exp(xv) + 1.0 if cv > 0 else xv * 2.0)


def _for_bodies_free_their_buffers(f) -> int:
    """Check that every buffer a `loop.for` step allocates (a branch's temporaries, the if's
    result) is freed inside that step; returns how many there are."""
    module = parse_module(f.ir("loop"))
    count = 0
    for loop in [op for op in module.walk() if op.op_name == "loop.for"]:
        freed = {op.operand(0) for op in loop.walk() if op.op_name == "loop.dealloc"}
        made = [r for op in loop.walk() if op.op_name in ("loop.alloc", "loop.if") for r in op.results
                if isinstance(r.type, MemRefType) and r not in _yielded_by_branches(op)]
        assert all(r in freed for r in made), f.ir("loop")
        count += len(made)
    return count


def _yielded_by_branches(op) -> set:
    """A branch's yielded buffer is owned by the if's result, not freed in the branch."""
    parent = op.parent
    return set(parent.terminator.operands) if parent.parent_op.op_name == "loop.if" else set()


def test_ifelse_in_the_body_frees_the_steps_buffers():
    """A step's if result and branch temporaries are freed within the step; indexing the
    result afterwards (a check that may fail after the loop) compiles."""
    x = T.matrix("x")
    c = T.scalar("c")
    i = T.lscalar("i")
    # a cumulative sum after the exp: the branch keeps two buffers even after fusion
    out, _ = irc.scan(lambda xt: ifelse(c > 0, T.cumsum(T.exp(xt), axis=0) + 1.0, xt * 2.0), sequences=x)
    f = native(irc.function([x, c, i], out[i] * 3.0))
    xv = rng.normal(size=(4, 3))
    close(f(xv, 1.0, 2), (np.cumsum(np.exp(xv[2])) + 1.0) * 3.0)
    close(f(xv, -1.0, 1), xv[1] * 6.0)
    assert _for_bodies_free_their_buffers(f) >= 2


def test_a_value_the_step_needs_anyway_is_lowered_once_before_its_ifelse():
    """`e` is read by a branch and after the ifelse: the scan body computes it once."""
    x = T.matrix("x")
    c = T.scalar("c")

    def step(xt):
        e = T.exp(xt)
        return ifelse(c > 0, e * 2.0, xt) + e

    out, _ = irc.scan(step, sequences=x)
    f = native(irc.function([x, c], out))
    assert f.ir("tensor").count("tensor.exp") == 1
    xv = rng.normal(size=(3, 2))
    close(f(xv, 1.0), 3.0 * np.exp(xv))
    close(f(xv, -1.0), xv + np.exp(xv))


@pytest.mark.parametrize("taps, expected", [([-2, -1], lambda x: x[:-2] * 10 + x[1:-1]),
                                            ([1, 2], lambda x: x[1:-1] * 10 + x[2:]),
                                            ([2], lambda x: x[2:] * 11)])
def test_sequence_taps_all_before_or_all_after_the_step(taps, expected):
    """Tap t reads x[step + t]; the window Theano iterates over always holds the step itself,
    so taps [-2, -1] run len - 2 steps from x[2] (Theano's test_using_negative_taps_sequence)."""
    x = T.dvector("x")
    fn = (lambda a, b: a * 10 + b) if len(taps) == 2 else (lambda a: a * 11)
    out, _ = irc.scan(fn, sequences=dict(input=x, taps=taps))
    xv = np.arange(1.0, 7.0)
    close(native(irc.function([x], out))(xv), expected(xv))


def test_empty_outputs_info_means_outputs_without_state():
    """Theano's test_map_functionality: `outputs_info=[]` with outputs is a map."""
    u = T.dvector("u")
    out, _ = irc.scan(lambda v: v + 3, u, [], [])
    close(native(irc.function([u], out))(np.array([1.0, 2.0])), [4.0, 5.0])


def test_taps_reach_fn_in_the_order_given():
    """Theano's test_using_taps_input_output: `taps=[-1, -2]` passes x[t-1] then x[t-2]."""
    u, x0 = T.dvector("u"), T.dvector("x0")
    out, _ = irc.scan(lambda u_tm2, x_tm1, x_tm2: u_tm2 * 0.5 + x_tm1 * 2.0 + x_tm2,
                      dict(input=u, taps=-2), dict(initial=x0, taps=[-1, -2]), [])
    uv, xv = np.array([1.0, 2.0, 3.0, 4.0]), np.array([10.0, 20.0])
    first = uv[0] * 0.5 + xv[1] * 2.0 + xv[0]
    close(native(irc.function([u, x0], out))(uv, xv), [first, uv[1] * 0.5 + first * 2.0 + xv[1]])
    s, _ = irc.scan(lambda a, b: a * 10 + b, sequences=dict(input=u, taps=[1, -1]))
    close(native(irc.function([u], s))(uv), uv[2:] * 10 + uv[:-2])
