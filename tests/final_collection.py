"""A test process's last collections, before pytest's own: collected until nothing is
found, then the survivors frozen.

pytest's unraisable-exception check ends each process with five full `gc.collect()`s, so
that an exception raised in a `__del__` of the run's garbage is reported; an xdist worker's
heap then holds the compiled functions and kernels the tests share (~0.5 million objects),
and each of the five scans all of them again (1.4–2.3 s a worker at the end of the full run).
Here the collector runs until a collection finds nothing unreachable (no finalizer ran, so
another would find nothing either; pytest's five are for finalizers that make new garbage),
with pytest's hook still recording, and what is still alive then is frozen (`gc.freeze`):
pytest's five collections then scan only what was made after, and find what it makes."""
from __future__ import annotations

import gc

MOST = 5  # pytest's own count (its `gc_collect_iterations_key` default)


def collect_then_freeze() -> int:
    """Collect until a collection finds nothing (at most `MOST` times), then freeze what is
    left; the number of collections run."""
    for done in range(1, MOST + 1):
        if not gc.collect():
            break
    gc.freeze()
    return done
