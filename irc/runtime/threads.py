"""The CPU thread pool at run time: loads `irc/codegen_cpu/thread_pool.py`'s module once per
process (its object code is in the disk cache like compiled functions'; from its shared library
where the cache holds one, `native_library.py`, else into MCJIT: `pool_jit.py`), makes
`irc_rt_parallel_for` and the runtime-library functions of `codegen_cpu/libcalls.py` resolvable
for compiled code (a library's symbols for the libraries loaded after it; MCJIT's through
`llvm.add_symbol`), and starts the workers. One pool per process, whichever way it came: a
warm start's library is used only where the pool is the one its library links to.

Workers are daemon Python threads that each make one ctypes call, `irc_rt_worker(k)`, which
releases the GIL and never returns: the waiting, the work and the wake-ups are all native.
The thread count is `config.cpu_threads` (0: `OMP_NUM_THREADS` if set, else the cores this
process may run on), read whenever a function is loaded, or set with `set_num_threads`. It
applies to the whole process. After `fork()` the child has no workers; its next load starts
them again.
"""
from __future__ import annotations

import ctypes
import os
import threading
import time
from typing import Callable

from ..codegen_cpu.pool_abi import LIBCALLS, MASK_WORDS, MAX_THREADS, PARALLEL_FOR, SETTABLE, STATS
from ..base.config import config
from .native_library import load_library
from .object_cache import ObjectCache
from .worker_slice import WORKER_SLICE_NS, request_slice

SET_WANT, SET_MIN_WORK, SET_SPIN_CYCLES, SET_JOINED, SET_CONTENDED_HOLD, SET_CONTENDED_CYCLES, SET_WAKE_WORK = (
    SETTABLE.index(k) for k in ("want", "min_work", "spin_cycles", "joined", "contended_hold", "contended_cycles",
                                "wake_work"))
SET_SOLO_UNTIL, SET_SOLO_CYCLES = SETTABLE.index("solo_until"), SETTABLE.index("solo_cycles")
SET_CONTENDED_UNTIL = SETTABLE.index("contended_until")
SET_PLACEMENT, SET_RESCUE, SET_GIVE_WAY = (SETTABLE.index(k) for k in ("placement", "rescue", "give_way"))


class _Pool:
    """The process's pool: the code holding it, its entry points as ctypes functions, its
    workers. (A plain class: a dataclass cost ~0.6 ms of every warm start's imports.)"""

    def __init__(self, engine: object, address: Callable[[str], int], library_key: str):
        self.engine = engine  # holds the pool's code: its shared library (`Library`), or an MCJIT engine
        self.address = address  # a symbol's address in it (`engine.get_function_address`)
        self.library_key = library_key  # the key of its library ("": loaded into MCJIT)
        i64 = ctypes.c_int64
        self.set = ctypes.CFUNCTYPE(None, i64, i64)(address("irc_rt_set"))  # irc_rt_set(which, value)
        self.get = ctypes.CFUNCTYPE(i64, i64)(address("irc_rt_get"))  # irc_rt_get(which)
        # irc_rt_set_mask(word, bits): the cores workers may be placed on
        self.set_mask = ctypes.CFUNCTYPE(None, i64, i64)(address("irc_rt_set_mask"))
        # irc_rt_worker(k), None where the pool cannot sleep (no futex)
        worker = address("irc_rt_worker")
        self.worker = ctypes.CFUNCTYPE(None, i64)(worker) if worker else None
        self.threads: list = []
        self.cores: set = set()  # the cores published to the pool (`_publish_cores`)
        self.for_mcjit = False  # its symbols resolve MCJIT's code (`pool_for_mcjit`)

    def symbols(self) -> dict[str, int]:
        """What compiled code calls in it: the parallel loop and the runtime library."""
        return {name: self.address(name) for name in (PARALLEL_FOR, *LIBCALLS)}


_POOL: _Pool | None = None
_LOCK = threading.Lock()
_SLICE = [WORKER_SLICE_NS]  # the slice workers ask for (`tune(slice_ns=)`)


def default_threads() -> int:
    """OMP_NUM_THREADS when set (Theano's convention), else the cores we may run on."""
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return min(int(env), MAX_THREADS)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


_PREBUILT: list[bytes] = []  # the pool's object code, compiled beside a function's kernels
_PROMISED: list[bool] = []  # a background compile will store the pool in the cache (`promise_pool`)


def pool_missing() -> bool:
    """Whether loading compiled code now would have to compile the pool (it is neither running
    in this process nor in the cache)."""
    from .pool_jit import pool_key  # llvmlite
    return _POOL is None and not _PREBUILT and ObjectCache(kind="runtime").load(pool_key()) is None


def use_serial_runtime() -> None:
    """Make `irc_rt_parallel_for` and the runtime-library functions resolve to the serial
    runtime (`codegen_cpu/serial_runtime.py`), for tier-0 code loaded before the pool exists;
    code loaded once the pool runs resolves to the pool's (`_build` adds its symbols over these)."""
    from .pool_jit import give_serial_runtime  # llvmlite
    with _LOCK:
        if _POOL is None:
            give_serial_runtime()


def promise_pool() -> bool:
    """Whether the caller's background compile should build the pool into the cache: True for
    the first to ask while the pool is missing (one process compiles it, not every one)."""
    if _PROMISED or not pool_missing():
        return False
    _PROMISED.append(True)
    return True


def pool_text() -> str:
    """The pool's LLVM IR (for a background compile, `promise_pool`)."""
    from .pool_jit import pool_module  # llvmlite
    return str(pool_module())


def store_pool_object(obj: bytes) -> None:
    """The pool's optimized object code, into the cache (a background compile's)."""
    from .pool_jit import pool_key  # llvmlite
    ObjectCache(kind="runtime").store(pool_key(), obj)


def ensure_configured() -> None:
    """The pool running: started and configured (`configure`) if this is the first code that
    needs it (tier-0 code ran on the serial runtime), else left as it is (a thread count set
    by `set_num_threads` since stays)."""
    if _POOL is None:
        configure()
    else:
        ensure_pool()


def pool_module_text() -> str | None:
    """The pool's LLVM IR when it is still to be compiled (not running in this process, not
    in the cache), so that the first compile of a process can build it beside its kernels
    (`native.build_objects`, possibly in another process); else None."""
    if _POOL is not None or not pool_missing():
        return None
    return pool_text()


def provide_pool_object(obj: bytes) -> None:
    """The object code of `pool_module_text()`'s module: kept for `_build` and cached."""
    _PREBUILT[:] = [obj]
    store_pool_object(obj)


def pool_object() -> bytes | None:
    """The pool's object code, compiled in this process or cached (for its library)."""
    from .pool_jit import pool_key  # llvmlite
    return _PREBUILT[0] if _PREBUILT else ObjectCache(kind="runtime").load(pool_key())


def _build() -> _Pool:
    """The pool from its library when the cache holds one, else loaded into MCJIT from its
    object (compiled first if the cache lacks it)."""
    from .pool_jit import add_symbols, build_pool, pool_key  # llvmlite
    key = pool_key()
    library = load_library(key, global_scope=True)
    if library is not None:
        pool = _Pool(library, library.address, key)
    else:
        engine = build_pool(_PREBUILT[0] if _PREBUILT else None)
        pool = _Pool(engine, engine.get_function_address, "")
    add_symbols(pool.symbols())
    pool.for_mcjit = True
    return pool


def pool_for_mcjit() -> None:
    """The pool's symbols resolve the code MCJIT loads from now on, where the pool came from
    its library before llvmlite was needed (a warm start, then a compile)."""
    with _LOCK:
        if _POOL is not None and not _POOL.for_mcjit:
            from .pool_jit import add_symbols  # llvmlite
            add_symbols(_POOL.symbols())
            _POOL.for_mcjit = True


def library_pool(key: str) -> bool:
    """Whether the process's pool is the one of library `key`, loaded now if it has no pool
    yet, so that a function's library can resolve its symbols (`native_warm.py`). False: the
    pool came from MCJIT (or another library, or this one cannot load): such a function is
    loaded into MCJIT."""
    global _POOL
    with _LOCK:
        if _POOL is None:
            library = load_library(key, global_scope=True)
            if library is None:
                return False
            _POOL = _started(_Pool(library, library.address, key))
        return _POOL.library_key == key


def _publish_cores(pool: _Pool) -> None:
    """Tell the pool which cores this process may run on (`pool_placement.allowed`): a
    worker that leaves its caller's core keeps the others of these. Read again whenever
    the thread count is set (after a `taskset`, say)."""
    try:
        cores = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        cores = set()
    pool.cores = set(cores)
    words = [0] * MASK_WORDS
    for c in cores:
        if c < 64 * MASK_WORDS:
            words[c // 64] |= 1 << (c % 64)
    for k, bits in enumerate(words):
        pool.set_mask(k, ctypes.c_int64(bits - (1 << 64) if bits >= 1 << 63 else bits).value)


def _after_fork_in_child() -> None:
    """The child has no workers, and a fresh lock (the fork may have come while another
    thread held ours)."""
    global _LOCK
    _LOCK = threading.Lock()
    if _POOL is not None:
        _POOL.threads.clear()
        _POOL.set(SET_JOINED, 0)


def ensure_pool() -> _Pool:
    """The process's pool, built on first use (before any compiled code that calls it loads)."""
    global _POOL
    with _LOCK:
        if _POOL is None:
            _POOL = _started(_build())
        return _POOL


def _started(pool: _Pool) -> _Pool:
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork_in_child)
    return pool


def configure() -> int:
    """Apply `config.cpu_threads`; returns the number of threads in use."""
    return set_num_threads(config.cpu_threads or default_threads())


def set_num_threads(n: int) -> int:
    """Use `n` threads (the caller's included) for parallel loops from now on; returns the
    number in use (1 where this platform's pool cannot run workers)."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"set_num_threads: need a positive thread count, got {n!r}")
    pool = ensure_pool()
    n = min(n, MAX_THREADS) if pool.worker is not None else 1
    _publish_cores(pool)
    with _LOCK:
        while len(pool.threads) < n - 1:
            _start_worker(pool, len(pool.threads) + 1)
    pool.set(SET_WANT, n)
    return n


def forget_stalls() -> None:
    """Use the workers again at once, even where a recent dispatch stalled on one (after a
    stall the pool runs loops on the caller alone for a while: `thread_pool._after_wait`),
    and let idle workers spin again, even where a spin recently found its core contested
    (`codegen_cpu/pool_backoff.py`)."""
    pool = ensure_pool()
    pool.set(SET_SOLO_CYCLES, 0)
    pool.set(SET_SOLO_UNTIL, 0)
    pool.set(SET_CONTENDED_UNTIL, 0)


def _start_worker(pool: _Pool, index: int) -> None:
    """Start worker `index` and wait until it has joined, so joined workers are 1..joined."""
    t = threading.Thread(target=pool.worker, args=(index,), name=f"irc-cpu-worker-{index}", daemon=True)
    t.start()
    deadline = time.monotonic() + 10.0
    while pool.get(SET_JOINED) < index:
        if time.monotonic() > deadline:
            raise RuntimeError(f"irc thread pool: worker {index} did not start")
        time.sleep(0.0001)
    pool.threads.append(t)
    request_slice(t.native_id, _SLICE[0])


def num_threads() -> int:
    """Threads parallel loops use now (1 before any compiled function loaded)."""
    return 1 if _POOL is None else int(_POOL.get(SET_WANT))


def tune(min_work: int | None = None, spin_cycles: int | None = None, contended_hold: int | None = None,
         contended_cycles: int | None = None, wake_work: int | None = None, placement: bool | None = None,
         rescue: bool | None = None, give_way: bool | None = None, slice_ns: int | None = None) -> None:
    """Advanced: the work estimate below which a loop stays on the calling thread, and the one
    from which sleeping workers are always woken (below, once per `spin_cycles`); how long
    (cycle-counter ticks) an idle worker spins before it sleeps; how long one round of a spin
    may take before the core counts as contested (the spinner was descheduled) and the
    spinner sleeps, and for how long after that idle workers sleep right after each job
    (`codegen_cpu/pool_backoff.py`); whether workers leave their caller's
    core, are pulled onto it when it would sleep for their blocks (`pool_placement.py`), and
    sleep early when another thread holds the job's last block (`give_way`, `thread_pool.py`);
    the time slice workers ask of the scheduler (`worker_slice.py`; 0: its default)."""
    pool = ensure_pool()
    if slice_ns is not None:
        _SLICE[0] = int(slice_ns)
        for t in pool.threads:
            request_slice(t.native_id, _SLICE[0])
    for which, value in ((SET_MIN_WORK, min_work), (SET_SPIN_CYCLES, spin_cycles),
                         (SET_CONTENDED_HOLD, contended_hold), (SET_CONTENDED_CYCLES, contended_cycles),
                         (SET_WAKE_WORK, wake_work), (SET_PLACEMENT, placement), (SET_RESCUE, rescue),
                         (SET_GIVE_WAY, give_way)):
        if value is not None:
            pool.set(which, int(value))
    if placement is False:
        _unplace_workers(pool)


def _unplace_workers(pool: _Pool) -> None:
    """Give every worker whose mask the pool set (the published cores less one) all of
    them again; a mask set by anyone else stays."""
    for t in pool.threads:
        try:
            mask = os.sched_getaffinity(t.native_id)
            if mask < pool.cores and len(pool.cores - mask) == 1:
                os.sched_setaffinity(t.native_id, pool.cores)
        except (AttributeError, OSError):
            pass


def stats(reset: bool = False) -> dict[str, int]:
    """What the pool did since the process started (or the last reset): `dispatches` (loops
    handed to the pool), `blocks` (their blocks) and `helped` (those workers ran), `wakes`
    (wake-ups of sleeping workers), `caller_sleeps` (dispatches whose caller slept waiting for
    a worker still in a block: a sign of a machine that does not give the process its cores),
    `solo` (loops run on the caller alone after such a sleep took longer than the caller's own
    blocks), `moves` (workers that left their caller's core) and `pulls` (workers pulled onto
    the caller's core while it slept for their block); in cycle-counter ticks, `slept_cycles`
    (callers asleep waiting for blocks), `waited_cycles` (callers waiting, spinning or asleep,
    their own blocks done) and `own_cycles` (callers running their own blocks)."""
    pool = ensure_pool()
    out = {name: int(pool.get(len(SETTABLE) + k)) for k, name in enumerate(STATS)}
    if reset:
        for k in range(len(STATS)):
            pool.set(len(SETTABLE) + k, 0)
    return out
