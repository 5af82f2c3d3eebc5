"""Optimized code built in a forked process while the user's program runs (`config.compile_tiers`):
a cache miss first runs tier-0 code (`target.tier0_object`), and this process's child compiles
the same modules at the normal level and stores them in the compile cache; the parent asks,
between calls, whether the child is done (`poll`, non-blocking) and then loads the optimized
objects from the cache.

The child is forked while this thread holds llvmlite's lock (as `compile_processes.py` forks),
runs only LLVM calls and cache writes, may fork helpers of its own (`compile_all`), reports one
byte on a pipe (`OK`) when everything is stored and leaves with `os._exit`. A child that dies,
fails or falls silent for `CHILD_TIMEOUT_S` is a failure the caller survives (it compiles what
the cache lacks itself). At interpreter exit, children still compiling are waited for (at most
`EXIT_WAIT_S`, then killed) and reaped: the cache they were writing is complete for the next
process, and no child outlives a parent that exits normally or is left a zombie (a parent
killed by a signal leaves its child to finish the cache, reaped by init). A process forked from the
parent (by the user) does not own the parent's children: it neither reads their pipes nor
waits for them.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import select
import time
import warnings
from typing import Callable

from .compile_processes import CHILD_TIMEOUT_S, can_fork, fork_child

OK = b"k"
EXIT_WAIT_S = 60.0


class BackgroundCompile:
    """One forked child compiling a function's modules into the cache."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd
        self.owner = os.getpid()
        self.deadline = time.monotonic() + CHILD_TIMEOUT_S
        self.result: bool | None = None  # None while it runs

    def poll(self, timeout: float | None = 0.0) -> bool | None:
        """True: the child stored everything; False: it failed (died, was killed, fell silent
        past its deadline, or belongs to another process); None: still running after
        `timeout` seconds (None: wait until it ends)."""
        if self.result is not None:
            return self.result
        if os.getpid() != self.owner:
            self.result = False
            return False
        left = self.deadline - time.monotonic()
        wait = max(0.0, left if timeout is None else min(timeout, left))
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            if time.monotonic() < self.deadline:
                return None
            self.stop()
            return False
        data = os.read(self.fd, 1)
        self._end(data == OK)
        return self.result

    def stop(self) -> None:
        """Kill the child (if it still runs) and reap it: a failure."""
        if self.result is None and os.getpid() == self.owner:
            with contextlib.suppress(OSError):
                os.kill(self.pid, 9)
        self._end(False)

    def _end(self, ok: bool) -> None:
        if self.result is not None:
            return
        self.result = ok
        _LIVE.pop(self.pid, None)
        if os.getpid() != self.owner:
            return
        os.close(self.fd)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


_LIVE: dict[int, BackgroundCompile] = {}


def start_task(work: Callable[[], None]) -> BackgroundCompile | None:
    """A child running `work()` (LLVM calls and cache writes only) and reporting `OK` when it
    returns; None when no process can be made."""
    if not can_fork():
        return None

    def run(write_fd: int) -> None:
        warnings.simplefilter("ignore")  # a cache warning is the parent's to give, on its own lookup
        work()
        os.write(write_fd, OK)

    forked = fork_child(run)
    if forked is None:
        return None
    pid, read_fd = forked
    child = BackgroundCompile(pid, read_fd)
    _LIVE[pid] = child
    return child


def live_children() -> list[int]:
    """The pids of this process's children still compiling (for tests and the exit handler)."""
    return [pid for pid, c in _LIVE.items() if c.owner == os.getpid()]


def wait_all(timeout: float | None = None) -> bool:
    """Wait until every child of this process has ended (at most `timeout` seconds in all);
    whether none is left. The functions they compiled for take their optimized code at their
    next call (benchmarks wait here before timing)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for child in list(_LIVE.values()):
        if child.owner == os.getpid():
            child.poll(None if deadline is None else max(0.0, deadline - time.monotonic()))
    return not live_children()


@atexit.register
def _finish_at_exit() -> None:
    """Let children finish the cache they are writing (at most `EXIT_WAIT_S` in all), then
    kill and reap what is left."""
    deadline = time.monotonic() + EXIT_WAIT_S
    for child in list(_LIVE.values()):
        if child.owner == os.getpid() and child.poll(max(0.0, deadline - time.monotonic())) is None:
            child.stop()


def _forget_in_fork_child() -> None:
    """A process forked by the user: the parent's children are not its own."""
    _LIVE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_fork_child)
