"""Linking a compiled function's shared library (`native_library.py`) once its objects are in
the cache: in the background process that optimizes a first compile's code, or beside the
warm-start entry that a compile stores (`frontend/warm_compile.py`). The thread pool's library
is linked first where the cache lacks it. Loads llvmlite (the pool's key)."""
from __future__ import annotations

import os
import threading

from .kernel_cache import KernelCache
from .native_function import cached_objects
from .native_library import NO_POOL, library_path, link_library
from .object_cache import ObjectCache
from .pool_jit import pool_key
from .threads import pool_object


def link_function(objects: list[bytes], key: str, folder: str | None = None, pool_obj: bytes | None = None) -> bool:
    """The library of the function cached under `key` (its object, then its kernels'), and the
    pool's where missing (from `pool_obj`, else this process's or the cache's); whether both
    are in the cache."""
    pool = pool_key()
    if not os.path.exists(library_path(pool)):
        obj = pool_obj or pool_object()
        if obj is None or not link_library([obj], pool, NO_POOL):
            return False
    return os.path.exists(library_path(key, folder)) or link_library(objects, key, pool, folder)


def link_cached(key: str, folder: str | None = None) -> bool:
    """`link_function` with the objects the cache holds for `key` (False where it lacks one)."""
    if os.path.exists(library_path(key, folder)) and os.path.exists(library_path(pool_key())):
        return True
    objects = cached_objects(ObjectCache(folder).load(key), KernelCache(folder))
    return objects is not None and link_function(objects, key, folder)


def link_later(key: str, folder: str | None = None) -> threading.Thread:
    """`link_cached` in a thread (the process waits for it at exit): the linker takes ~30 ms
    that the first call need not wait for."""
    thread = threading.Thread(target=link_cached, args=(key, folder), name="irc-link", daemon=False)
    thread.start()
    return thread
