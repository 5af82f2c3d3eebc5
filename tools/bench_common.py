"""What every benchmark under tools/ times and prints the same way: `median_us` (the timing
rule) and `Table` (the report), so figures from different tables compare."""
from __future__ import annotations

import statistics
import time
from typing import Callable

from irc.codegen_cpu.background_compile import wait_all


WARMUP_S = 0.02  # see `median_us`


def median_us(fn: Callable[[], object], repeat: int, inner: int,
              sync: Callable[[], object] | None = None, warmup: int = 3) -> float:
    """Median over `repeat` samples of the mean time of `inner` back-to-back calls, in µs,
    after at least `warmup` calls and WARMUP_S seconds of calls. `sync` (a device's
    synchronize) ends every sample and the warm-up, so asynchronous work is counted until it
    is done.

    The warm-up is timed, not counted, because a thread pool woken after `settle()` (irc's and
    OpenBLAS's alike) starts on its caller's core and takes milliseconds to be spread again:
    measured right after waking, 2-thread gemm read 5–12% slow, whichever library came first.

    irc's functions compiled on a cache miss run tier-0 code until their optimized code is
    built (`irc.config.compile_tiers`): the background compiles are waited for first, and the
    warm-up's first call of each function takes its optimized code."""
    wait_all()
    start = time.perf_counter()
    done = 0
    while done < warmup or time.perf_counter() - start < WARMUP_S:
        fn()
        done += 1
    if sync is not None:
        sync()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        if sync is not None:
            sync()
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples) * 1e6


SETTLE_S = 0.25  # OpenBLAS's idle threads spin ~2^28 cycles (~0.1 s) after a call


def settle(seconds: float = SETTLE_S) -> None:
    """Sleep until the thread pools of libraries measured just before (numpy's OpenBLAS, torch,
    jax) have stopped spinning: a spinning pool thread holds a core that the next library's
    threads need, and on 2 cores halved irc's 2-thread gemm right after a numpy call (median
    1456 µs against 789 µs). Call it between one library's measurement and another's."""
    time.sleep(seconds)


class Table:
    """Rows of (case, µs per call, notes); a case that could not run has no time."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, str]] = []

    def add(self, name: str, us: float | None, note: str = "") -> float | None:
        self.rows.append((name, float("nan") if us is None else us, note))
        return us

    def ratio(self, name: str, mine: float | None, base: float | None, what: str) -> None:
        """A row comparing two rows of this run (mine / base: below 1 is faster); none when
        either is missing."""
        if mine and base:
            self.rows.append((name, float("nan"), f"{mine / base:.2f}x {what}"))

    def print(self) -> None:
        width = max(len(r[0]) for r in self.rows)
        print(f"{'case'.ljust(width)}  {'µs/call':>10}  notes")
        for name, us, note in self.rows:
            num = "" if us != us else f"{us:10.2f}"
            print(f"{name.ljust(width)}  {num:>10}  {note}")
