"""The store side of the warm start keyed before the passes (`native_warm.py` is the hit's):
a compiled function's native side as the entry's plain data, and, for tier-0 code, the store
put off to the exit, once the background process has stored the optimized objects."""
from __future__ import annotations

import atexit
import os
import time
from typing import Any, Callable

from ..codegen_cpu.background_compile import EXIT_WAIT_S
from ..ir.instrumentation import render_ir
from .native_function import NativeFunction
from .object_cache import ObjectCache


def native_fields(native: NativeFunction) -> dict[str, Any] | None:
    """`native` as JSON-ready fields (the same for its tier-0 and its optimized code); None
    when it has no object-cache entry."""
    if not native.cache_key:
        return None
    return {"name": native.name, "loop_key": native.cache_key, "loop": native.loop_ir,
            "in_dtypes": [d.str for d in native.in_dtypes], "in_ranks": list(native.in_ranks),
            "in_static": [list(s) for s in native.in_static], "out_dtypes": [d.str for d in native.out_dtypes],
            "shape_steps": [list(s) for s in native.shapes.steps],
            "shape_results": [[list(st), list(slots)] for st, slots in native.shapes.results],
            "shape_slots": native.shapes.num_slots, "value_args": list(native.shapes.value_args),
            "assert_messages": list(native.assert_messages),
            "inplace_results": [[k, v] for k, v in native.inplace_results.items()],
            "row_counts": [list(p) for p in native.row_counts], "checks_ir": located_checks_ir(native)}


def located_checks_ir(native: NativeFunction) -> str:
    """The loop module with locations, when it has checks (a failing one names the user's
    line); "" otherwise. `loop_ir` is printed without them."""
    if not native.assert_ops:
        return ""
    root = native.assert_ops[0]
    while root.parent_op is not None:
        root = root.parent_op
    return render_ir(root, debuginfo=True)


def stored(native: NativeFunction, cache_dir: str | None = None) -> bool:
    """Whether the object cache holds `native`'s entry (a warm entry must not point to a missing one)."""
    return bool(native.cache_key) and os.path.exists(ObjectCache(cache_dir).path(native.cache_key))


_PENDING: list[tuple[NativeFunction, Callable[[], None]]] = []


def after_background(native: NativeFunction, store: Callable[[], None]) -> None:
    """Call `store()` at exit, once the background process optimizing `native`'s tier-0 code
    has stored the optimized objects (or failed): the exit waits for it anyway."""
    if not _PENDING:
        atexit.register(_run_pending)  # after background_compile's handler: runs before it
    _PENDING.append((native, store))


def _run_pending() -> None:
    deadline = time.monotonic() + EXIT_WAIT_S
    for native, store in _PENDING:
        native.wait_background(max(0.0, deadline - time.monotonic()))
        store()
    _PENDING.clear()


if hasattr(os, "register_at_fork"):  # a process the user forks leaves the entries to its parent
    os.register_at_fork(after_in_child=_PENDING.clear)
