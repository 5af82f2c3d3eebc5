"""A CPU function's native side as plain data and back, for the warm start keyed before the
passes (`warm_start.py`): what `bind_native` reads from the loop IR (dtypes, ranks, static
shapes, the shape program, the checks' messages, in-place and row-count results) is kept as
JSON beside the key of the function's object-cache entry, so that a hit binds the function
without the IR: from its shared library (`native_library.py`: no llvmlite), else from the
objects loaded into MCJIT as a loop-level hit loads them. The loop IR travels as text (with
locations when it has checks) and is parsed only when a check fails, so that the error names
the op and the user's line."""
from __future__ import annotations

import os
import time
import warnings
from typing import Any

import numpy as np

from ..base.config import config
from ..base.compile_stages import LOAD, LOAD_LIBRARY, listening, timed
from ..codegen_cpu.array_layout import numpy_symbol_of
from ..dialects import loop as L
from ..ir.parser import parse_module
from .kernel_cache import KernelCache
from .native_function import CompileStats, NativeFunction, cached_objects, entry_point, probe_numpy_layout
from .native_library import library_path, load_library
from .object_cache import CacheWarning, ObjectCache
from .shapes import ShapeProgram
from .threads import configure, library_pool


def bind_fields(fields: dict[str, Any], cache_dir: str | None = None) -> NativeFunction | None:
    """The `NativeFunction` of `native_fields`' answer: its shared library loaded with ctypes
    (`native_library.py`), else its objects from the cache loaded into MCJIT; None when the
    cache lacks one of them (the caller compiles as usual)."""
    layout = probe_numpy_layout()
    stats = CompileStats(cache_hit=True)
    in_ranks = [int(r) for r in fields["in_ranks"]]
    out_dtypes = [np.dtype(d) for d in fields["out_dtypes"]]
    symbol = "irc." + fields["name"]
    t0 = time.perf_counter()
    bound = from_library(fields["loop_key"], symbol, in_ranks, len(out_dtypes), layout is not None, cache_dir)
    if bound is not None:
        stats.load_s = time.perf_counter() - t0
        stats.add_stage(LOAD_LIBRARY, stats.load_s)
    else:  # (the look for a library, and reading the objects, count in the warm-start row)
        with warnings.catch_warnings():  # a damaged entry: the compile that follows says so, once
            warnings.simplefilter("ignore", CacheWarning)
            objects = cached_objects(ObjectCache(cache_dir).load(fields["loop_key"]), KernelCache(cache_dir))
        if objects is None:
            return None
        from .native_jit import load_symbol  # llvmlite
        t1 = time.perf_counter()
        with listening(stats.add_stage), timed(LOAD):
            bound = load_symbol(objects, symbol, in_ranks, len(out_dtypes), layout is not None)
        stats.load_s = time.perf_counter() - t1
        link_again(fields["loop_key"], cache_dir)
    engine, cfunc = bound
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


def from_library(key: str, symbol: str, in_ranks: list[int], n_results: int, by_object: bool,
                 cache_dir: str | None = None) -> tuple | None:
    """(library, entry point) of the function's shared library, or None: no library, one that
    does not check out (warned), or a process whose pool is not that library's (it came from
    MCJIT first): the objects go to MCJIT then, so that every parallel loop uses one pool."""
    path = library_path(key, cache_dir)
    if not os.path.exists(path):
        return None
    pool = pool_key_of(path)
    if pool is not None and not library_pool(pool):
        return None
    library = load_library(key, cache_dir)  # checks the whole file (warns when it does not check out)
    if library is None:
        return None
    configure()
    address = library.address(numpy_symbol_of(symbol) if by_object else symbol)
    if not address:
        return None
    return library, entry_point(address, in_ranks, n_results, by_object)


def pool_key_of(path: str) -> str | None:
    """The pool key that the trailer of the library at `path` names (None: no trailer)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - 512))
            tail = f.read()
    except OSError:
        return None
    fields = tail[tail.rfind(b"\n", 0, len(tail) - 1) + 1:].split(b" ")
    return fields[3].decode("ascii", "replace") if len(fields) == 6 else None


def link_again(key: str, cache_dir: str | None) -> None:
    """After a hit that loaded objects into MCJIT for want of a library (gone, or damaged and
    removed), or for want of the pool's library that it names, link them for the next process
    (`config.compile_tiers` only, as at a store)."""
    path = library_path(key, cache_dir)
    pool = pool_key_of(path) if os.path.exists(path) else None
    if config.compile_tiers and (pool is None or not os.path.exists(library_path(pool))):
        from .library_link import link_later  # llvmlite
        link_later(key, cache_dir)


def checks_of(loop_text: str) -> list:
    """The checks of a loop-level module's text (`L.CHECKS` in walk order: the runtime's `rc - 1`)."""
    if not loop_text:
        return []
    module = parse_module(loop_text, "<loop IR of a warm start>")
    return [op for op in module.walk() if isinstance(op, L.CHECKS)]
