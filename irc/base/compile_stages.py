"""The compile stages below the pass manager (lowering to loops, LLVM IR, LLVM's optimizer,
machine code, loading), timed where they run and reported to whoever listens: a compiled
function's profile (`profile=True`, through `CompileStats.stages`) and `irc-opt --timing` show
the same rows, so a user's own function splits the same way from Python and from the command
line. Nothing is timed while nobody listens. Listeners are process-wide: two threads compiling
at once would see each other's rows."""
from __future__ import annotations

from contextlib import contextmanager
from time import perf_counter
from typing import Callable, Iterator

LOWER = "lower-to-loops"
LLVM_IR = "LLVM IR (convert-to-llvm)"
LLVM_OPT = "LLVM optimization"
MACHINE_CODE = "machine code"
LOAD = "load (MCJIT)"
# a warm start's function from its shared library (`runtime/native_library.py`)
LOAD_LIBRARY = "load (shared library)"
# waiting for the forked processes that compile kernels beside this one (`compile_processes.py`)
LLVM_CHILDREN = "LLVM (waiting for other processes)"
# a first compile's quick code (`config.compile_tiers`): parsing and FastISel, no optimization
LLVM_TIER0 = "LLVM tier 0 (no passes, FastISel)"

_LISTENERS: list[Callable[[str, float], None]] = []


@contextmanager
def timed(stage: str) -> Iterator[None]:
    """Report the wall time of the block as `stage` to every listener."""
    if not _LISTENERS:
        yield
        return
    t0 = perf_counter()
    try:
        yield
    finally:
        seconds = perf_counter() - t0
        for listen in list(_LISTENERS):
            listen(stage, seconds)


@contextmanager
def listening(callback: Callable[[str, float], None]) -> Iterator[None]:
    """Call `callback(stage, seconds)` for every stage timed inside the block."""
    _LISTENERS.append(callback)
    try:
        yield
    finally:
        _LISTENERS.remove(callback)
