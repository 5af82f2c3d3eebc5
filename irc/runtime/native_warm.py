"""A CPU function's native side as plain data and back, for the warm start keyed before the
passes (`warm_start.py`): what `bind_native` reads from the loop IR (dtypes, ranks, static
shapes, the shape program, the checks' messages, in-place and row-count results) is kept as
JSON beside the key of the function's object-cache entry, so that a hit loads the objects as
a loop-level hit does, without the IR. The loop IR travels as text (with locations when it
has checks) and is parsed only when a check fails, so that the error names the op and the
user's line. Loads llvmlite."""
from __future__ import annotations

import atexit
import os
import time
import warnings
from typing import Any, Callable

import numpy as np

from ..base.compile_stages import LOAD, listening, timed
from ..codegen_cpu import target as cpu_target
from ..codegen_cpu.background_compile import EXIT_WAIT_S
from ..dialects import loop as L
from ..ir.instrumentation import render_ir
from ..ir.parser import parse_module
from .kernel_cache import KernelCache
from .native_function import (ABI_VERSION, CompileStats, NativeFunction, cached_objects, load_symbol,
                              probe_numpy_layout)
from .object_cache import CacheWarning, ObjectCache
from .shapes import ShapeProgram


def codegen_parts() -> list[str]:
    """What the native code depends on besides the IR and irc's sources: the ABI, the host
    (triple, CPU, features, LLVM), the optimization level, numpy's array layout."""
    layout = probe_numpy_layout()
    return [ABI_VERSION, cpu_target.host_identity(), f"O{cpu_target.speed_level()}",
            layout.key() if layout else "flat"]


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


def bind_fields(fields: dict[str, Any], cache_dir: str | None = None) -> NativeFunction | None:
    """The `NativeFunction` of `native_fields`' answer, its objects from the cache; None when
    the cache lacks one of them (the caller compiles as usual)."""
    with warnings.catch_warnings():  # a damaged entry: the compile that follows says so, once
        warnings.simplefilter("ignore", CacheWarning)
        objects = cached_objects(ObjectCache(cache_dir).load(fields["loop_key"]), KernelCache(cache_dir))
    if objects is None:
        return None
    layout = probe_numpy_layout()
    stats = CompileStats(cache_hit=True)
    in_ranks = [int(r) for r in fields["in_ranks"]]
    out_dtypes = [np.dtype(d) for d in fields["out_dtypes"]]
    with listening(stats.add_stage):
        t0 = time.perf_counter()
        with timed(LOAD):
            engine, cfunc = load_symbol(objects, "irc." + fields["name"], in_ranks, len(out_dtypes),
                                        layout is not None)
        stats.load_s = time.perf_counter() - t0
    loop_text, checks_text = fields["loop"], fields["checks_ir"]
    shapes = ShapeProgram(tuple(tuple(s) for s in fields["shape_steps"]),
                          tuple((tuple(st), tuple(slots)) for st, slots in fields["shape_results"]),
                          int(fields["shape_slots"]), tuple(fields["value_args"]))
    return NativeFunction(
        name=fields["name"], loop_ir=loop_text, in_dtypes=[np.dtype(d) for d in fields["in_dtypes"]],
        in_ranks=in_ranks, in_static=[tuple(s) for s in fields["in_static"]], out_dtypes=out_dtypes,
        shapes=shapes, assert_messages=list(fields["assert_messages"]), stats=stats,
        checks_source=lambda: checks_of(checks_text), cache_key=fields["loop_key"],
        _engine=engine, _cfunc=cfunc, _by_object=layout is not None,
        inplace_results={int(k): int(v) for k, v in fields["inplace_results"]},
        row_counts=tuple((int(k), int(j)) for k, j in fields["row_counts"]))


def checks_of(loop_text: str) -> list:
    """The checks of a loop-level module's text (`L.CHECKS` in walk order: the runtime's `rc - 1`)."""
    if not loop_text:
        return []
    module = parse_module(loop_text, "<loop IR of a warm start>")
    return [op for op in module.walk() if isinstance(op, L.CHECKS)]


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
