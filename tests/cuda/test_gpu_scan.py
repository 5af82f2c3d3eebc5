"""scan on the GPU (the host runs the loop, launching each step's kernels from the CUDA graph
of the whole call) against the same programs on the CPU backend, with
`assert_no_cpu_op='raise'`: a while loop (`until`, its condition read back each step), an RNN's forward pass and its training step (backpropagation
through time, SGD on device-resident weights), taps two steps back with a step count from the
caller, a nested scan; and the tutorial's `ifelse` (its branches on the device). Tolerances: float32, rtol 1e-4 / atol 1e-5 (products in other orders)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.ifelse import ifelse
from irc.scan_module import until

TOL = dict(rtol=1e-4, atol=1e-5)


def _data(seed=0):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, s).astype("float32") for s in [(50, 8, 6), (8, 16), (6, 16), (16, 16), (50, 8, 16)]]


def _rnn(device, train):
    xv, hv, Wv, Uv, yv = _data()
    W, U = irc.shared(Wv / 3, name="W"), irc.shared(Uv / 4, name="U")
    x, h0, y = T.ftensor3("x"), T.fmatrix("h0"), T.ftensor3("y")
    hs, _ = irc.scan(lambda xt, h: T.tanh(T.dot(xt, W) + T.dot(h, U)), sequences=x, outputs_info=h0)
    policy = "raise" if device == "cuda" else "ignore"
    with irc.config.change_flags(device=device, assert_no_cpu_op=policy):
        if not train:
            f = irc.function([x, h0], hs)
            return [f(xv, hv)]
        cost = T.mean((hs - y) ** 2)
        gW, gU = T.grad(cost, [W, U])
        f = irc.function([x, h0, y], cost, updates=[(W, W - 0.1 * gW), (U, U - 0.1 * gU)])
        costs = [f(xv, hv, yv) for _ in range(3)]
        return costs + [W.get_value(), U.get_value()]


def _taps(device):
    x0, n, c = T.fmatrix("x0"), T.lscalar("n"), T.fvector("c")
    seq, _ = irc.scan(lambda a, b, c: a * 0.5 + T.sin(b) * c, outputs_info=dict(initial=x0, taps=[-2, -1]),
                      non_sequences=c, n_steps=n, truncate_gradient=7)
    policy = "raise" if device == "cuda" else "ignore"
    with irc.config.change_flags(device=device, assert_no_cpu_op=policy):
        f = irc.function([x0, n, c], [seq, T.grad(T.sum(seq ** 2), c)])
    rng = np.random.RandomState(1)
    x0v, cv = rng.rand(2, 5).astype("float32"), rng.rand(5).astype("float32")
    return [v for steps in (30, 3) for v in f(x0v, steps, cv)]


def _nested(device):
    m = T.ftensor3("m")

    def row_prefix(mat):
        out, _ = irc.scan(lambda r, acc: acc + r, sequences=mat, outputs_info=T.zeros_like(mat[0]))
        return out[-1]

    totals, _ = irc.scan(row_prefix, sequences=m)
    policy = "raise" if device == "cuda" else "ignore"
    with irc.config.change_flags(device=device, assert_no_cpu_op=policy):
        f = irc.function([m], totals)
    return [f(np.random.RandomState(2).rand(9, 7, 3).astype("float32"))]


def _tutorial_ifelse(device):
    """The tutorial's conditions page (float32 matrices), lazy and eager, both outcomes."""
    a, b = T.scalars("a", "b")
    x, y = T.matrices("x", "y")
    policy = "raise" if device == "cuda" else "ignore"
    with irc.config.change_flags(device=device, floatX="float32", assert_no_cpu_op=policy):
        lazy = irc.function([a, b, x, y], ifelse(T.lt(a, b), T.mean(x), T.mean(y) * 2))
        switch = irc.function([a, b, x, y], T.switch(T.lt(a, b), T.mean(x), T.mean(y) * 2))
    rng = np.random.RandomState(3)
    xv, yv = rng.rand(300, 40).astype("float32"), rng.rand(300, 40).astype("float32")
    return [f(p, q, xv, yv) for f in (lazy, switch) for p, q in ((0.0, 1.0), (1.0, 0.0))]


def _until(device):
    """A while loop: h_t = tanh(h W) until its norm falls under a limit from the caller (the
    host reads each step's condition back), its rows, last state and gradient; calls that stop
    at different steps, and one that runs them all."""
    W = irc.shared(np.random.RandomState(4).uniform(-.6, .6, (16, 16)).astype("float32"), name="W")
    h0, limit = T.fmatrix("h0"), T.fscalar("limit")
    hs, _ = irc.scan(lambda h: (T.tanh(T.dot(h, W)), until(T.sqrt(T.sum(T.tanh(T.dot(h, W)) ** 2)) < limit)),
                     outputs_info=h0, n_steps=40)
    policy = "raise" if device == "cuda" else "ignore"
    with irc.config.change_flags(device=device, assert_no_cpu_op=policy):
        f = irc.function([h0, limit], [hs, hs[-1], T.grad(hs.sum(), W)])
    hv = np.random.RandomState(5).uniform(-1, 1, (8, 16)).astype("float32")
    return [v for lim in (6.5, 5.0, 4.2, 0.0, 6.5) for v in f(hv, np.float32(lim))]


def _branches_on_the_device(device):
    """An `ifelse` whose condition the device computes from device-resident shared variables,
    called often enough to be replayed as one CUDA graph (its branches conditional nodes), the
    condition flipping between calls; and an `ifelse` inside a scan's step."""
    rng = np.random.RandomState(6)
    w = irc.shared(rng.rand(64).astype("float32"), name="w")
    limit = irc.shared(np.float32(0.5), name="limit")
    x = T.fvector("x")
    policy = "raise" if device == "cuda" else "ignore"
    hs, _ = irc.scan(lambda xt, h: ifelse(T.gt(xt, 0.5), h * 0.9 + w, h - w * 0.1), sequences=x,
                     outputs_info=T.zeros_like(w))
    with irc.config.change_flags(device=device, assert_no_cpu_op=policy):
        f = irc.function([], [ifelse(T.lt(T.mean(w), limit), T.exp(w) * 2, T.sqrt(w) + 1), T.sum(w)])
        g = irc.function([x], hs)
    out = []
    for k in range(8):
        limit.set_value(np.float32(0.9 if k % 3 else 0.1))
        out += f()
    return out + [g(rng.rand(20).astype("float32"))]


PROGRAMS = {"branches": _branches_on_the_device, "until": _until, "rnn forward": lambda d: _rnn(d, False), "rnn training": lambda d: _rnn(d, True),
            "taps": _taps, "nested": _nested, "ifelse": _tutorial_ifelse}


# the while loop's gradient sums up to 40 steps of products, its entries up to about 80: float32
# rounding in other orders (an absolute 1e-3 is about 1e-5 of that scale)
TOLERANCES = {"until": dict(rtol=1e-4, atol=1e-3)}


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_control_flow_runs_on_the_gpu_as_on_the_cpu(program):
    for got, want in zip(PROGRAMS[program]("cuda"), PROGRAMS[program]("cpu")):
        np.testing.assert_allclose(np.asarray(got), want, **TOLERANCES.get(program, TOL))

