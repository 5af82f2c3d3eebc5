"""A tier-0 function's way to its optimized code (`config.compile_tiers`): the background
child (`codegen_cpu/background_compile.py`) is asked at call entry, at most every
`POLL_INTERVAL_S` and without blocking, whether it is done; once it is, the optimized objects
are loaded (from the cache it wrote, or compiled here for whatever it failed to store) and
bound, and the function takes them before its next call, never in the middle of one.

Thread-safe: one thread takes the switch (the lock, not waited for at call entry), the
others go on with the code they have; the tier-0 engine stays alive (a call of another thread
may still be in it).
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

from ..codegen_cpu.background_compile import BackgroundCompile

POLL_INTERVAL_S = 0.01  # a non-blocking look at the child's pipe costs ~1 µs: not at every call of a 15 µs step


class TierSwitch:
    """`take(block)`: the bound optimized code `bind(optimized())` once the child is done, else None."""

    def __init__(self, child: BackgroundCompile | None, optimized: Callable[[], list[bytes]],
                 bind: Callable[[list[bytes]], Any]) -> None:
        self.child = child
        self.optimized = optimized
        self.bind = bind
        self.started = time.perf_counter()
        self.seconds: float | None = None  # from the tier-0 code's load to the optimized code's
        self._lock = threading.Lock()
        self._next_poll = 0.0
        self._bound: Any = None

    def take(self, block: bool, timeout: float | None = None) -> Any:
        """The optimized code bound (engine, entry point), or None while the child still works
        (`block`: wait for it, at most `timeout` seconds; None: as long as it takes)."""
        if self._bound is not None:
            return self._bound
        child = self.child
        if not block and child is not None and child.result is None and time.monotonic() < self._next_poll:
            return None
        if not self._lock.acquire(blocking=block):
            return None
        try:
            if self._bound is None:
                self._next_poll = time.monotonic() + POLL_INTERVAL_S
                if child is not None and child.poll(timeout if block else 0.0) is None:
                    return None
                self._bound = self.bind(self.optimized())
                self.seconds = time.perf_counter() - self.started
                self.optimized = self.bind = None  # the texts they hold
            return self._bound
        finally:
            self._lock.release()

    def abandon(self) -> None:
        """Stop the child (the function no longer wants its code)."""
        if self.child is not None:
            self.child.stop()
