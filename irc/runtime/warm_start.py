"""The warm start: a function-level cache entry keyed on the tensor module as the frontend
produced it, before any pass, so that a hit skips the Python passes, the lowering and LLVM.

The key hashes the module's text (with locations: they end up in error messages), the mode's
pipeline and its exclusions, every `irc.config` flag, the target, `allow_gc`, irc's sources
(paths, sizes and mtimes of the package's .py files, read once per process) and what the
native code depends on besides (`host_key.codegen_parts`: ABI, host, LLVM, level, numpy's
layout). The entry (`<compiledir>/warm/`, an `ObjectCache` entry: verified, written
atomically, best effort on a read-only or full disk) is JSON: the optimized tensor text, the
native function's fields and the key of its object-cache entry, whose objects a hit loads as a
loop-level hit does. A damaged entry warns once (`CacheWarning`) and the function compiles
as usual; so does a hit whose objects are gone."""
from __future__ import annotations

import functools
import json
import os
import warnings
from pathlib import Path
from typing import Any

from ..base.config import config
from .object_cache import CacheWarning, ObjectCache, cache_key

WARM_FORMAT = "irc-warm-1"
PACKAGE = Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=None)
def sources_fingerprint() -> str:
    """A hash over irc's .py files' paths, sizes and mtimes (cheap: no file is read; ~1 ms,
    two thirds of it the stats)."""
    rows: list[str] = []
    folders = [str(PACKAGE)]
    start = len(str(PACKAGE)) + 1
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                name = entry.name
                if name.endswith(".py"):
                    st = entry.stat()
                    rows.append(f"{entry.path[start:]}:{st.st_size}:{st.st_mtime_ns}")
                elif name != "__pycache__" and entry.is_dir():
                    folders.append(entry.path)
    rows.sort()
    return cache_key(*rows)


def flags_fingerprint() -> str:
    """Every `irc.config` flag's value (any may change what a compile gives)."""
    return repr(sorted(config.flag_values().items()))


def warm_key(tensor_text: str, mode: str, linker: str, excluding: tuple[str, ...], allow_gc: bool,
             target: str, codegen: list[str]) -> str:
    """The entry's key: everything the compiled function depends on (see the module docstring)."""
    return cache_key(WARM_FORMAT, tensor_text, mode, linker, repr(tuple(excluding)), repr(allow_gc), target,
                     flags_fingerprint(), sources_fingerprint(), *codegen)


def load_entry(key: str, cache_dir: str | None = None) -> dict[str, Any] | None:
    """The entry stored under `key`, or None: a miss, or a damaged entry (one `CacheWarning`;
    the caller compiles and stores a good one)."""
    cache = ObjectCache(cache_dir, kind="warm", extension="json")
    body = cache.load(key)  # warns itself about a damaged or unreadable file
    if body is None:
        return None
    try:
        fields = json.loads(body)
        if not isinstance(fields, dict) or fields.get("format") != WARM_FORMAT:
            raise ValueError("not a warm-start entry of this format")
    except ValueError as e:  # a body that checks out but is not ours (another irc wrote it)
        warnings.warn(f"irc: ignoring a damaged compile-cache entry {cache.path(key)}: {e}; "
                      f"recompiling and replacing it", CacheWarning, stacklevel=2)
        return None
    return fields


def store_entry(key: str, fields: dict[str, Any], cache_dir: str | None = None) -> None:
    """Best effort, as every cache entry."""
    body = json.dumps({"format": WARM_FORMAT, **fields}, separators=(",", ":")).encode()
    ObjectCache(cache_dir, kind="warm", extension="json").store(key, body)
