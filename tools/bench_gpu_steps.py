"""The training-step rows of `bench_gpu.py`: the tutorial's logistic regression (outputs kept on
the device, and sent to the host), a 4096² float32 gemm without TF32, the MLP step (with and
without TF32), and the tutorial's 10,000 steps against irc's own CPU backend — each beside torch eager and jax.jit in the same
process, with the same math (the gradients by each library's autodiff)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

import irc
import irc.tensor as T
from bench_dense import mlp_data  # beside this file (tools/ is on the path): the CPU bench's step
from irc.sandbox.cuda.basic_ops import gpu_from_host

ROOT = Path(__file__).resolve().parent.parent
N, FEATS = 400, 784
LR = 0.01


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.RandomState(seed)
    return (rng.randn(N, FEATS).astype("float32"), rng.randint(0, 2, N).astype("float32"),
            rng.randn(FEATS).astype("float32"))


def lr_irc(on_device: bool) -> Callable[[], object]:
    """The tutorial's step with x and y as device-resident shared variables."""
    X, Y, w0 = _data()
    x, y = irc.shared(X, name="x"), irc.shared(Y, name="y")
    w, b = irc.shared(w0, name="w"), irc.shared(np.float32(0), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    outs = [p_1 > 0.5, xent]
    if on_device:
        outs = [irc.Out(gpu_from_host(o), borrow=True) for o in outs]
    with irc.config.change_flags(assert_no_cpu_op="raise"):
        return irc.function([], outs, updates={w: w - LR * gw, b: b - LR * gb}, name="train")


def lr_torch(torch, to_host: bool) -> Callable[[], object]:
    X, Y, w0 = (torch.as_tensor(a, device="cuda") for a in _data())
    w = w0.clone().requires_grad_()
    b = torch.zeros((), device="cuda", requires_grad=True)

    def step():
        p_1 = torch.sigmoid(X @ w + b)
        xent = -Y * torch.log(p_1) - (1 - Y) * torch.log(1 - p_1)
        cost = xent.mean() + 0.01 * (w ** 2).sum()
        gw, gb = torch.autograd.grad(cost, [w, b])
        with torch.no_grad():
            w.sub_(LR * gw)
            b.sub_(LR * gb)
        pred = p_1 > 0.5
        return (pred.cpu(), xent.detach().cpu()) if to_host else (pred, xent)
    return step


def lr_jax(jax) -> Callable[[], object]:
    jnp = jax.numpy
    X, Y, w0 = (jnp.asarray(a) for a in _data())

    def loss(params):
        w, b = params
        p_1 = jax.nn.sigmoid(X @ w + b)
        xent = -Y * jnp.log(p_1) - (1 - Y) * jnp.log(1 - p_1)
        return xent.mean() + 0.01 * (w ** 2).sum(), (p_1 > 0.5, xent)

    @jax.jit
    def step(params):
        grads, outs = jax.grad(loss, has_aux=True)(params)
        return tuple(p - LR * g for p, g in zip(params, grads)), outs

    state = [(w0, jnp.float32(0))]

    def run():
        state[0], outs = step(state[0])
        return outs
    return run


def bench_lr(t, repeat: int, torch, jax, device_us, irc_sync) -> None:
    dev_step, host_step = lr_irc(True), lr_irc(False)
    mine = t.add("LR step 400×784, outputs on the device: irc", device_us(dev_step, irc_sync, repeat, 200))
    mine_host = t.add("LR step, outputs to the host: irc", device_us(host_step, irc_sync, repeat, 200))
    if jax is not None:
        run = lr_jax(jax)
        sync = lambda: jax.block_until_ready(run())  # noqa: E731
        base = t.add("LR step, outputs on the device: jax.jit", device_us(run, sync, repeat, 200))
        t.ratio("  LR step (device) ratio", mine, base, "of jax.jit's time")
    if torch is not None:
        ts = torch.cuda.synchronize
        t.add("LR step, outputs on the device: torch eager", device_us(lr_torch(torch, False), ts, repeat, 50))
        base = t.add("LR step, outputs to the host: torch eager", device_us(lr_torch(torch, True), ts, repeat, 50))
        t.ratio("  LR step (to host) ratio", mine_host, base, "of torch eager's time")


def bench_gemm(t, repeat: int, torch, device_us, irc_sync, n: int = 4096) -> None:
    rng = np.random.RandomState(5)
    A, B = rng.randn(n, n).astype("float32"), rng.randn(n, n).astype("float32")
    a, b = irc.shared(A, name="a"), irc.shared(B, name="b")
    f = irc.function([], irc.Out(gpu_from_host(T.dot(a, b)), borrow=True))
    ref = A[:64].astype("float64") @ B.astype("float64")
    np.testing.assert_allclose(np.asarray(f())[:64], ref, rtol=1e-3, atol=1e-2)
    flop = 2 * n ** 3
    mine = t.add(f"gemm {n}² f32 (no TF32): irc", us := device_us(f, irc_sync, repeat, 5),
                 f"{flop / (us * 1e-6) / 1e12:.1f} TFLOP/s")
    if torch is None:
        return
    torch.backends.cuda.matmul.allow_tf32 = False
    at, bt = torch.as_tensor(A, device="cuda"), torch.as_tensor(B, device="cuda")
    base = t.add(f"gemm {n}² f32 (no TF32): torch", us := device_us(lambda: at @ bt, torch.cuda.synchronize, repeat, 5),
                 f"{flop / (us * 1e-6) / 1e12:.1f} TFLOP/s")
    t.ratio("  gemm ratio", mine, base, "of torch's time")


TUTORIAL_STEPS = 10000


TUTORIAL_PROGRAMS = {  # the exercise as written (D passed from the host each call), and its answer
    "D passed each call": "logistic_regression.py",
    "D in shared variables": "logistic_regression_shared.py",
}


def tutorial_seconds(device: str, program: str) -> float:
    """A tutorial program (10,000 steps) in a fresh process on `device`: its training loop's seconds."""
    env = dict(os.environ, IRC_FLAGS=f"device={device},floatX=float32", IRC_EXAMPLE_TIME="1")
    out = subprocess.run([sys.executable, str(ROOT / "examples" / program)], env=env,
                         capture_output=True, text=True, check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("training time"))
    return float(line.split()[2])


def bench_tutorial(t) -> None:
    for form, program in TUTORIAL_PROGRAMS.items():
        rows = {}
        for device in ("cpu", "cuda"):
            t0 = time.perf_counter()
            s = tutorial_seconds(device, program)
            rows[device] = t.add(f"tutorial LR ({form}), {TUTORIAL_STEPS} steps on {device}: irc",
                                 s * 1e6 / TUTORIAL_STEPS,
                                 f"{s:.2f} s of training ({time.perf_counter() - t0:.1f} s with start-up)")
        t.ratio(f"  tutorial ({form}) ratio", rows["cuda"], rows["cpu"], "of irc cpu's time")


def mlp_irc(tf32: bool = False) -> Callable[[], object]:
    """The MLP step with the batch device-resident, its cost kept on the device; with `tf32`,
    its float32 products on TF32 tensor cores (`allow_tf32`, what jax does by default)."""
    X, Y, params = mlp_data()
    x, y = irc.shared(X, name="X"), irc.shared(Y, name="Y")
    shared = [irc.shared(p, name=n) for p, n in zip(params, ("W1", "b1", "W2", "b2"))]
    W1, b1, W2, b2 = shared
    h = T.tanh(T.dot(x, W1) + b1)
    p = T.nnet.softmax(T.dot(h, W2) + b2)
    cost = T.nnet.categorical_crossentropy(p, y).mean()
    grads = T.grad(cost, shared)
    with irc.config.change_flags(assert_no_cpu_op="raise", allow_tf32=tf32):
        return irc.function([], irc.Out(gpu_from_host(cost), borrow=True),
                            updates=[(q, q - LR * g) for q, g in zip(shared, grads)], name="mlp_step")


def _mlp_loss(m, log_softmax, ps, X, Y):
    W1, b1, W2, b2 = ps
    h = m.tanh(X @ W1 + b1)
    return -(Y * log_softmax(h @ W2 + b2)).sum(axis=1).mean()


def mlp_jax(jax, precision: str = "default") -> Callable[[], object]:
    """jax.jit of the step; `precision` "default" lets XLA use TF32 for float32 products on the
    GPU, "highest" does not."""
    jnp = jax.numpy
    X, Y, params = (jnp.asarray(a) if not isinstance(a, list) else [jnp.asarray(p) for p in a]
                    for a in mlp_data())

    @jax.jit
    def step(ps):
        with jax.default_matmul_precision(precision):
            cost, gs = jax.value_and_grad(lambda q: _mlp_loss(jnp, jax.nn.log_softmax, q, X, Y))(ps)
        return [p - LR * g for p, g in zip(ps, gs)], cost

    state = [params]

    def run():
        state[0], cost = step(state[0])
        return cost
    return run


def mlp_torch(torch, compiled: bool) -> Callable[[], object]:
    X, Y, params = mlp_data()
    X, Y = torch.as_tensor(X, device="cuda"), torch.as_tensor(Y, device="cuda")
    ps = [torch.as_tensor(p, device="cuda").requires_grad_() for p in params]
    log_softmax = lambda v: torch.log_softmax(v, dim=1)  # noqa: E731

    def step():
        cost = _mlp_loss(torch, log_softmax, ps, X, Y)
        gs = torch.autograd.grad(cost, ps)
        with torch.no_grad():
            for p, g in zip(ps, gs):
                p.sub_(LR * g)
        return cost
    return torch.compile(step, mode="reduce-overhead") if compiled else step


def bench_mlp(t, repeat: int, torch, jax, device_us, irc_sync) -> None:
    mine = t.add("MLP step 256×784→512→10: irc", device_us(mlp_irc(), irc_sync, repeat, 100))
    mine_tf32 = t.add("MLP step: irc, allow_tf32=True", device_us(mlp_irc(True), irc_sync, repeat, 100))
    best = None
    if jax is not None:
        run = mlp_jax(jax, "highest")
        t.add("MLP step: jax.jit, matmul precision highest", device_us(run, lambda: jax.block_until_ready(run()), repeat, 100))
        run = mlp_jax(jax)
        best = t.add("MLP step: jax.jit (default precision: TF32)",
                     device_us(run, lambda: jax.block_until_ready(run()), repeat, 100))
    if torch is not None:
        ts = torch.cuda.synchronize
        t.add("MLP step: torch eager", device_us(mlp_torch(torch, False), ts, repeat, 50))
        try:
            compiled = t.add("MLP step: torch.compile(reduce-overhead)",
                             device_us(mlp_torch(torch, True), ts, repeat, 50))
            best = min(b for b in (best, compiled) if b)
        except Exception as e:  # no Triton / compiler on the machine
            t.add("MLP step: torch.compile(reduce-overhead)", None, f"skipped: {type(e).__name__}"[:60])
    t.ratio("  MLP step ratio", mine, best, "of the faster of jax.jit and torch.compile")
    t.ratio("  MLP step ratio, TF32", mine_tf32, best, "of the faster of jax.jit and torch.compile")
