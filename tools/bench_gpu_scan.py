"""The control-flow rows of `bench_gpu.py`: an Elman RNN `h = tanh(x_t·W + h·U)` written with
`irc.scan` (batch 32, 128 inputs, hidden 128), forward over 1000 steps and a training step
(forward, backpropagation through time and SGD) over 100 steps, each beside jax's `lax.scan`
under `jit` (with `value_and_grad` for training) and a torch loop (autograd), in the same
process, with the same math; and the tutorial's `ifelse` against `switch` (the conditions
page: the mean of one of two 10000×1000 matrices passed from the host)."""
from __future__ import annotations

from typing import Callable

import numpy as np

import irc
import irc.tensor as T
from irc.ifelse import ifelse
from irc.scan_module import until
from irc.sandbox.cuda.basic_ops import gpu_from_host

BATCH, N_IN, HIDDEN = 32, 128, 128
LR = 0.01


def rnn_data(steps: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, (steps, BATCH, N_IN)).astype("float32")
    y = rng.uniform(-1, 1, (steps, BATCH, HIDDEN)).astype("float32")
    W = (rng.randn(N_IN, HIDDEN) / np.sqrt(N_IN)).astype("float32")
    U = (rng.randn(HIDDEN, HIDDEN) / np.sqrt(HIDDEN)).astype("float32")
    return x, y, W, U, np.zeros((BATCH, HIDDEN), "float32")


def numpy_forward(x, W, U, h0) -> np.ndarray:
    h, out = h0.astype("float64"), []
    for xt in x:
        h = np.tanh(xt @ W + h @ U)
        out.append(h)
    return np.array(out)


def rnn_irc(steps: int, train: bool) -> tuple[Callable[[], object], list]:
    """The forward pass (all states, kept on the device) or the training step (its cost kept on
    the device; W and U updated in place), with every operand a device-resident shared variable."""
    xv, yv, Wv, Uv, h0v = rnn_data(steps)
    x, y, h0 = irc.shared(xv, name="x"), irc.shared(yv, name="y"), irc.shared(h0v, name="h0")
    W, U = irc.shared(Wv, name="W"), irc.shared(Uv, name="U")
    hs, _ = irc.scan(lambda xt, h: T.tanh(T.dot(xt, W) + T.dot(h, U)), sequences=x, outputs_info=h0)
    with irc.config.change_flags(assert_no_cpu_op="raise"):
        if not train:
            return irc.function([], irc.Out(gpu_from_host(hs), borrow=True), name="rnn_forward"), [W, U]
        cost = T.mean((hs - y) ** 2)
        gW, gU = T.grad(cost, [W, U])
        return irc.function([], irc.Out(gpu_from_host(cost), borrow=True),
                            updates=[(W, W - LR * gW), (U, U - LR * gU)], name="rnn_train"), [W, U]


def rnn_until_irc(steps: int, limit: float) -> Callable[[], object]:
    """The forward pass as a while loop: stop after the step whose states sum past `limit`
    (the host reads each step's condition back)."""
    xv, _, Wv, Uv, h0v = rnn_data(steps)
    x, h0 = irc.shared(xv, name="x"), irc.shared(h0v, name="h0")
    W, U = irc.shared(Wv, name="W"), irc.shared(Uv, name="U")

    def step(xt, h):
        new = T.tanh(T.dot(xt, W) + T.dot(h, U))
        return new, until(T.sum(new) > limit)

    hs, _ = irc.scan(step, sequences=x, outputs_info=h0)
    with irc.config.change_flags(assert_no_cpu_op="raise"):
        return irc.function([], irc.Out(gpu_from_host(hs), borrow=True), name="rnn_until")


def rnn_jax(jax, steps: int, train: bool) -> Callable[[], object]:
    jnp = jax.numpy
    xv, yv, Wv, Uv, h0v = (jnp.asarray(a) for a in rnn_data(steps))

    def forward(W, U):
        def cell(h, xt):
            h = jnp.tanh(xt @ W + h @ U)
            return h, h
        return jax.lax.scan(cell, h0v, xv)[1]

    if not train:
        f = jax.jit(forward)
        return lambda: f(Wv, Uv)

    @jax.jit
    def step(ps):
        cost, gs = jax.value_and_grad(lambda q: jnp.mean((forward(*q) - yv) ** 2))(ps)
        return [p - LR * g for p, g in zip(ps, gs)], cost

    state = [[Wv, Uv]]

    def run():
        state[0], cost = step(state[0])
        return cost
    return run


def rnn_torch(torch, steps: int, train: bool) -> Callable[[], object]:
    xv, yv, Wv, Uv, h0v = (torch.as_tensor(a, device="cuda") for a in rnn_data(steps))
    W, U = Wv.clone().requires_grad_(train), Uv.clone().requires_grad_(train)

    def forward():
        h, out = h0v, []
        for t in range(steps):
            h = torch.tanh(xv[t] @ W + h @ U)
            out.append(h)
        return torch.stack(out)

    if not train:
        def run():
            with torch.no_grad():
                return forward()
        return run

    def step():
        cost = torch.mean((forward() - yv) ** 2)
        gW, gU = torch.autograd.grad(cost, [W, U])
        with torch.no_grad():
            W.sub_(LR * gW)
            U.sub_(LR * gU)
        return cost
    return step


def check_forward(f, steps: int) -> float:
    """irc's forward states against numpy's float64 loop: the largest absolute difference."""
    xv, _, Wv, Uv, h0v = rnn_data(steps)
    got = np.asarray(f())
    err = float(np.max(np.abs(got - numpy_forward(xv, Wv, Uv, h0v))))
    assert err < 1e-4, err
    return err


def bench_rnn(t, repeat: int, torch, jax, device_us, irc_sync) -> None:
    forward, _ = rnn_irc(1000, False)
    err = check_forward(forward, 1000)
    mine = t.add("RNN forward, 1000 steps: irc scan", device_us(forward, irc_sync, repeat, 5),
                 f"max abs err {err:.1e} vs numpy")
    train, _ = rnn_irc(100, True)
    mine_train = t.add("RNN training step, 100 steps (BPTT + SGD): irc", device_us(train, irc_sync, repeat, 20))
    if jax is not None:
        run = rnn_jax(jax, 1000, False)
        base = t.add("RNN forward, 1000 steps: jax lax.scan (jit)",
                     device_us(run, lambda: jax.block_until_ready(run()), repeat, 5))
        t.ratio("  RNN forward ratio", mine, base, "of jax's time")
        run = rnn_jax(jax, 100, True)
        base = t.add("RNN training step, 100 steps: jax value_and_grad (jit)",
                     device_us(run, lambda: jax.block_until_ready(run()), repeat, 20))
        t.ratio("  RNN training ratio", mine_train, base, "of jax's time")
    if torch is not None:
        ts = torch.cuda.synchronize
        t.add("RNN forward, 1000 steps: torch loop", device_us(rnn_torch(torch, 1000, False), ts, repeat, 2))
        t.add("RNN training step, 100 steps: torch autograd", device_us(rnn_torch(torch, 100, True), ts, repeat, 5))


def bench_until(t, repeat: int, device_us, irc_sync) -> None:
    """What reading a step's condition back costs: the 100-step forward with `until` never
    true, against the same scan without it (one graph replay), per step."""
    plain, _ = rnn_irc(100, False)
    base = t.add("RNN forward, 100 steps: irc scan", device_us(plain, irc_sync, repeat, 20))
    loop = rnn_until_irc(100, 1e30)
    assert np.asarray(loop()).shape[0] == 100
    mine = t.add("RNN forward, 100 steps, until (never true): irc", device_us(loop, irc_sync, repeat, 5))
    t.add("  readback cost per step", (mine - base) / 100, "µs (a flag copied back and a sync per step)")
    stop = rnn_until_irc(100, float(np.asarray(plain())[49].sum()) - 1e-3)
    rows = np.asarray(stop()).shape[0]
    t.add(f"RNN forward, until stops after {rows} steps: irc", device_us(stop, irc_sync, repeat, 5))


def bench_ifelse(t, repeat: int, device_us, irc_sync) -> None:
    """The tutorial's program as written (float32 matrices, as floatX=float32 asks): the lazy
    `ifelse` computes and moves one matrix, `switch` both."""
    a, b = T.scalars("a", "b")
    x, y = T.matrices("x", "y")
    f_switch = irc.function([a, b, x, y], T.switch(T.lt(a, b), T.mean(x), T.mean(y)))
    f_lazy = irc.function([a, b, x, y], ifelse(T.lt(a, b), T.mean(x), T.mean(y)))
    big1, big2 = np.ones((10000, 1000), "float32"), 2 * np.ones((10000, 1000), "float32")
    assert f_lazy(0.0, 1.0, big1, big2) == 1.0 and f_lazy(1.0, 0.0, big1, big2) == 2.0
    switch = t.add("tutorial ifelse page: switch (both means)",
                   device_us(lambda: f_switch(0.0, 1.0, big1, big2), irc_sync, repeat, 3))
    lazy = t.add("tutorial ifelse page: ifelse (one mean)",
                 device_us(lambda: f_lazy(0.0, 1.0, big1, big2), irc_sync, repeat, 3))
    t.ratio("  ifelse vs switch", lazy, switch, "of switch's time")
