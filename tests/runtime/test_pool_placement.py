"""Where the pool's workers run (`codegen_cpu/pool_placement.py`): a worker leaves its caller's
core, is pulled onto it when the caller would sleep for its block, and leaves a mask the user
set alone; a worker out of blocks while the caller still holds one sleeps soon (`give_way`).
`irc_rt_parallel_for` is driven directly with a Python body (ctypes), so a test can see on
which core each chunk ran and hold one on purpose."""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import threading
import time

import pytest

from irc.codegen_cpu.thread_pool import PARALLEL_FOR, STATE
from irc.runtime import threads

BODY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
PARALLEL = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
LIBC = ctypes.CDLL(None)
TICK_S = 1 / os.sysconf("SC_CLK_TCK")

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2,
    reason="placement needs Linux (sched_setaffinity) and two cores")


def core() -> int:
    return LIBC.sched_getcpu()


@pytest.fixture
def pool():
    """Two threads, every loop split and sleeping workers always woken; the worker's mask,
    the settings and the caller's mask are restored after."""
    pool = threads.ensure_pool()
    before = threads.num_threads()
    if threads.set_num_threads(2) < 2:
        pytest.skip("no workers on this platform")
    threads.tune(min_work=0, wake_work=0, placement=True, rescue=True, give_way=True)
    threads.forget_stalls()
    everywhere = os.sched_getaffinity(0)
    yield pool
    for t in pool.threads:
        os.sched_setaffinity(t.native_id, everywhere)
    os.sched_setaffinity(0, everywhere)
    threads.tune(min_work=STATE["min_work"][1], wake_work=STATE["wake_work"][1], spin_cycles=STATE["spin_cycles"][1],
                 contended_cycles=STATE["contended_cycles"][1], placement=True, rescue=True, give_way=True)
    threads.forget_stalls()
    threads.set_num_threads(before)


def run_parallel(pool, n: int, body) -> list[tuple[int, int, int, int]]:
    """`irc_rt_parallel_for` over [0, n); (thread id, core at the chunk's end, lo, hi) of
    every chunk."""
    chunks = []
    lock = threading.Lock()

    def trampoline(_ctx, lo, hi):
        body(lo, hi)
        with lock:
            chunks.append((threading.get_native_id(), core(), lo, hi))

    callback = BODY(trampoline)
    PARALLEL(pool.engine.get_function_address(PARALLEL_FOR))(ctypes.cast(callback, ctypes.c_void_p), None, n, 1 << 40)
    return chunks


@pytest.fixture
def other_core_busy():
    """A process spinning on a core other than the lowest one, so that the kernel has no idle
    core to which to move a worker that shares the caller's (it would, on a quiet machine,
    before the worker's own check)."""
    cores = sorted(os.sched_getaffinity(0))
    spin = f"import os\nos.sched_setaffinity(0, {{{cores[-1]}}})\nwhile True: pass"
    spinner = subprocess.Popen([sys.executable, "-c", spin])
    time.sleep(0.05)
    yield
    spinner.kill()
    spinner.wait()


def worker_on_callers_core(pool) -> tuple[int, int, set[int]]:
    """Pin the caller to one core and move the worker there too (its mask then set back to
    every core, one the pool may change): (worker's thread id, the caller's core, every core)."""
    worker = pool.threads[0].native_id
    everywhere = os.sched_getaffinity(0)
    mine = min(everywhere)
    os.sched_setaffinity(0, {mine})
    os.sched_setaffinity(worker, {mine})
    threads.tune(spin_cycles=1 << 62, contended_cycles=1 << 62)  # it stays awake (and there)
    run_parallel(pool, 64, lambda lo, hi: None)
    threads.stats(reset=True)  # (a worker late for that job may move as soon as it is unpinned)
    os.sched_setaffinity(worker, everywhere)
    threads.tune(spin_cycles=STATE["spin_cycles"][1], contended_cycles=STATE["contended_cycles"][1])
    return worker, mine, everywhere


def test_a_worker_leaves_its_callers_core(pool, other_core_busy):
    threads.tune(rescue=False)  # (a pull would bring it back for a block)
    for _ in range(5):  # on a loaded machine the kernel may move it first
        worker, mine, everywhere = worker_on_callers_core(pool)
        cores = set()
        for _ in range(20):
            chunks = run_parallel(pool, 64, lambda lo, hi: time.sleep(0.0005))
            cores |= {c for tid, c, _, _ in chunks if tid == worker}
        time.sleep(0.01)  # (a worker late for the last job checks its core after it returned)
        if threads.stats()["moves"]:
            break
    else:
        pytest.skip("the kernel moved the worker off the caller's core every time")
    assert threads.stats()["moves"] == 1
    assert os.sched_getaffinity(worker) == everywhere - {mine}
    assert cores and mine not in cores, f"the worker ran chunks on the caller's core {mine}: {cores}"
    threads.tune(placement=False)  # gives the worker every core back
    assert os.sched_getaffinity(worker) == everywhere


def test_no_move_when_placement_is_off(pool):
    threads.tune(placement=False, rescue=False)  # (a worker pulled leaves the caller's core after)
    worker, mine, _ = worker_on_callers_core(pool)
    threads.stats(reset=True)
    for _ in range(10):
        run_parallel(pool, 64, lambda lo, hi: time.sleep(0.0005))
    assert threads.stats()["moves"] == 0
    assert mine in os.sched_getaffinity(worker)


def test_a_mask_the_user_set_is_left_alone(pool):
    """A worker pinned (here onto the caller's core) keeps its pinning: it is neither moved
    off that core nor pulled."""
    worker = pool.threads[0].native_id
    mine = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {mine})
    os.sched_setaffinity(worker, {mine})
    threads.stats(reset=True)
    for _ in range(10):
        run_parallel(pool, 64, lambda lo, hi: time.sleep(0.0005))
    assert os.sched_getaffinity(worker) == {mine}
    assert threads.stats()["moves"] == 0 and threads.stats()["pulls"] == 0


def test_a_worker_still_in_a_block_is_pulled_onto_the_callers_core(pool, other_core_busy):
    """The caller, its blocks done and about to sleep, pulls the worker still in a block
    onto its own core, and the worker leaves that core again once the block is done. The
    sleep was shorter than the caller's own blocks took, so the next loop is split again
    (not run on the caller alone)."""
    worker = pool.threads[0].native_id
    mine = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {mine})
    caller = threading.get_native_id()
    held = threading.Event()

    def body(lo, hi):  # the worker's first block outlasts the caller's 15 or so
        if threading.get_native_id() != caller and not held.is_set():
            held.set()
            time.sleep(0.05)
        else:
            time.sleep(0.002)

    for _ in range(20):
        threads.forget_stalls()
        threads.stats(reset=True)
        chunks = run_parallel(pool, 1600, body)
        if threads.stats()["pulls"]:
            break
        held.clear()
    else:
        pytest.skip("the worker never held a block when the caller gave up waiting")
    stats = threads.stats()
    # the block the worker was in when the caller, out of blocks, pulled it: its last one (on a
    # busy machine the long first block may end before the caller's blocks do, and a later one
    # be the block pulled)
    late = [c for tid, c, lo, hi in chunks if tid == worker]
    assert late[-1] == mine, "the held block did not finish on the caller's core"
    assert stats["pulls"] == 1 and stats["caller_sleeps"] == 1
    threads.stats(reset=True)
    run_parallel(pool, 64, lambda lo, hi: None)
    if stats["slept_cycles"] < 0.02 * 1e9:  # (cycles: at least 1 GHz) well below the caller's ~30 ms
        assert threads.stats()["dispatches"] == 1 and threads.stats()["solo"] == 0
    for _ in range(50):  # (the worker leaves when it next starts a job: on a busy machine the
        if mine not in os.sched_getaffinity(worker):  # caller may finish a short one alone first)
            break
        run_parallel(pool, 64, lambda lo, hi: time.sleep(0.0005))
    assert mine not in os.sched_getaffinity(worker)


def _cpu_s(tid: int) -> float:
    fields = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * TICK_S


def _worker_cpu_during_a_held_block(pool, give_way: bool) -> float:
    """CPU seconds the worker used while the caller held its first block for 0.5 s."""
    threads.tune(give_way=give_way)
    worker = pool.threads[0].native_id
    caller = threading.get_native_id()
    first = threading.Event()

    def body(lo, hi):
        if threading.get_native_id() == caller and not first.is_set():
            first.set()
            time.sleep(0.5)

    for _ in range(5):
        first.clear()
        before = _cpu_s(worker)
        chunks = run_parallel(pool, 1600, body)
        used = _cpu_s(worker) - before
        if any(tid == worker for tid, _, _, _ in chunks):
            return used
    pytest.skip("the worker never joined the loop")


def test_a_worker_out_of_blocks_gives_way_to_the_holder(pool):
    """With the caller in a long block (as if preempted), a worker that has run out of blocks
    sleeps after four of its own blocks' time (at least ~0.1 ms) instead of spinning (here: a
    spin budget that never runs out, and yields never taken for contention) — its core is
    then free for the kernel to move the caller there. With `give_way` off it spins, as a
    control."""
    threads.tune(spin_cycles=1 << 62, contended_cycles=1 << 62, placement=False)
    try:
        off = _worker_cpu_during_a_held_block(pool, give_way=False)
        on = _worker_cpu_during_a_held_block(pool, give_way=True)
    finally:
        threads.tune(contended_cycles=STATE["contended_cycles"][1])
    assert on < 0.05, f"the worker spun {on:.2f} s of the caller's 0.5 s block"
    if off < 0.1:
        pytest.skip(f"the machine is too busy to tell: the spinning worker got {off:.2f} s")
