"""Per-op timers compiled into native code: same results, sane counts, small overhead."""
import time

import numpy as np

from irc.runtime.native import compile_cpu
from irc.runtime.profile_native import compile_cpu_profiled


def _median_call(fn, args, n=200):
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn(*args)
        samples.append((time.perf_counter() - t0) / n)
    return sorted(samples)[2]


def test_timers_keep_results_and_count_each_op_once_per_call(logreg):
    build, (x, y) = logreg
    f = build()
    module = f.maker.module
    args = [x, y] + [s.get_value() for s in f.shared]
    timed, timing = compile_cpu_profiled(module)
    plain = compile_cpu(module, use_cache=False)
    for a, b in zip(timed(*args), plain(*args)):
        np.testing.assert_array_equal(a, b)
    for _ in range(9):
        timed(*args)
    counts = timing.raw()[:, 1]
    assert (counts == 10).all(), counts
    times = timing.collect()
    assert all(s >= 0 for s, _ in times.values()) and sum(s for s, _ in times.values()) > 0
    assert (timing.raw() == 0).all()  # collect resets


def test_timer_overhead_sanity(logreg):
    """Not a timed assert (machines vary): the timed code must not be grossly slower."""
    build, (x, y) = logreg
    f = build()
    args = [x, y] + [s.get_value() for s in f.shared]
    timed, _ = compile_cpu_profiled(f.maker.module)
    plain = compile_cpu(f.maker.module, use_cache=False)
    on, off = _median_call(timed, args), _median_call(plain, args)
    assert on < 3 * off + 20e-6, (on, off)


def test_profiling_keeps_the_native_fast_path(logreg):
    """The profiling wrapper forwards `fresh_results`, so Function skips its copy path."""
    build, _ = logreg
    on, off = build(profile=True), build()
    assert getattr(on.executor, "fresh_results", False) == getattr(off.executor, "fresh_results", False)
