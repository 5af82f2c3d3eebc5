"""The thread pool on a busy machine, for `tools/bench_cpu.py --busy`: irc on 1 and 2 threads
with the machine quiet and with one core taken by a competing process, the MLP step
alternating with numpy's (whose OpenBLAS threads keep spinning ~0.1 s after each call), and
the MLP step on 2 threads under each of the pool's placement settings and worker slices
(`SETTINGS`).

The competitor is one process spinning, pinned to the last core; it is stopped (SIGSTOP) and
resumed (SIGCONT) between rounds, so quiet and busy samples interleave and the other load on
a shared machine spreads over both. Each figure is the median over rounds of the mean of a
few back-to-back calls.
"""
from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import time
from typing import Callable

import numpy as np

import bench_dense  # beside this file (tools/ is on the path)
from bench_dense import lr_data, lr_irc
from irc.runtime.worker_slice import WORKER_SLICE_NS
from bench_common import Table
from irc.codegen_cpu.background_compile import wait_all

SPIN = "import os, sys\nos.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True:\n    pass\n"
SWITCH_S = 0.01  # after a SIGSTOP/SIGCONT, for the scheduler to settle
ALTERNATIONS = 6  # calls per round in `alternating_with_numpy`, each timed alone (median)
# the pool's placement settings compared in `pool_settings` (`threads.tune`); the last is the default
SETTINGS = {
    "all off (as before)": dict(placement=False, rescue=False, give_way=False, slice_ns=0),
    "placement": dict(placement=True, rescue=False, give_way=False, slice_ns=0),
    "placement + rescue": dict(placement=True, rescue=True, give_way=False, slice_ns=0),
    "placement + rescue + give_way": dict(placement=True, rescue=True, give_way=True, slice_ns=0),
    "all + short slice (default)": dict(placement=True, rescue=True, give_way=True, slice_ns=WORKER_SLICE_NS),
}


class Competitor:
    """One spinning process pinned to one core, paused or running on demand."""

    def __init__(self) -> None:
        cores = sorted(os.sched_getaffinity(0))
        self.core = cores[-1]
        self.proc = subprocess.Popen([sys.executable, "-c", SPIN, str(self.core)])
        self.running = True
        self.pause()

    def pause(self) -> None:
        if self.running:
            self.proc.send_signal(signal.SIGSTOP)
            self.running = False
            time.sleep(SWITCH_S)

    def resume(self) -> None:
        if not self.running:
            self.proc.send_signal(signal.SIGCONT)
            self.running = True
            time.sleep(SWITCH_S)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def sample_us(fn: Callable[[], object], inner: int, warmup: int = 2) -> float:
    """The mean time of `inner` calls after `warmup` untimed ones, in µs (once the background
    compiles of tiered functions are done: the warm-up calls take their optimized code)."""
    wait_all()
    for _ in range(warmup):
        fn()
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner * 1e6


def cases() -> list[tuple[str, Callable[[], object], int]]:
    """(name, call, calls per sample): the rows of the quiet and busy tables, each checked
    against numpy once."""
    import irc
    import irc.tensor as T
    rng = np.random.RandomState(24)
    out = []
    x = irc.shared(rng.rand(230400).astype("float32"), name="x")
    f_exp = irc.function([], T.exp(x))
    np.testing.assert_allclose(f_exp(), np.exp(x.get_value()), rtol=1e-6)
    out.append(("exp 230,400 f32", f_exp, 20))
    data = lr_data()
    f_lr = lr_irc(T, irc.shared, irc.function, data)
    out.append(("LR step 400x784", lambda: f_lr(data[0], data[1]), 20))
    v = T.fvector("v")
    chain = T.tanh(T.exp(-(v * 0.5 + 1.0) ** 2) * 3.0 - v) + T.sqrt(abs(v) + 1.0)
    f_chain = irc.function([v], chain)
    a = rng.randn(10 ** 6).astype("float32")
    out.append(("10-op chain 1e6 f32", lambda: f_chain(a), 3))
    m = T.fmatrix("m")
    big = rng.rand(2000, 2000).astype("float32")
    for axis in (0, 1):
        f_sum = irc.function([m], m.sum(axis=axis))
        np.testing.assert_allclose(f_sum(big), big.sum(axis=axis), rtol=1e-4)
        out.append((f"sum 2000x2000 axis {axis}", (lambda f: lambda: f(big))(f_sum), 5))
    f_sm = irc.function([m], T.nnet.softmax(m))
    sq = rng.randn(1000, 1000).astype("float32")
    out.append(("row softmax 1000x1000", lambda: f_sm(sq), 5))
    m2 = T.fmatrix("m2")
    f_mm = irc.function([m, m2], T.dot(m, m2))
    p, q = rng.rand(512, 512).astype("float32"), rng.rand(512, 512).astype("float32")
    np.testing.assert_allclose(f_mm(p, q), p @ q, rtol=1e-4)
    out.append(("matmul 512x512", lambda: f_mm(p, q), 3))
    X, Y, params = bench_dense.mlp_data()
    f_mlp = bench_dense.mlp_irc(params)
    out.append(("MLP step 256x784-512-10", lambda: f_mlp(X, Y), 5))
    return out


def quiet_and_busy(t_quiet: Table, t_busy: Table, rounds: int) -> None:
    """Every case on 1 and 2 threads, quiet and with one core busy, rounds interleaved."""
    from irc.runtime import threads
    rows = cases()
    samples: dict[tuple[str, str, int], list[float]] = {}
    pool_stats: dict[tuple[str, str], dict[str, int]] = {}
    competitor = Competitor()
    before = threads.num_threads()
    try:
        for r in range(rounds):
            for busy in ((False, True) if r % 2 == 0 else (True, False)):
                competitor.resume() if busy else competitor.pause()
                for name, fn, inner in rows:
                    for n in ((1, 2) if r % 2 == 0 else (2, 1)):
                        threads.set_num_threads(n)
                        cond = "busy" if busy else "quiet"
                        threads.stats(reset=True)
                        samples.setdefault((name, cond, n), []).append(sample_us(fn, inner))
                        if n == 2:
                            _add_stats(pool_stats.setdefault((name, cond), {}), threads.stats())
    finally:
        competitor.close()
        threads.set_num_threads(before)
    for table, cond in ((t_quiet, "quiet"), (t_busy, "busy")):
        for name, _, _ in rows:
            one = statistics.median(samples[(name, cond, 1)])
            two = statistics.median(samples[(name, cond, 2)])
            spread = _spread(samples[(name, cond, 2)])
            table.add(f"{name}: 1 thread", one, _spread(samples[(name, cond, 1)]))
            table.add(f"{name}: 2 threads", two,
                      f"2 threads / 1 = {two / one:.2f}; {spread}; {_describe(pool_stats.get((name, cond), {}))}")


def alternating_with_numpy(t: Table, rounds: int) -> None:
    """The MLP step called right after numpy's (same step by hand, OpenBLAS on its default
    threads), and numpy's right after irc's; irc alone for reference. Every call is timed
    alone, and a round's figure is the median of its calls."""
    from irc.runtime import threads
    X, Y, params = bench_dense.mlp_data()
    f = bench_dense.mlp_irc(params)
    g = bench_dense.mlp_numpy(params)
    f(X, Y)
    f.wait_optimized()  # (tiered compilation: time the optimized code)
    before = threads.num_threads()
    samples: dict[str, list[float]] = {}
    try:
        for r in range(rounds):
            for n in ((1, 2) if r % 2 == 0 else (2, 1)):
                threads.set_num_threads(n)
                irc_alone, irc_after, np_after = [], [], []
                for _ in range(ALTERNATIONS):
                    t0 = time.perf_counter()
                    f(X, Y)
                    irc_alone.append(time.perf_counter() - t0)
                for _ in range(ALTERNATIONS):
                    t0 = time.perf_counter()
                    g(X, Y)
                    t1 = time.perf_counter()
                    f(X, Y)
                    t2 = time.perf_counter()
                    np_after.append(t1 - t0)
                    irc_after.append(t2 - t1)
                samples.setdefault(f"irc alone, {n} thread(s)", []).append(statistics.median(irc_alone) * 1e6)
                samples.setdefault(f"irc after numpy, {n} thread(s)", []).append(statistics.median(irc_after) * 1e6)
                samples.setdefault(f"numpy after irc on {n} thread(s)", []).append(statistics.median(np_after) * 1e6)
    finally:
        threads.set_num_threads(before)
    med = {k: statistics.median(v) for k, v in samples.items()}
    t.add(f"numpy's BLAS: {numpy_blas()}", None)
    for k in sorted(med):
        t.add(f"MLP step: {k}", med[k], _spread(samples[k]))
    for n in (1, 2):
        t.ratio(f"  irc / numpy, alternating, irc on {n}", med[f"irc after numpy, {n} thread(s)"],
                med[f"numpy after irc on {n} thread(s)"], "of numpy's time (target ≤ 0.80 on 2)")


def pool_settings(t: Table, rounds: int) -> None:
    """The MLP step on 2 threads under each of SETTINGS (interleaved, against 1 thread in the
    same rounds): quiet, with one core busy, and right after numpy's step (OpenBLAS's
    threads spinning). Shows what each of the pool's placement mechanisms
    (`codegen_cpu/pool_placement.py`, `give_way`) does where it should matter."""
    from irc.runtime import threads
    X, Y, params = bench_dense.mlp_data()
    f = bench_dense.mlp_irc(params)
    g = bench_dense.mlp_numpy(params)
    f(X, Y)
    f.wait_optimized()  # (tiered compilation: time the optimized code)
    before = threads.num_threads()
    competitor = Competitor()
    samples: dict[tuple[str, str], list[float]] = {}
    pool_stats: dict[tuple[str, str], dict[str, int]] = {}
    conditions = ("quiet", "one core busy", "after numpy")
    names = ["1 thread", *SETTINGS]

    def after_numpy() -> None:
        g(X, Y)
        f(X, Y)

    try:
        for r in range(rounds):
            for cond in (conditions if r % 2 == 0 else conditions[::-1]):
                competitor.resume() if cond == "one core busy" else competitor.pause()
                for name in (names if r % 2 == 0 else names[::-1]):
                    threads.set_num_threads(1 if name == "1 thread" else 2)
                    threads.tune(**SETTINGS.get(name, {}))
                    threads.stats(reset=True)
                    if cond == "after numpy":  # each irc call timed alone, right after numpy's
                        times = []
                        for _ in range(ALTERNATIONS):
                            g(X, Y)
                            t0 = time.perf_counter()
                            f(X, Y)
                            times.append(time.perf_counter() - t0)
                        us = statistics.median(times) * 1e6
                    else:
                        us = sample_us(lambda: f(X, Y), 5)
                    samples.setdefault((cond, name), []).append(us)
                    _add_stats(pool_stats.setdefault((cond, name), {}), threads.stats())
    finally:
        competitor.close()
        threads.tune(**SETTINGS[list(SETTINGS)[-1]])
        threads.set_num_threads(before)
    for cond in conditions:
        one = statistics.median(samples[(cond, "1 thread")])
        t.add(f"MLP step, {cond}: 1 thread", one, _spread(samples[(cond, "1 thread")]))
        for name in SETTINGS:
            two = statistics.median(samples[(cond, name)])
            st = pool_stats[(cond, name)]
            t.add(f"MLP step, {cond}: 2 threads, {name}", two,
                  f"2 threads / 1 = {two / one:.2f}; {_spread(samples[(cond, name)])}; {_describe(st)}; "
                  f"moves {st.get('moves', 0)}, pulls {st.get('pulls', 0)}")


def numpy_blas() -> str:
    """numpy's BLAS as its build reports it (name, version, configuration), e.g. OpenBLAS
    with its thread count: whose threads spin after each call beside irc's."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except (TypeError, KeyError):  # older numpy: no dict mode
        return "unknown"
    extra = blas.get("openblas configuration", "")
    return f"{blas.get('name', '?')} {blas.get('version', '')}{'; ' + extra if extra else ''}"


def busy_ticks() -> int:
    """Clock ticks all cores spent busy since boot (/proc/stat; 0 where it is missing)."""
    try:
        fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    except OSError:
        return 0
    return fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]  # user nice system irq softirq steal


def own_ticks() -> int:
    """Clock ticks this process and its finished children (the competitors) ran."""
    t = os.times()
    return round((t.user + t.system + t.children_user + t.children_system) * os.sysconf("SC_CLK_TCK"))


def _spread(values: list[float]) -> str:
    """The samples' interquartile range relative to the median (how noisy the row was) and
    their first quartile (nearer what a quiet moment gives)."""
    if len(values) < 4:
        return ""
    q = statistics.quantiles(values, n=4)
    return f"IQR ±{(q[2] - q[0]) / 2 / statistics.median(values) * 100:.0f}%, Q1 {q[0]:.1f}"


def _add_stats(total: dict[str, int], more: dict[str, int]) -> None:
    for k, v in more.items():
        total[k] = total.get(k, 0) + v


def _describe(stats: dict[str, int]) -> str:
    """The pool's statistics over a row's 2-thread samples: the share of blocks the worker
    ran, how often the caller slept waiting for a worker's block, and how much of the
    caller's time in split loops went to waiting for the others' last blocks."""
    if not stats.get("dispatches"):
        return "no loop split"
    own, waited = stats.get("own_cycles", 0), stats.get("waited_cycles", 0)
    return (f"worker ran {stats['helped'] / stats['blocks'] * 100:.0f}% of blocks, caller slept in "
            f"{stats['caller_sleeps'] / stats['dispatches'] * 100:.0f}% of loops, waited "
            f"{waited / max(own + waited, 1) * 100:.0f}% of its time in them")
