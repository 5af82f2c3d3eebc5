"""The names and numbers through which Python drives the compiled thread pool and its runtime
library (`thread_pool.py`, `libcalls.py`), apart from the modules that build their IR: a warm
start loads the pool from a shared library (`runtime/native_library.py`) without llvmlite."""
from __future__ import annotations

MAX_THREADS = 64
MASK_WORDS = 16  # a cpu_set_t: 1024 cores
PARALLEL_FOR = "irc_rt_parallel_for"
TEMP_ALLOC = "irc_temp_alloc"
TEMP_FREE = "irc_temp_free"
TRUNC_DOUBLE_TO_HALF = "__truncdfhf2"
LIBCALLS = (TRUNC_DOUBLE_TO_HALF, TEMP_ALLOC, TEMP_FREE)
# the pool's knobs and counters, by index for irc_rt_set / irc_rt_get (counters after the knobs)
SETTABLE = ["want", "min_work", "spin_cycles", "joined", "contended_hold", "contended_cycles", "wake_work",
            "solo_until", "solo_cycles", "placement", "rescue", "give_way", "contended_until"]
STATS = ["dispatches", "blocks", "helped", "wakes", "caller_sleeps", "solo", "moves", "pulls", "slept_cycles",
         "waited_cycles", "own_cycles"]
