"""CPU benchmarks of `irc.function` (native code), against numpy (and PyTensor, torch, jax if
installed; dense layers: `bench_dense.py`; `rnn`: a scan against a numpy loop and PyTensor's
scan).

    python3 tools/bench_cpu.py [--repeat N] [--quick]
    python3 tools/bench_cpu.py --busy [--repeat N]   # quiet vs one core busy, and beside numpy
    python3 tools/bench_cpu.py --peers [--repeat N]  # issue 24's quiet table: torch, jax, numpy

Every time is the median over `repeat` samples, each the mean of several back-to-back calls;
a ratio compares two rows measured in this same run (irc / baseline: below 1 is faster).
Where a row of one library follows another's, `settle()` first lets the other's idle pool
threads stop spinning (OpenBLAS's held a core for ~0.1 s after each call).
Compile times run in fresh processes: cold (empty compile dir) and warm (from the disk cache).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
import bench_busy  # noqa: E402  (beside this file)
from bench_dense import lr_data, lr_irc, lr_numpy  # noqa: E402
import bench_peers  # noqa: E402
import bench_dense  # noqa: E402  (beside this file)

from bench_common import Table, median_us, settle  # noqa: E402  (tools/ is on the path: this script's folder)


def machine() -> str:
    model = platform.processor() or "unknown cpu"
    try:
        info = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        info = []
    names = [ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name")]
    flags = next((ln.split(":", 1)[1].split() for ln in info if ln.startswith("flags")), [])
    model = names[0] if names else model
    simd = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else ""
    model += f" ({simd})" if simd else ""
    from irc.runtime import threads
    return (f"{model}, {os.cpu_count()} logical cores, numpy {np.__version__}, "
            f"Python {platform.python_version()}, irc threads {threads.configure()}")


def with_threads(count: int, measure: Callable[[], float]) -> float:
    """`measure()` with irc limited to `count` threads (the switch is outside the timing)."""
    from irc.runtime import threads
    n = threads.num_threads()
    threads.set_num_threads(count)
    try:
        return measure()
    finally:
        threads.set_num_threads(n)


def single_thread_us(fn: Callable[[], object], repeat: int, inner: int) -> float:
    """`median_us` of `fn` with irc limited to one thread."""
    return with_threads(1, lambda: median_us(fn, repeat, inner))


# ---------------------------------------------------------------------------- cases
def bench_exp(t: Table, repeat: int) -> None:
    """The tutorial's check1: `irc.function([], T.exp(x))` on a shared x of 230,400 float32."""
    import irc
    import irc.tensor as T
    x = irc.shared(np.random.RandomState(22).rand(230400).astype("float32"), name="x")
    f = irc.function([], T.exp(x))
    xv = x.get_value()
    err = float(np.max(np.abs(f() - np.exp(xv)) / np.exp(xv)))
    mine = t.add("exp 230,400 f32: irc f()", median_us(f, repeat, 20), f"max rel err {err:.1e}")
    t.add("exp 230,400 f32: irc f(), 1 thread", single_thread_us(f, repeat, 20))
    base = t.add("exp 230,400 f32: np.exp", median_us(lambda: np.exp(xv), repeat, 20))
    t.ratio("  exp ratio", mine, base, "of np.exp's time")


def pytensor_c_function(inputs, outputs, **kwargs):
    """`pytensor.function` with PyTensor's C backend (its default numba one needs numba's
    llvmlite, older than irc's)."""
    import pytensor
    from pytensor.compile.mode import Mode
    return pytensor.function(inputs, outputs, mode=Mode(linker="cvm", optimizer="fast_run"), **kwargs)


def bench_lr(t: Table, repeat: int) -> None:
    import irc
    import irc.tensor as T
    data = lr_data()
    f = lr_irc(T, irc.shared, irc.function, data)
    mine = t.add("LR step 400x784: irc", median_us(lambda: f(data[0], data[1]), repeat, 20))
    t.add("LR step 400x784: irc, 1 thread", single_thread_us(lambda: f(data[0], data[1]), repeat, 20))
    step = lr_numpy(data)
    base = t.add("LR step 400x784: numpy by hand", median_us(lambda: step(data[0], data[1]), repeat, 20))
    t.ratio("  LR ratio vs numpy", mine, base, "of numpy's time")
    try:
        import pytensor
        import pytensor.tensor as PT
    except Exception as e:  # optional
        t.add("LR step 400x784: PyTensor", float("nan"), f"skipped ({type(e).__name__}: not installed)")
        return
    pytensor.config.floatX = "float32"
    try:
        g = lr_irc(PT, pytensor.shared, pytensor_c_function, data)
    except Exception as e:  # a PyTensor version we do not know
        t.add("LR step 400x784: PyTensor", float("nan"), f"skipped ({type(e).__name__}: {e})"[:100])
        return
    pt = t.add("LR step 400x784: PyTensor", median_us(lambda: g(data[0], data[1]), repeat, 20),
               f"pytensor {pytensor.__version__}, C linker (cvm)")
    t.ratio("  LR ratio vs PyTensor", mine, pt, "of PyTensor's time")


def bench_chain(t: Table, repeat: int) -> None:
    """Ten elementwise ops on 10^6 float32 (fusable into one loop)."""
    import irc
    import irc.tensor as T
    x = T.fvector("x")

    def chain(m, v):
        return m.tanh(m.exp(-(v * 0.5 + 1.0) ** 2) * 3.0 - v) + m.sqrt(m.abs(v) + 1.0)

    class NpMath:
        tanh, exp, sqrt, abs = np.tanh, np.exp, np.sqrt, np.abs

    f = irc.function([x], chain(T, x))
    a = np.random.RandomState(1).randn(10 ** 6).astype("float32")
    np.testing.assert_allclose(f(a), chain(NpMath, a), rtol=1e-4, atol=1e-5)
    mine = t.add("10-op chain 1e6 f32: irc", median_us(lambda: f(a), repeat, 3))
    base = t.add("10-op chain 1e6 f32: numpy", median_us(lambda: chain(NpMath, a), repeat, 3))
    t.ratio("  chain ratio", mine, base, "of numpy's time")


def bench_sums(t: Table, repeat: int) -> None:
    """Sums of a 2000x2000 float32 matrix, against numpy and (if installed) torch on 2 threads."""
    import irc
    import irc.tensor as T
    m = T.fmatrix("m")
    a = np.random.RandomState(2).rand(2000, 2000).astype("float32")
    try:
        import torch
        torch.set_num_threads(2)
        ta = torch.from_numpy(a)
    except ImportError:
        torch = None
    for axis, what in ((0, "over rows (axis=0)"), (1, "over columns (axis=1)")):
        f = irc.function([m], m.sum(axis=axis))
        np.testing.assert_allclose(f(a), a.sum(axis=axis), rtol=1e-4)
        settle()
        mine = t.add(f"sum 2000x2000 {what}: irc", median_us(lambda: f(a), repeat, 5))
        base = t.add(f"sum 2000x2000 {what}: numpy", median_us(lambda: a.sum(axis=axis), repeat, 5))
        t.ratio(f"  sum axis={axis} ratio", mine, base, "of numpy's time")
        if torch is None:
            t.add(f"sum 2000x2000 {what}: torch", float("nan"), "skipped (torch not installed)")
            continue
        settle()
        peer = t.add(f"sum 2000x2000 {what}: torch, 2 threads", median_us(lambda: ta.sum(dim=axis), repeat, 5),
                     f"torch {torch.__version__}")
        t.ratio(f"  sum axis={axis} ratio vs torch", mine, peer, "of torch's time")


def bench_ifelse(t: Table, repeat: int) -> None:
    """Theano's tutorial `conditions`: the mean of one of two 10000x1000 float64 matrices,
    chosen by `T.switch` (computes both means) or `ifelse` (only the taken one)."""
    import irc
    import irc.tensor as T
    from irc.ifelse import ifelse
    a, b = T.dscalars("a", "b")
    x, y = T.dmatrices("x", "y")
    f_switch = irc.function([a, b, x, y], T.switch(T.lt(a, b), T.mean(x), T.mean(y)))
    f_lazy = irc.function([a, b, x, y], ifelse(T.lt(a, b), T.mean(x), T.mean(y)))
    f_one = irc.function([x], T.mean(x))
    big1 = np.ones((10000, 1000))
    big2 = 2 * np.ones((10000, 1000))
    assert f_switch(0.0, 1.0, big1, big2) == f_lazy(0.0, 1.0, big1, big2) == 1.0
    assert f_lazy(1.0, 0.0, big1, big2) == 2.0
    both = t.add("ifelse tutorial 2x(1e4x1e3) f64: switch (both means)",
                 median_us(lambda: f_switch(0.0, 1.0, big1, big2), repeat, 3))
    lazy = t.add("ifelse tutorial 2x(1e4x1e3) f64: ifelse (the taken mean)",
                 median_us(lambda: f_lazy(0.0, 1.0, big1, big2), repeat, 3))
    one = t.add("ifelse tutorial 1e4x1e3 f64: one mean alone", median_us(lambda: f_one(big1), repeat, 3))
    t.ratio("  ifelse / switch", lazy, both, "of switch's time (only one branch runs)")
    t.ratio("  ifelse / one mean", lazy, one, "of one mean's time (the branch is all it costs)")
    c, v = T.dscalar("c"), T.dvector("v")
    f = irc.function([c, v], ifelse(c > 0, T.exp(T.sin(v)).sum(), v[0]))
    data = np.random.RandomState(3).rand(10 ** 6)
    np.testing.assert_allclose(f(1.0, data), np.exp(np.sin(data)).sum(), rtol=1e-12)
    assert f(-1.0, data) == data[0]
    heavy = t.add("ifelse 1e6 f64: sum(exp(sin v)) branch taken", median_us(lambda: f(1.0, data), repeat, 3))
    light = t.add("ifelse 1e6 f64: v[0] branch taken", median_us(lambda: f(-1.0, data), repeat, 3))
    t.ratio("  cheap / expensive branch", light, heavy, "of the expensive branch's time")


def bench_blas(t: Table, repeat: int, sizes: tuple[int, ...]) -> None:
    import irc
    import irc.tensor as T
    rng = np.random.RandomState(3)
    m, v, m2 = T.fmatrix("m"), T.fvector("v"), T.fmatrix("m2")
    gemv = irc.function([m, v], T.dot(m, v))
    gemm = irc.function([m, m2], T.dot(m, m2))
    for n in sizes:
        a, b, x = (rng.rand(n, n).astype("float32"), rng.rand(n, n).astype("float32"),
                   rng.rand(n).astype("float32"))
        np.testing.assert_allclose(gemv(a, x), a @ x, rtol=1e-3)
        settle()
        mine = t.add(f"gemv {n}: irc", median_us(lambda: gemv(a, x), repeat, 10))
        settle()
        base = t.add(f"gemv {n}: numpy", median_us(lambda: a @ x, repeat, 10))
        t.ratio(f"  gemv {n} ratio", mine, base, "of numpy's time")
        np.testing.assert_allclose(gemm(a, b), a @ b, rtol=1e-3)
        inner = max(1, 2 * 256 ** 3 // n ** 3)
        settle()
        mine = median_us(lambda: gemm(a, b), max(3, repeat // 4), inner)
        t.add(f"gemm {n}: irc", mine, f"{2 * n ** 3 / mine / 1e3:.1f} GFLOP/s")
        settle()
        base = median_us(lambda: a @ b, max(3, repeat // 4), inner)
        t.add(f"gemm {n}: numpy", base, f"{2 * n ** 3 / base / 1e3:.1f} GFLOP/s")
        t.ratio(f"  gemm {n} ratio", mine, base, "of numpy's time")
    # the two products of the LR step on its 400x784 X: X·w and the gradient's Xᵀ·d
    gemvt = irc.function([m, v], T.dot(m.T, v))
    X, w, d = (rng.rand(400, 784).astype("float32"), rng.rand(784).astype("float32"),
               rng.rand(400).astype("float32"))
    np.testing.assert_allclose(gemv(X, w), X @ w, rtol=1e-3)
    np.testing.assert_allclose(gemvt(X, d), X.T @ d, rtol=1e-3)
    for name, f, arg, ref in (("gemv 400x784 (X·w)", gemv, w, lambda: X @ w),
                              ("gemv of transposed 400x784 (Xᵀ·d)", gemvt, d, lambda: X.T @ d)):
        settle()
        mine = t.add(f"{name}: irc", median_us(lambda: f(X, arg), repeat, 10))
        settle()
        base = t.add(f"{name}: numpy", median_us(ref, repeat, 10))
        t.ratio(f"  {name.split(' (')[0]} ratio", mine, base, "of numpy's time")


RNN_STEPS, RNN_BATCH, RNN_HIDDEN = 1000, 32, 128


def rnn_data(seed: int = 0) -> tuple:
    rng = np.random.RandomState(seed)
    scale = np.float32(1 / np.sqrt(RNN_HIDDEN))
    return (rng.randn(RNN_STEPS, RNN_BATCH, RNN_HIDDEN).astype("float32"),
            np.zeros((RNN_BATCH, RNN_HIDDEN), "float32"),
            rng.randn(RNN_HIDDEN, RNN_HIDDEN).astype("float32") * scale,
            rng.randn(RNN_HIDDEN, RNN_HIDDEN).astype("float32") * scale,
            rng.randn(RNN_HIDDEN).astype("float32") * np.float32(0.1))


def rnn_scan(T, scan, function):
    """h_t = tanh(x_t·Wx + h_{t-1}·Wh + b) over the steps, every h_t returned (same code for
    irc and PyTensor)."""
    x, h0 = T.tensor3("x", dtype="float32"), T.matrix("h0", dtype="float32")
    wx, wh, b = T.matrix("wx", dtype="float32"), T.matrix("wh", dtype="float32"), T.vector("b", dtype="float32")
    hs, _ = scan(lambda xt, h, wx, wh, b: T.tanh(T.dot(xt, wx) + T.dot(h, wh) + b),
                 sequences=x, outputs_info=h0, non_sequences=[wx, wh, b])
    return function([x, h0, wx, wh, b], hs)


def rnn_numpy(x, h0, wx, wh, b) -> np.ndarray:
    out = np.empty(x.shape, x.dtype)
    h = h0
    for t in range(len(x)):
        h = np.tanh(x[t] @ wx + h @ wh + b)
        out[t] = h
    return out


def bench_rnn(t: Table, repeat: int) -> None:
    """A scan of 1,000 steps of a small RNN cell (hidden 128, batch 32), and the per-step cost
    of a scan whose body does almost nothing."""
    import irc
    import irc.tensor as T
    data = rnn_data()
    name = f"RNN scan {RNN_STEPS} steps, batch {RNN_BATCH}, hidden {RNN_HIDDEN}, f32"
    f = rnn_scan(T, irc.scan, irc.function)
    err = float(np.max(np.abs(f(*data) - rnn_numpy(*data))))
    mine = t.add(f"{name}: irc", median_us(lambda: f(*data), repeat, 1), f"max abs err vs numpy {err:.1e}")
    t.add(f"{name}: irc, 1 thread", single_thread_us(lambda: f(*data), repeat, 1))
    base = t.add(f"{name}: numpy loop", median_us(lambda: rnn_numpy(*data), repeat, 1))
    t.ratio("  RNN ratio vs numpy", mine, base, "of numpy's time")
    try:
        import pytensor
        import pytensor.tensor as PT
        g = rnn_scan(PT, pytensor.scan, pytensor_c_function)
        err = float(np.max(np.abs(g(*data) - rnn_numpy(*data))))
    except Exception as e:  # optional peer, or a version we do not know
        t.add(f"{name}: PyTensor", float("nan"), f"skipped ({type(e).__name__}: {e})"[:100])
    else:
        pt = t.add(f"{name}: PyTensor scan", median_us(lambda: g(*data), repeat, 1),
                   f"pytensor {pytensor.__version__}, C linker (cvm); max abs err {err:.1e}")
        t.ratio("  RNN ratio vs PyTensor", mine, pt, "of PyTensor's time")
    k = T.lscalar("k")
    steps = 1_000_000
    count, _ = irc.scan(lambda c: c + 1, outputs_info=T.constant(np.int64(0)), n_steps=k)
    counter = irc.function([k], count[-1])
    us = t.add(f"scan of {steps:,} steps of c + 1 (int64 state): irc", median_us(lambda: counter(steps), repeat, 1))
    t.add("  per step", float("nan"), f"{us * 1e3 / steps:.2f} ns (a stacked 8-byte row written per step)")


def bench_overhead(t: Table, repeat: int) -> None:
    import irc
    import irc.tensor as T
    x = T.fvector("x")
    f = irc.function([x], x + 1)
    one = np.ones(1, "float32")
    t.add("tiny function (x + 1, 1 element): irc", median_us(lambda: f(one), repeat, 500))
    t.add("  of which the native call alone", median_us(lambda: f.maker.native(one), repeat, 500))
    t.add("np.add on 1 element", median_us(lambda: np.add(one, 1), repeat, 500))


COMPILE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import irc, irc.tensor as T
sys.path.insert(0, sys.argv[1] + "/tools")
from bench_cpu import lr_data, lr_irc
data = lr_data()
t0 = time.perf_counter()
f = lr_irc(T, irc.shared, irc.function, data)
s = f.maker.native.stats
print(json.dumps({"total": time.perf_counter() - t0, "lower": s.lower_s, "llvm": s.llvm_s,
                  "load": s.load_s, "hit": s.cache_hit}))
"""


def bench_compile(t: Table) -> None:
    """Compile time of the LR training function in fresh processes (imports not counted)."""
    with tempfile.TemporaryDirectory(prefix="irc-bench-cache-") as folder:
        env = dict(os.environ)
        env.pop("IRC_COMPILEDIR", None)
        env["IRC_FLAGS"] = f"compiledir={folder}"
        for label in ("cold, empty compile dir", "warm, from the disk cache"):
            out = subprocess.run([sys.executable, "-c", COMPILE, str(ROOT)], env=env, capture_output=True,
                                 text=True, check=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            t.add(f"compile LR training function ({label})", r["total"] * 1e6,
                  f"{r['total'] * 1e3:.0f} ms: to loops {r['lower'] * 1e3:.0f} ms, LLVM "
                  f"{r['llvm'] * 1e3:.0f} ms, load {r['load'] * 1e3:.0f} ms, cache hit {r['hit']}")


def busy_tables(rounds: int) -> None:
    """`bench_busy`'s four tables: quiet, one core busy, alternating with numpy, and the MLP
    step under each of the pool's placement settings."""
    quiet, busy, alternating, settings = Table(), Table(), Table(), Table()
    load = os.getloadavg()[0]
    ticks, own, start = bench_busy.busy_ticks(), bench_busy.own_ticks(), time.time()
    bench_busy.quiet_and_busy(quiet, busy, rounds)
    bench_busy.alternating_with_numpy(alternating, rounds)
    bench_busy.pool_settings(settings, rounds)
    others = (bench_busy.busy_ticks() - ticks - (bench_busy.own_ticks() - own)) / (
        (time.time() - start) * os.sysconf("SC_CLK_TCK") * len(os.sched_getaffinity(0)))
    print(f"load average (1 min) before {load:.2f}, after {os.getloadavg()[0]:.2f} (this run adds 1 to 2; "
          "more means other processes shared the 'quiet' cores too)")
    print(f"other processes used {max(others, 0.0):.0%} of the machine during the run (near 0% on a quiet machine)")
    for title, table in (("quiet", quiet), ("one core busy (a process spinning on it)", busy),
                         ("alternating with numpy in one process", alternating),
                         ("the pool's placement settings (threads.tune), MLP step", settings)):
        print(f"\n== {title}")
        table.print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30, help="samples per case (median)")
    ap.add_argument("--quick", action="store_true", help="fewer samples and sizes")
    ap.add_argument("--only", default="", help="comma-separated groups to run (default: all): "
                    "exp,lr,chain,sums,ifelse,blas,gemm,mlp,rnn,overhead,compile")
    ap.add_argument("--busy", action="store_true", help="instead: 1 vs 2 threads quiet and with one core "
                    "busy (a competing process), the MLP step alternating with numpy's, and the MLP step "
                    "under each of the pool's placement settings")
    ap.add_argument("--peers", action="store_true", help="instead: every row of the busy tables against torch, "
                    "jax.jit and numpy in one process, interleaved (issue 24's quiet table), and irc's and "
                    "torch's calls alternating")
    args = ap.parse_args()
    import irc
    irc.config.floatX = "float32"
    repeat = 7 if args.quick else args.repeat
    print(f"machine: {machine()}")
    if args.busy:
        busy_tables(repeat)
        return
    if args.peers:
        t, beside = Table(), Table()
        load = os.getloadavg()[0]
        bench_peers.peer_table(t, beside, max(3, repeat // 3))
        print(f"load average (1 min) before {load:.2f}, after {os.getloadavg()[0]:.2f}")
        print(f"\n== quiet: each sample after {bench_peers.SETTLE_S} s of rest and {bench_peers.WARMUP_S} s of calls")
        t.print()
        print("\n== beside torch: irc's and torch's calls alternating one by one")
        beside.print()
        return
    t = Table()
    groups = {
        "exp": lambda: bench_exp(t, repeat),
        "lr": lambda: bench_lr(t, repeat),
        "chain": lambda: bench_chain(t, repeat),
        "sums": lambda: bench_sums(t, repeat),
        "ifelse": lambda: bench_ifelse(t, repeat),
        "blas": lambda: bench_blas(t, repeat, (256, 512) if args.quick else (256, 512, 1024)),
        "gemm": lambda: bench_dense.bench_gemm(t, repeat, median_us, with_threads),
        "mlp": lambda: bench_dense.bench_mlp(t, repeat, median_us, with_threads),
        "rnn": lambda: bench_rnn(t, repeat),
        "overhead": lambda: bench_overhead(t, repeat),
        "compile": lambda: bench_compile(t),
    }
    wanted = [g for g in args.only.split(",") if g] or list(groups)
    unknown = [g for g in wanted if g not in groups]
    if unknown:
        ap.error(f"unknown group(s) {', '.join(unknown)}; choose from {', '.join(groups)}")
    for g in wanted:
        groups[g]()
    t.print()


if __name__ == "__main__":
    main()
