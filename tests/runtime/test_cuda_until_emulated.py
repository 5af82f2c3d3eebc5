"""scan with `until` under device=cuda: the host loop launches each step's kernels and reads the
step's condition back (`gpu.read_flag`), then goes on along the path the flags chose (a plan
per path, `host_plan.run_readbacks`). Run by the kernel emulator with no host op, against plain
Python loops (float64: exact, or 1e-12) and the CPU backend."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.dialects import gpu as G
from irc.runtime import host_plan
from irc.scan_module import until
from test_cuda_path_emulated import cuda_emulated  # noqa: F401  (the fixture)


def no_host_ops():
    return irc.config.change_flags(assert_no_cpu_op="raise")


@pytest.mark.parametrize("stop_at", [0, 4, None])
def test_a_map_stops_after_the_step_whose_condition_holds(cuda_emulated, stop_at):
    x = T.dvector("x")
    o, _ = irc.scan(lambda x_t: (x_t + 1, until(x_t > 3)), x)
    with no_host_ops():
        f = irc.function([x], [o, o.shape[0], o.sum()])
    xv = np.zeros(9)
    if stop_at is not None:
        xv[stop_at] = 4
    run = 9 if stop_at is None else stop_at + 1
    out, n, total = f(xv)
    assert out.shape == (run,) and int(n) == run
    np.testing.assert_array_equal(out, xv[:run] + 1)
    assert float(total) == (xv[:run] + 1).sum()


def test_each_call_takes_its_own_path_and_states_stop_on_an_outer_value(cuda_emulated):
    """Theano's test_condition_hidden_inp: two states, a limit from the caller; calls that stop
    at different steps (a plan per path), and one that runs every step."""
    limit = T.dscalar("limit")

    def accum(prev, step):
        new = prev + step
        return [new, step + 1.0], until(new > limit)

    (sums, steps), _ = irc.scan(accum, outputs_info=[T.constant(0.0), T.constant(0.0)], n_steps=12)
    with no_host_ops():
        f = irc.function([limit], [sums, steps])
    for lim in (10.0, 2.0, 1e9, 10.0):
        want, value, step = [], 0.0, 0.0
        for _ in range(12):
            value, step = value + step, step + 1
            want.append(value)
            if value > lim:
                break
        s, k = f(lim)
        np.testing.assert_array_equal(s, want)
        np.testing.assert_array_equal(k, np.arange(1.0, len(want) + 1))


def test_a_matrix_state_its_last_row_and_the_gradient_over_the_steps_run(cuda_emulated):
    """h_t = tanh(h W) until its norm falls under a threshold: the rows run, the last state and
    d sum(h)/dW through the backward scan of the steps run, against the CPU backend."""
    rng = np.random.RandomState(0)
    W = irc.shared(rng.uniform(-.6, .6, (4, 4)), name="W")
    h0 = T.dmatrix("h0")
    hs, _ = irc.scan(lambda h: (T.tanh(T.dot(h, W)), until(T.sqrt(T.sum(T.tanh(T.dot(h, W)) ** 2)) < 0.5)),
                     outputs_info=h0, n_steps=15)
    outs = [hs, hs[-1], T.grad(hs.sum(), W)]
    with no_host_ops():
        f = irc.function([h0], outs)
    with irc.config.change_flags(device="cpu"):
        g = irc.function([h0], outs)
    for seed in (1, 2):
        hv = np.random.RandomState(seed).uniform(-1, 1, (3, 4))
        got, want = f(hv), g(hv)
        assert got[0].shape == want[0].shape
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_the_host_function_reads_the_flag_and_plans_follow_the_path(cuda_emulated):
    """The host IR holds one `gpu.read_flag` in the step loop; the plan recorded with readback
    2 read true agrees with the all-false plan on everything before it."""
    x = T.dvector("x")
    o, _ = irc.scan(lambda x_t: (x_t * 2, until(x_t > 3)), x)
    with no_host_ops():
        f = irc.function([x], o)
    f(np.zeros(6))
    (module,) = cuda_emulated
    host = next(op for op in module.body.ops if op.op_name == "func.func")
    assert sum(isinstance(op, G.ReadFlagOp) for op in host.walk()) == 1
    shapes, dtypes = [(6,)], [np.dtype("float64")]
    full = host_plan.record_plan(host, shapes, dtypes)
    cut = host_plan.record_plan(host, shapes, dtypes, stops=(2,))
    assert len(full.readbacks) == 6 and len(cut.readbacks) == 3
    rb = full.readbacks[2]
    assert cut.readbacks == full.readbacks[:3]
    assert cut.launches[:rb.position] == full.launches[:rb.position]
    assert cut.allocs[:rb.allocs] == full.allocs[:rb.allocs]
    assert cut.results[0].shape == (3,) and full.results[0].shape == (6,)
