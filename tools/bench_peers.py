"""Issue 24's quiet table, for `tools/bench_cpu.py --peers`: every row of `bench_busy.cases()`
(and a 1024² product) on irc against torch (on all cores), jax.jit and numpy where they have
the operation, in one process, samples interleaved round by round (each tool first in turn),
medians. The ratio is irc's time over the fastest peer's (numpy counts where it is the only
one, and for the LR, sums and MLP rows, which the issue compares with it); products also in
GFLOP/s. Peers that are not installed are left out of their rows.

Libraries spin their idle threads after a call (torch's OpenMP threads ~7 ms on this VM,
numpy's OpenBLAS threads ~0.1 s): a tool timed right after another shares a core with the
other's spinning thread. So in the quiet table every sample waits `SETTLE_S` and warms up for
`WARMUP_S` first (irc's and torch's pools are then spinning, the others' asleep), and a second
table alternates irc's and torch's calls one by one, so that each call runs right after the
other library's (the busy tables of `--busy` alternate the MLP step with numpy's)."""
from __future__ import annotations

import os
import statistics
import time
from typing import Callable

import numpy as np

import bench_busy
import bench_dense
from bench_busy import sample_us
from bench_common import WARMUP_S, Table, settle  # WARMUP_S: calls before each quiet sample, as median_us
from bench_dense import lr_data, lr_numpy

NUMPY_COUNTS = ("LR", "sum", "MLP")  # rows the issue compares with numpy as well
SETTLE_S = 0.15   # before each quiet sample: the previous tool's pool threads have stopped spinning
BESIDE_WARMUP_S = 0.05  # alternating calls until both pools have settled into alternation
BESIDE = ("sum 2000x2000 axis 0", "sum 2000x2000 axis 1", "row softmax 1000x1000", "matmul 512x512")


def _chain(m, v):
    return m.tanh(m.exp(-(v * 0.5 + 1.0) ** 2) * 3.0 - v) + m.sqrt(abs(v) + 1.0)


def _peers() -> tuple[dict[str, dict[str, Callable[[], object]]], dict]:
    """Each row's peers, and the irc rows added here (the 1024² product)."""
    import irc
    import irc.tensor as T
    try:
        import torch
        torch.set_num_threads(len(os.sched_getaffinity(0)))
    except ImportError:
        torch = None
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        jax = None
    rng = np.random.RandomState(24)
    peers: dict[str, dict[str, Callable[[], object]]] = {}

    def add(row: str, who: str, fn: Callable[[], object] | None) -> None:
        if fn is not None:
            peers.setdefault(row, {})[who] = fn

    x = rng.rand(230400).astype("float32")
    add("exp 230,400 f32", "numpy", lambda: np.exp(x))
    data = lr_data()
    lr = lr_numpy(data)
    add("LR step 400x784", "numpy", lambda: lr(data[0], data[1]))
    a = rng.randn(10 ** 6).astype("float32")
    add("10-op chain 1e6 f32", "numpy", lambda: _chain(np, a))
    big = rng.rand(2000, 2000).astype("float32")
    sq = rng.randn(1000, 1000).astype("float32")
    p, q = rng.rand(512, 512).astype("float32"), rng.rand(512, 512).astype("float32")
    P, Q = rng.rand(1024, 1024).astype("float32"), rng.rand(1024, 1024).astype("float32")
    for axis in (0, 1):
        add(f"sum 2000x2000 axis {axis}", "numpy", (lambda ax: lambda: big.sum(axis=ax))(axis))
    add("matmul 512x512", "numpy", lambda: p @ q)
    add("matmul 1024x1024", "numpy", lambda: P @ Q)
    X, Y, params = bench_dense.mlp_data()
    mlp = bench_dense.mlp_numpy(params)
    add("MLP step 256x784-512-10", "numpy", lambda: mlp(X, Y))
    if torch is not None:
        t = torch.from_numpy
        tx, ta, tb, tsq = t(x), t(a), t(big), t(sq)
        tp, tq, tP, tQ = t(p), t(q), t(P), t(Q)
        add("exp 230,400 f32", "torch", lambda: torch.exp(tx).numpy())
        add("10-op chain 1e6 f32", "torch", lambda: _chain(torch, ta).numpy())
        for axis in (0, 1):
            add(f"sum 2000x2000 axis {axis}", "torch", (lambda ax: lambda: tb.sum(dim=ax).numpy())(axis))
        add("row softmax 1000x1000", "torch", lambda: torch.softmax(tsq, dim=1).numpy())
        add("matmul 512x512", "torch", lambda: (tp @ tq).numpy())
        add("matmul 1024x1024", "torch", lambda: (tP @ tQ).numpy())
    if jax is not None:
        jexp, jchain = jax.jit(jnp.exp), jax.jit(lambda v: _chain(jnp, v))
        jsoftmax = jax.jit(lambda v: jax.nn.softmax(v, axis=1))
        add("exp 230,400 f32", "jax", lambda: np.asarray(jexp(x)))
        add("10-op chain 1e6 f32", "jax", lambda: np.asarray(jchain(a)))
        add("row softmax 1000x1000", "jax", lambda: np.asarray(jsoftmax(sq)))
        found = bench_dense.mlp_jax(params)
        if found is not None:
            add("MLP step 256x784-512-10", "jax", (lambda run: lambda: run(X, Y))(found[0]))
    m, n = T.fmatrix("m"), T.fmatrix("n")
    product = irc.function([m, n], T.dot(m, n))
    np.testing.assert_allclose(product(P, Q), P @ Q, rtol=1e-4)
    return peers, {"matmul 1024x1024": (lambda: product(P, Q), 2)}


def peer_table(t: Table, beside: Table, rounds: int) -> None:
    """The quiet table against peers, and irc's and torch's calls alternating (see the module
    doc)."""
    rows = {name: (fn, inner) for name, fn, inner in bench_busy.cases()}
    peers, extra = _peers()
    rows.update(extra)
    samples: dict[tuple[str, str], list[float]] = {}
    for r in range(rounds):
        for name, (fn, inner) in rows.items():
            tools = [("irc", fn), *peers.get(name, {}).items()]
            for who, call in (tools if r % 2 == 0 else tools[::-1]):
                settle(SETTLE_S)
                _warm(call)
                samples.setdefault((name, who), []).append(sample_us(call, inner))
    for name in rows:
        mine = t.add(f"{name}: irc", statistics.median(samples[(name, "irc")]))
        counted = []
        for who in peers.get(name, {}):
            us = t.add(f"{name}: {who}", statistics.median(samples[(name, who)]), _gflops(name, None))
            if who != "numpy" or len(peers[name]) == 1 or name.startswith(NUMPY_COUNTS):
                counted.append(us)
        if counted:
            t.ratio(f"  {name} ratio", mine, min(counted), "of the fastest peer's time " + _gflops(name, mine))
    _beside_torch(beside, {n: rows[n] for n in BESIDE if "torch" in peers.get(n, {})}, peers, rounds)


def _beside_torch(t: Table, rows: dict, peers: dict, rounds: int) -> None:
    """Each row's irc and torch calls alternating one by one, each call timed alone (the
    median of each tool's), after both were warmed up the same way: every irc call follows a
    torch call (torch's OpenMP threads still spinning) and every torch call an irc call. The
    first alternations after a rest are slower for both (each pool's threads wake into the
    other's): BESIDE_WARMUP_S of them are not timed."""
    for name, (fn, inner) in rows.items():
        torch_call = peers[name]["torch"]
        times: dict[str, list[float]] = {"irc": [], "torch": []}
        for r in range(rounds):
            settle(SETTLE_S)
            pair = [("irc", fn), ("torch", torch_call)]
            if r % 2:
                pair.reverse()
            _warm(lambda: [call() for _, call in pair], BESIDE_WARMUP_S)
            for _ in range(inner * 4):
                for who, call in pair:
                    t0 = time.perf_counter()
                    call()
                    times[who].append((time.perf_counter() - t0) * 1e6)
        mine = t.add(f"{name}: irc, alternating with torch", statistics.median(times["irc"]))
        theirs = t.add(f"{name}: torch, alternating with irc", statistics.median(times["torch"]))
        t.ratio(f"  {name} ratio", mine, theirs, "of torch's time, call by call")


def _warm(call: Callable[[], object], seconds: float | None = None) -> None:
    """Untimed calls for `seconds` (WARMUP_S by default)."""
    start = time.perf_counter()
    while time.perf_counter() - start < (WARMUP_S if seconds is None else seconds):
        call()


def _gflops(name: str, us: float | None) -> str:
    if not name.startswith("matmul") or us is None:
        return ""
    n = int(name.split("x")[-1])
    return f"(irc {2 * n ** 3 / us / 1e3:.0f} GFLOP/s)"
