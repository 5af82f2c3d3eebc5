"""The thread pool on a loaded machine: `irc_rt_parallel_for` driven directly (a Python body
through ctypes, so a test can see which thread ran which chunk and delay one on purpose),
and idle or waiting threads that stop spinning when they would only take a core from others.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.codegen_cpu.thread_pool import BLOCKS, PARALLEL_FOR, STATE
from irc.runtime import threads

BODY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
PARALLEL = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
TICK_S = 1 / os.sysconf("SC_CLK_TCK")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool sleeps on futexes (Linux)")


@pytest.fixture
def two_threads():
    """The pool on 2 threads, every loop split; the count and tuning are restored after."""
    pool = threads.ensure_pool()
    before = threads.num_threads()
    if threads.set_num_threads(2) < 2:
        pytest.skip("no workers on this platform")
    threads.tune(min_work=0, wake_work=0)
    threads.forget_stalls()
    yield pool
    threads.tune(min_work=STATE["min_work"][1], wake_work=STATE["wake_work"][1], spin_cycles=STATE["spin_cycles"][1],
                 contended_hold=STATE["contended_hold"][1], contended_cycles=STATE["contended_cycles"][1])
    threads.forget_stalls()
    threads.set_num_threads(before)


def run_parallel(pool, n: int, body) -> list[tuple[int, int, int]]:
    """`irc_rt_parallel_for` over [0, n) with `body(lo, hi)`; the (thread id, lo, hi) of
    every chunk run."""
    chunks: list[tuple[int, int, int]] = []
    lock = threading.Lock()

    def trampoline(_ctx, lo, hi):
        with lock:
            chunks.append((threading.get_native_id(), lo, hi))
        body(lo, hi)

    callback = BODY(trampoline)
    PARALLEL(pool.engine.get_function_address(PARALLEL_FOR))(ctypes.cast(callback, ctypes.c_void_p), None, n, 1 << 40)
    return chunks


def covers_once(chunks, n: int) -> bool:
    spans = sorted((lo, hi) for _, lo, hi in chunks)
    return spans[0][0] == 0 and spans[-1][1] == n and all(a[1] == b[0] for a, b in zip(spans, spans[1:]))


@pytest.mark.parametrize("n", [2, 17, 100_003])
def test_many_small_chunks_cover_the_range_once(two_threads, n):
    for _ in range(20):
        chunks = run_parallel(two_threads, n, lambda lo, hi: None)
        assert covers_once(chunks, n)
        # 2 ranges of BLOCKS blocks (empty ones not run), or the whole range on the caller
        # after a stall (a worker descheduled in a block on a busy machine)
        assert len(chunks) == min(n, 2 * BLOCKS) or (len(chunks) == 1 and threads.stats()["solo"])


def test_a_delayed_worker_holds_only_its_chunk(two_threads):
    """A worker that stalls in its chunk (as if descheduled) leaves the rest to the caller,
    which then sleeps instead of spinning until the worker is back."""
    caller = threading.get_native_id()

    def body(lo, hi):  # the caller's blocks take a while too, so that the worker gets one
        time.sleep(0.3 if threading.get_native_id() != caller else 0.002)

    for _ in range(3):
        threads.forget_stalls()
        threads.stats(reset=True)
        cpu0, t0 = time.thread_time(), time.perf_counter()
        chunks = run_parallel(two_threads, 1600, body)
        cpu, wall = time.thread_time() - cpu0, time.perf_counter() - t0
        stats = threads.stats()
        assert covers_once(chunks, 1600)
        by_worker = [c for c in chunks if c[0] != caller]
        assert len(by_worker) <= 1, f"the delayed worker ran {len(by_worker)} chunks"
        assert wall < 0.3 * 2 + 0.2  # not its whole range one chunk after another
        assert stats["dispatches"] == 1 and stats["blocks"] == 2 * BLOCKS
        assert stats["helped"] == len(by_worker)
        if by_worker:
            assert wall >= 0.3
            assert cpu < 0.15, f"the caller spun {cpu:.3f} s of its {wall:.3f} s wait"
            assert stats["caller_sleeps"] == 1


def test_after_a_stall_loops_run_alone_for_a_while(two_threads):
    """A dispatch whose caller had to sleep for a stalled worker sends the next loops to the
    caller alone (doubling while stalls repeat), so a worker that keeps being descheduled
    cannot make the pool much slower than one thread."""
    caller = threading.get_native_id()
    stalled = threading.Event()

    def body(lo, hi):
        if threading.get_native_id() != caller and not stalled.is_set():
            stalled.set()
            time.sleep(0.2)
        else:
            time.sleep(0.002)

    for _ in range(20):  # until the worker was there to stall (on a busy machine it may be late)
        threads.forget_stalls()
        # the solo window doubles from here: ~50 ms, longer than a loaded machine's pause
        # between this call and the next (from the least, ~0.4 ms, the test failed now and then)
        two_threads.set(threads.SET_SOLO_CYCLES, 1 << 26)
        threads.stats(reset=True)
        run_parallel(two_threads, 1600, body)
        if threads.stats()["caller_sleeps"]:
            break
        stalled.clear()
    else:
        pytest.skip("the worker never took a block")
    threads.stats(reset=True)
    chunks = run_parallel(two_threads, 1600, lambda lo, hi: None)
    assert covers_once(chunks, 1600)
    assert {c[0] for c in chunks} == {caller}
    assert threads.stats()["solo"] == 1 and threads.stats()["dispatches"] == 0
    threads.forget_stalls()
    threads.stats(reset=True)
    run_parallel(two_threads, 1600, lambda lo, hi: None)
    assert threads.stats()["dispatches"] == 1 and threads.stats()["solo"] == 0


def _cpu_s(tid: int) -> float:
    fields = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * TICK_S


def test_idle_worker_stops_spinning_on_a_contested_core(two_threads):
    """With a spin budget that never runs out, a worker whose core another process wants
    still goes to sleep (a round of its spin that lost the core), and costs nothing while
    idle."""
    core = min(os.sched_getaffinity(0))
    worker = two_threads.threads[0].native_id
    spin = f"import os\nos.sched_setaffinity(0, {{{core}}})\nwhile True: pass"
    spinner = subprocess.Popen([sys.executable, "-c", spin])
    everywhere = os.sched_getaffinity(worker)
    try:
        os.sched_setaffinity(worker, {core})
        time.sleep(0.2)
        threads.tune(spin_cycles=1 << 62)
        run_parallel(two_threads, 64, lambda lo, hi: None)  # a job: the worker is awake and spins
        before = _cpu_s(worker)
        time.sleep(1.0)
        used = _cpu_s(worker) - before
        assert used < 0.15, f"the idle worker took {used:.2f} s of a shared core in 1 s"
    finally:
        spinner.kill()
        spinner.wait()
        os.sched_setaffinity(worker, everywhere)


def test_after_a_contested_spin_idle_workers_sleep_after_each_job(two_threads):
    """Once a spin lost its core, the pool remembers it (`contended_hold`): after the next
    jobs the worker sleeps at once, even with the competitor gone and a spin budget that
    never runs out, so that a job's wake-up (not a share of a slice) gets it its core.
    `forget_stalls` forgets it."""
    core = min(os.sched_getaffinity(0))
    worker = two_threads.threads[0].native_id
    spin = f"import os\nos.sched_setaffinity(0, {{{core}}})\nwhile True: pass"
    everywhere = os.sched_getaffinity(worker)
    threads.tune(spin_cycles=1 << 62, contended_hold=1 << 62)
    spinner = subprocess.Popen([sys.executable, "-c", spin])
    try:
        os.sched_setaffinity(worker, {core})
        deadline = time.monotonic() + 5.0
        while two_threads.get(threads.SET_CONTENDED_UNTIL) == 0 and time.monotonic() < deadline:
            run_parallel(two_threads, 64, lambda lo, hi: None)  # the worker is awake ...
            time.sleep(0.1)  # ... and its spin loses its core to the spinner
    finally:
        spinner.kill()
        spinner.wait()
    try:
        assert two_threads.get(threads.SET_CONTENDED_UNTIL) != 0, "the lost core was not noticed"
        run_parallel(two_threads, 64, lambda lo, hi: None)  # alone on its core now
        before = _cpu_s(worker)
        time.sleep(0.5)
        used = _cpu_s(worker) - before
        assert used < 0.05, f"the idle worker spun {used:.2f} s of 0.5 s after a contested spin"
        threads.forget_stalls()
        assert two_threads.get(threads.SET_CONTENDED_UNTIL) == 0
    finally:
        os.sched_setaffinity(worker, everywhere)


def test_idle_worker_gives_way_to_openblas_threads(two_threads):
    """numpy's OpenBLAS threads spin (without yielding) between and after its calls; an idle
    irc worker on the same core sleeps instead of taking half of it."""
    ours = {threading.get_native_id()} | {t.native_id for t in two_threads.threads}
    a = np.random.RandomState(0).rand(256, 256)
    a @ a  # OpenBLAS starts its threads
    blas_threads = [int(t) for t in os.listdir("/proc/self/task") if int(t) not in ours]
    if not blas_threads:
        pytest.skip("numpy's BLAS runs no threads here")
    stop = threading.Event()

    def numpy_calls():
        while not stop.is_set():
            a @ a

    caller = threading.Thread(target=numpy_calls)
    caller.start()
    worker = two_threads.threads[0].native_id
    pinned = blas_threads + [worker, caller.native_id]
    everywhere = {tid: os.sched_getaffinity(tid) for tid in pinned}
    core = min(os.sched_getaffinity(0))
    try:
        for tid in pinned:
            os.sched_setaffinity(tid, {core})
        threads.tune(spin_cycles=1 << 62)
        run_parallel(two_threads, 64, lambda lo, hi: None)  # a job: the worker is awake and spins
        before = _cpu_s(worker)
        time.sleep(1.0)
        used = _cpu_s(worker) - before
        assert used < 0.05, f"the idle worker took {used:.2f} s of a core OpenBLAS's threads use"
    finally:
        stop.set()
        caller.join()
        for tid, cores in everywhere.items():
            if tid != caller.native_id:
                os.sched_setaffinity(tid, cores)


def test_same_bits_as_one_thread_beside_a_busy_core(two_threads):
    """Products, softmax and reductions give the bits of one thread also when one core is
    busy (the chunks then go to whichever thread is running)."""
    m, m2 = T.fmatrix("m"), T.fmatrix("m2")
    f = irc.function([m, m2], [T.dot(m, m2), T.nnet.softmax(m), T.tanh(m).sum(axis=0)])
    rng = np.random.RandomState(24)
    a, b = rng.randn(300, 257).astype("float32"), rng.randn(257, 300).astype("float32")
    threads.set_num_threads(1)
    one = f(a, b)
    threads.set_num_threads(2)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        for _ in range(10):
            for o, p in zip(one, f(a, b)):
                assert np.array_equal(o, p)
    finally:
        spinner.kill()
        spinner.wait()
    np.testing.assert_allclose(one[0], a @ b, rtol=1e-4, atol=1e-4)
