"""Elementwise fusion, inplace and memory planning on the CPU: what they buy per call.

    python3 tools/bench_fusion.py [--repeat N] [--n 1000000] [--threads T]

Rows: a 10-op elementwise chain over float32 vectors (numpy; irc with fusion off; irc fused —
one build, the `optimizer_excluding` flag toggled), a logistic-regression training step (fused
vs unfused), and bytes allocated per call after the first: Python/numpy allocations through
tracemalloc plus the native temporaries (`memory_profile`'s `temporary_bytes`: what the
native code takes from `aligned_alloc` each call).

The LR builds are timed interleaved (one sample of each in turn, so a load change on a shared
machine hits both) and compared per sample: `xR` is the median of unfused/fused over the
samples. Two views of one step: `f(x, y)` through `irc.function`, and the native code alone,
driven the way the runtime may (see the inplace contract in `irc/passes/inplace.py`: updates
written over the shared variables' storage, borrowed outputs reused, `allow_gc=False`
temporaries in the function's workspace). The fused build reads X once (`fuse-matvec`: X·w,
the row-wise group and Xᵀ·g in one pass); the unfused build makes two gemv passes.
Times are medians of `repeat` samples, each the mean of several back-to-back calls.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from bench_common import median_us  # noqa: E402  (the same timing rule in every table)
import irc  # noqa: E402
import irc.tensor as T  # noqa: E402


def traced_bytes(fn: Callable[[], object], calls: int = 5) -> int:
    """Python/numpy bytes a call allocates (its peak over what was live before), after a
    warm-up call; the largest over `calls` calls."""
    fn()
    tracemalloc.start()
    worst = 0
    for _ in range(calls):
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        fn()
        worst = max(worst, tracemalloc.get_traced_memory()[1] - before)
    tracemalloc.stop()
    return worst


def chain(x, y, lib):
    t = x * np.float32(0.5)
    t = t + np.float32(1.0)
    t = t * x
    t = t - np.float32(0.25)
    t = abs(t)
    t = lib.sqrt(t)
    t = t * y
    t = t + x
    t = lib.maximum(t, np.float32(0.0))
    return t * np.float32(2.0)


def compile_with(excluding: str, *args, **kw):
    with irc.config.change_flags(optimizer_excluding=excluding):
        return irc.function(*args, **kw)


def native_temporaries(f, shapes) -> int:
    from irc.conversion.tensor_to_loop.memory_profile import memory_profile
    return memory_profile(f.maker.module, shapes)["temporary_bytes"]


def bench_chain(n: int, repeat: int) -> list[tuple]:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(np.float32), rng.random(n).astype(np.float32)
    vx, vy = T.fvector("x"), T.fvector("y")
    out = chain(vx, vy, T)
    unfused = compile_with("fusion:inplace", [vx, vy], out)
    fused = compile_with("", [vx, vy], out)
    want = chain(x, y, np)
    for f in (unfused, fused):
        np.testing.assert_allclose(f(x, y), want, rtol=1e-6, atol=1e-6)
    inner = max(1, 20_000_000 // (n * 10))
    rows = []
    t_np = median_us(lambda: chain(x, y, np), repeat, inner)
    rows.append(("10-op chain", "numpy", t_np, traced_bytes(lambda: chain(x, y, np)), 0))
    for label, f in (("irc, fusion off", unfused), ("irc, fused", fused)):
        t = median_us(lambda: f(x, y), repeat, inner)
        rows.append(("10-op chain", label, t, traced_bytes(lambda: f(x, y)),
                     native_temporaries(f, [x.shape, y.shape])))
    return rows


def lr_graph():
    x, y = T.fmatrix("x"), T.fvector("y")
    w = irc.shared(np.zeros(784, np.float32), name="w")
    b = irc.shared(np.float32(0), name="b")
    p = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p) - (1 - y) * T.log(1 - p)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    return [x, y], [p > 0.5, xent], [(w, w - 0.1 * gw), (b, b - 0.1 * gb)], w, b


def direct_driver(f, X, Y, w, b):
    """The native code called as the runtime may: `irc.inplace` results get the shared
    storage itself, outputs are borrowed buffers reused between calls, allow_gc=False. An
    update not done in place swaps buffers with its shared variable after the call (the
    runtime rebinds the variable to the new array). Returns (call, args, outs)."""
    from irc.dialects.builtin import ModuleOp
    from irc.conversion.tensor_to_loop.lower_to_loops import lower_function
    from irc.runtime.native import compile_cpu
    func = lower_function(f.maker.module.body.ops[0], allow_gc=False)
    fn = compile_cpu(ModuleOp.create([func]), use_cache=False)
    shared = [w.get_value(), b.get_value()]
    args = [X, Y, *shared]
    outs = []
    swaps = []
    for k, (shape, dt) in enumerate(zip(fn.shapes.run([a.shape for a in args]), fn.out_dtypes)):
        attrs = func.res_attrs(k)
        mark, update = attrs.get("irc.inplace"), attrs.get("irc.update")
        outs.append(args[mark.value] if mark is not None else np.empty(shape, dt))
        if update is not None and mark is None:
            swaps.append((k, update.value))
    assert fn._by_object

    def call() -> None:  # holds `fn`: its engine owns the code
        if fn._cfunc(*args, *outs):
            raise RuntimeError("shape assertion failed")
        for k, i in swaps:
            args[i], outs[k] = outs[k], args[i]
    return call, args, outs


def interleaved_us(fns: dict[str, Callable[[], object]], repeat: int, inner: int) -> dict[str, list[float]]:
    """Per function, `repeat` samples (µs per call, the mean of `inner` calls), taken in turn."""
    for fn in fns.values():
        for _ in range(3):
            fn()
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            samples[k].append((time.perf_counter() - t0) / inner * 1e6)
    return samples


BUILDS = (("unfused", "fusion:inplace"), ("fused", ""))


def bench_lr(repeat: int) -> list[tuple]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 784)).astype(np.float32)
    Y = (rng.random(400) > 0.5).astype(np.float32)
    shapes = [X.shape, Y.shape, (784,), ()]
    calls, direct, results, native_tmp = {}, {}, {}, {}
    for label, excluding in BUILDS:
        ins, outs, upd, w, b = lr_graph()
        f = compile_with(excluding, ins, outs, updates=upd)
        for _ in range(10):
            r = f(X, Y)
        results[label] = (w.get_value().copy(), r[1])
        calls[label] = (lambda f=f: f(X, Y))
        native_tmp[label] = native_temporaries(f, shapes)
        ins, outs, upd, w2, b2 = lr_graph()
        g = compile_with(excluding, ins, outs, updates=upd)
        direct[label], args, _ = direct_driver(g, X, Y, w2, b2)
        for _ in range(10):
            direct[label]()
        np.testing.assert_allclose(args[2], results[label][0], rtol=1e-4, atol=1e-6)  # same 10 steps
    (w1, e1), (w2_, e2) = results.values()
    np.testing.assert_allclose(w1, w2_, rtol=1e-4, atol=1e-6)
    rows = []
    for view, fns, inner in (("f(x, y)", calls, 200), ("native, in place, allow_gc=False", direct, 200)):
        samples = interleaved_us(fns, repeat, inner)
        ratio = statistics.median(u / f for u, f in zip(samples["unfused"], samples["fused"]))
        for label, excluding in BUILDS:
            py = traced_bytes(fns[label])
            tmp = native_tmp[label] if view == "f(x, y)" else 0
            rows.append(("LR step 400x784", f"{label}: {view}", statistics.median(samples[label]), py, tmp,
                         ratio if label == "fused" else 1.0))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, default=0, help="config.cpu_threads (0: all cores)")
    a = ap.parse_args()
    irc.config.cpu_threads = a.threads
    rows = [(*r, None) for r in bench_chain(a.n, a.repeat)] + bench_lr(a.repeat)
    print(f"{'case':<17} {'build':<42} {'µs/call':>10} {'py bytes/call':>14} {'native tmp bytes/call':>22}")
    base: dict[str, float] = {}
    for case, label, t, py, native, ratio in rows:
        base.setdefault(case, t)
        speed = "" if ratio is None and case != "10-op chain" else \
            (f"x{base[case] / t:.2f}" if ratio is None else f"xR {ratio:.3f}")
        print(f"{case:<17} {label:<42} {t:>10.2f} {py:>14,} {native:>22,}   {speed}")


if __name__ == "__main__":
    main()
