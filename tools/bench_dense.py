"""Dense-layer benchmarks for `tools/bench_cpu.py`: gemm GFLOP/s against numpy's BLAS on the
shapes training uses (1 and 2 threads), and a 2-layer MLP training step against numpy written
by hand and jax.jit (optional: rows are skipped with a note when jax is absent).

numpy's BLAS threads are limited with threadpoolctl when it is installed; without it numpy
runs on all cores for the 1-thread row too (the note says so).
"""
from __future__ import annotations

import contextlib
from typing import Callable

import numpy as np

from bench_common import settle  # beside this file (tools/ is on the path)

# (m, k, n, layout): out = op(A)·op(B), op(A) m×k, op(B) k×n; "TN": A transposed (Xᵀ·δ)
GEMM_SHAPES = ((256, 784, 512, "NN"), (784, 256, 512, "TN"), (512, 512, 512, "NN"),
               (1024, 1024, 1024, "NN"), (256, 512, 10, "NN"))
MLP = (256, 784, 512, 10)  # batch, inputs, hidden units, classes
LR = 0.01
SHORT = {"float32": "f32", "float64": "f64"}


def blas_threads(n: int):
    """A context limiting numpy's BLAS to n threads (a no-op without threadpoolctl)."""
    try:
        import threadpoolctl
    except ImportError:
        return contextlib.nullcontext()
    return threadpoolctl.threadpool_limits(n)


def bench_gemm(t, repeat: int, median_us: Callable, threads_of: Callable) -> None:
    """irc's gemm and numpy's matmul side by side, GFLOP/s, on `GEMM_SHAPES` (f32; f64 too on
    the first shape), on 1 and 2 threads."""
    import irc
    import irc.tensor as T
    try:
        import threadpoolctl  # noqa: F401
        note = ""
    except ImportError:
        note = " (numpy on all cores: threadpoolctl absent)"
    rng = np.random.RandomState(5)
    cases = [(s, "float32") for s in GEMM_SHAPES] + [(GEMM_SHAPES[0], "float64")]
    for (m, k, n, layout), dtype in cases:
        a, b = T.matrix("a", dtype=dtype), T.matrix("b", dtype=dtype)
        f = irc.function([a, b], T.dot(a.T if layout[0] == "T" else a, b))
        A = rng.rand(*((k, m) if layout[0] == "T" else (m, k))).astype(dtype)
        B = rng.rand(k, n).astype(dtype)
        opA = A.T if layout[0] == "T" else A
        np.testing.assert_allclose(f(A, B), opA @ B, rtol=1e-4 if dtype == "float32" else 1e-10)
        flop = 2 * m * n * k
        inner = max(1, int(1e8 // flop))
        name = f"gemm {m}x{k}x{n}{' (Aᵀ·B)' if layout[0] == 'T' else ''} {SHORT[dtype]}"
        for nthreads in (1, 2):
            settle()
            mine = threads_of(nthreads, lambda: median_us(lambda: f(A, B), repeat, inner))
            settle()
            with blas_threads(nthreads):
                base = median_us(lambda: opA @ B, repeat, inner)
            t.add(f"{name}, {nthreads} thread(s): irc", mine, f"{flop / mine / 1e3:.0f} GFLOP/s")
            t.add(f"{name}, {nthreads} thread(s): numpy", base, f"{flop / base / 1e3:.0f} GFLOP/s{note}")
            t.ratio("  gemm ratio", base, mine, "of numpy's GFLOP/s")


def mlp_data(seed: int = 0):
    rng = np.random.RandomState(seed)
    N, D, H, C = MLP
    X = rng.randn(N, D).astype("float32")
    Y = np.eye(C, dtype="float32")[rng.randint(0, C, N)]
    params = [(rng.randn(D, H) * 0.01).astype("float32"), np.zeros(H, "float32"),
              (rng.randn(H, C) * 0.01).astype("float32"), np.zeros(C, "float32")]
    return X, Y, params


def mlp_irc(params, profile: bool = False):
    """The training step in Theano style: `T.grad` of the cost, SGD through `updates`."""
    import irc
    import irc.tensor as T
    X, Y = T.fmatrix("X"), T.fmatrix("Y")
    shared = [irc.shared(p.copy(), name=n) for p, n in zip(params, ("W1", "b1", "W2", "b2"))]
    W1, b1, W2, b2 = shared
    h = T.tanh(T.dot(X, W1) + b1)
    p = T.nnet.softmax(T.dot(h, W2) + b2)
    cost = T.nnet.categorical_crossentropy(p, Y).mean()
    grads = T.grad(cost, shared)
    return irc.function([X, Y], cost, updates=[(q, q - LR * g) for q, g in zip(shared, grads)],
                        name="mlp_step", profile=profile)


def mlp_numpy(params):
    """The same step by hand in numpy: forward, softmax cross-entropy, backward, SGD in place."""
    state = [p.copy() for p in params]
    lr = np.float32(LR)

    def step(X, Y):
        W1, b1, W2, b2 = state
        h = np.tanh(X @ W1 + b1)
        o = h @ W2 + b2
        e = np.exp(o - o.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        cost = -(Y * np.log(p)).sum(axis=1).mean()
        do = (p - Y) / np.float32(X.shape[0])
        dh = (do @ W2.T) * (1 - h * h)
        W2 -= lr * (h.T @ do)
        b2 -= lr * do.sum(axis=0)
        W1 -= lr * (X.T @ dh)
        b1 -= lr * dh.sum(axis=0)
        return cost
    return step


def mlp_jax(params):
    """jax.jit of the same step (value_and_grad, SGD); None when jax is not installed."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def loss(ps, X, Y):
        W1, b1, W2, b2 = ps
        h = jnp.tanh(X @ W1 + b1)
        return -(Y * jax.nn.log_softmax(h @ W2 + b2)).sum(axis=1).mean()

    @jax.jit
    def step(ps, X, Y):
        cost, gs = jax.value_and_grad(loss)(ps, X, Y)
        return [p - LR * g for p, g in zip(ps, gs)], cost

    state = {"ps": [jnp.asarray(p) for p in params]}

    def run(X, Y):
        state["ps"], cost = step(state["ps"], X, Y)
        return cost.block_until_ready()
    return run, jax.__version__


def bench_mlp(t, repeat: int, median_us: Callable, threads_of: Callable) -> None:
    """The step on all threads against numpy and jax.jit; then irc and numpy on one thread
    each (jax's thread pool is fixed when it is imported), the comparison that a machine busy
    with other work distorts least."""
    X, Y, params = mlp_data()
    f = mlp_irc(params)
    g = mlp_numpy(params)
    np.testing.assert_allclose(f(X, Y), g(X, Y), rtol=1e-4)
    settle()
    mine = t.add("MLP step 256x784-512-10: irc", median_us(lambda: f(X, Y), repeat, 5))
    settle()
    base = t.add("MLP step 256x784-512-10: numpy by hand", median_us(lambda: g(X, Y), repeat, 5))
    t.ratio("  MLP ratio vs numpy", mine, base, "of numpy's time")
    settle()
    one = t.add("MLP step 256x784-512-10, 1 thread: irc",
                threads_of(1, lambda: median_us(lambda: f(X, Y), repeat, 5)))
    with blas_threads(1):
        one_np = t.add("MLP step 256x784-512-10, 1 thread: numpy", median_us(lambda: g(X, Y), repeat, 5))
    t.ratio("  MLP ratio vs numpy, 1 thread", one, one_np, "of numpy's time")
    jx = mlp_jax(params)
    if jx is None:
        t.add("MLP step 256x784-512-10: jax.jit", float("nan"), "skipped (jax not installed)")
        return
    run, version = jx
    import jax.numpy as jnp
    Xj, Yj = jnp.asarray(X), jnp.asarray(Y)
    settle()
    peer = t.add("MLP step 256x784-512-10: jax.jit", median_us(lambda: run(Xj, Yj), repeat, 5),
                 f"jax {version}")
    t.ratio("  MLP ratio vs jax.jit", mine, peer, "of jax's time")
    t.ratio("  MLP ratio vs the faster peer", mine, min(base, peer), "(target ≤ 0.80)")


def lr_data(seed: int = 0) -> tuple:
    rng = np.random.RandomState(seed)
    return (rng.randn(400, 784).astype("float32"), rng.randint(0, 2, 400).astype("float32"),
            rng.randn(784).astype("float32") * 0.01)


def lr_irc(T, shared, function, data, lr=0.1):
    """The tutorial's training function (same code for irc and PyTensor)."""
    x, y = T.matrix("x", dtype="float32"), T.vector("y", dtype="float32")
    w = shared(data[2].copy(), name="w")
    b = shared(np.asarray(0.0, dtype="float32"), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    return function([x, y], [p_1 > 0.5, xent], updates=[(w, w - lr * gw), (b, b - lr * gb)])


def lr_numpy(data, lr=np.float32(0.1)):
    """The same training step written by hand in numpy (forward, cross-entropy, gradient, update)."""
    state = {"w": data[2].copy(), "b": np.float32(0.0)}
    n = np.float32(data[0].shape[0])

    def step(x, y):
        w, b = state["w"], state["b"]
        p = 1 / (1 + np.exp(-(x @ w) - b))
        xent = -y * np.log(p) - (1 - y) * np.log(1 - p)
        g = (p - y) / n
        state["w"] = w - lr * (x.T @ g + np.float32(0.02) * w)
        state["b"] = b - lr * g.sum()
        return p > 0.5, xent
    return step
