"""`irc.scan_module.until`: a scan that stops after the step whose condition holds (Theano's
while loop), natively (an early exit from the step loop) and in the reference executor, with
its gradient. Expected values come from plain Python loops doing the same; float64 throughout,
so results are compared exactly or to 1e-12."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.frontend.scan import ScanError
from irc.ir.parser import parse_module
from irc.runtime.native_executor import NativeExecutor
from irc.scan_module import until

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def native(f):
    assert isinstance(f.executor, NativeExecutor), type(f.executor)
    return f


def both(inputs, outputs, **kw):
    """The function compiled natively and run by the reference executor."""
    return native(irc.function(inputs, outputs, **kw)), irc.function(inputs, outputs, mode=irc.Mode(linker="py"), **kw)


@pytest.mark.parametrize("stop_at", [0, 23, 49, None])
def test_a_map_stops_after_the_step_whose_condition_holds(stop_at):
    x = T.dvector("x")
    o, updates = irc.scan(lambda x_t: (x_t + 1, until(x_t > 3)), x)
    assert updates == {}
    xv = np.zeros(50)
    if stop_at is not None:
        xv[stop_at] = 4
    run = 50 if stop_at is None else stop_at + 1
    for f in both([x], [o, o.shape[0], o.sum()]):
        out, n, total = f(xv)
        assert out.shape == (run,) and int(n) == run
        np.testing.assert_array_equal(out, xv[:run] + 1)
        assert total == (xv[:run] + 1).sum()


@pytest.mark.parametrize("limit", [100.0, 1e9])
def test_states_stop_on_a_condition_over_an_outer_value(limit):
    """Theano's test_condition_hidden_inp: two states, the condition reads an input."""
    max_value = T.dscalar("max_value")
    n_steps = T.lscalar("n_steps")

    def accum(prev_value, step):
        new_value = prev_value + step
        return [new_value, step + 1], until(new_value > max_value)

    (sums, steps), _ = irc.scan(accum, outputs_info=[T.constant(0.0), T.constant(np.int64(0))], n_steps=n_steps)
    expected_sums, expected_steps, value, step = [], [], 0.0, 0
    for _ in range(100):
        value, step = value + step, step + 1
        expected_sums.append(value)
        expected_steps.append(step)
        if value > limit:
            break
    for f in both([max_value, n_steps], [sums, steps]):
        s, k = f(limit, 100)
        np.testing.assert_array_equal(s, expected_sums)
        np.testing.assert_array_equal(k, expected_steps)
        assert k.dtype == np.int64


def test_a_window_of_two_states():
    """taps [-2, -1] (the window rows sit in front of the results' buffer): Fibonacci until
    past 20, out of at most 50 steps."""
    h0 = T.dvector("h0")
    o, _ = irc.scan(lambda a, b: (a + b, until(a + b > 20)), outputs_info=dict(initial=h0, taps=[-2, -1]),
                    n_steps=50)
    for f in both([h0], o):
        np.testing.assert_array_equal(f(np.array([1.0, 1.0])), [2, 3, 5, 8, 13, 21])


def test_outputs_updates_and_condition_and_a_condition_that_is_not_bool():
    """`(outputs, updates, until(c))`: the shared variable is updated by the steps run; a
    number as condition means `!= 0` (Theano's test_savemem... returns `until(x)` of a float)."""
    count = irc.shared(np.int64(0), name="count")
    x = T.dvector("x")
    o, updates = irc.scan(lambda v: (v * 2, {count: count + 1}, until(v < 0)), sequences=x)
    f = native(irc.function([x], o, updates=updates))
    np.testing.assert_array_equal(f(np.array([1.0, 2.0, -1.0, 4.0])), [2.0, 4.0, -2.0])
    assert int(count.get_value()) == 3
    ones, _ = irc.scan(lambda v: ([v], (), until(v)), outputs_info=[T.constant(1.0)], n_steps=2)
    assert native(irc.function([], ones))().tolist() == [1.0]


def test_gradient_over_the_steps_run():
    """Theano's test_grad_until: d/dx of sum(x_t²) over the steps run, zero after them."""
    x = T.dvector("x")
    u = T.dscalar("u")
    r, _ = irc.scan(lambda v, u: (v * v, until(v > u)), sequences=x, non_sequences=[u])
    g = T.grad(r.sum(), x)
    seq = np.arange(15.0)
    for f in both([x, u], [r, g]):
        out, grad = f(seq, 5.0)
        np.testing.assert_array_equal(out, seq[:7] ** 2)
        np.testing.assert_array_equal(grad, np.concatenate([2 * seq[:7], np.zeros(8)]))


def test_gradient_with_sequence_taps_and_truncation():
    """Theano's test_grad_until_and_truncate_sequence_taps (its gradient computed by hand)."""
    x = T.dvector("x")
    u = T.dscalar("u")
    r, _ = irc.scan(lambda a, b, u: (a * b, until(b > u)), sequences=dict(input=x, taps=[-2, 0]),
                    non_sequences=[u], truncate_gradient=3)
    g = T.grad(r.sum(), x)
    for f in both([x, u], [r, g]):
        out, grad = f(np.arange(15.0), 6.0)
        np.testing.assert_array_equal(out, [0, 3, 8, 15, 24, 35])
        np.testing.assert_array_equal(grad, [0, 0, 0, 5, 6, 10, 4, 5, 0, 0, 0, 0, 0, 0, 0])


def test_gradient_of_a_state_counts_the_steps_run():
    """Theano's test_infer_shape: out_t = out_{t-1} + noise until past 5, d sum(out)/d x0 is
    the number of rows."""
    from irc.tensor.shared_randomstreams import RandomStreams
    x = T.dscalar("x")
    srng = RandomStreams(0)
    out, updates = irc.scan(lambda prev: (prev + srng.uniform(), until(prev > 5)), outputs_info=x, n_steps=10)
    f = native(irc.function([x], [out, T.grad(out.sum(), x)], updates=updates))
    for start in range(-5, 5):
        rows, grad = f(float(start))
        assert len(rows) == grad and 1 <= len(rows) <= 10
        assert rows[-1] > 5 or len(rows) == 10


def test_the_loop_ir_leaves_the_loop_early():
    """The step loops carry `going` and are marked `irc.while = 0`; code generation tests it in
    the loop header (an `and` with the bound check)."""
    x = T.dvector("x")
    o, _ = irc.scan(lambda v: (v + 1, until(v > 3)), x)
    f = native(irc.function([x], o))
    loops = [op for op in parse_module(f.ir("loop")).walk() if op.op_name == "loop.for"]
    assert loops and all(op.attributes["irc.while"].value == 0 for op in loops)
    assert " and i1 " in f.ir("llvm-raw")


def test_errors_name_the_problem():
    x = T.dvector("x")
    with pytest.raises(TypeError, match="scalar"):
        until(x > 0)
    with pytest.raises(ScanError, match="condition comes last"):
        irc.scan(lambda v: (until(v > 0), v + 1), x)
    with pytest.raises(ScanError, match=r"\(outputs, updates, until"):
        irc.scan(lambda v: (v + 1, v * 2, until(v > 0)), x)
