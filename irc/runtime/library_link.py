"""Linking a compiled function's shared library (`native_library.py`) once its objects are in
the cache, with the system linker (`ld`, else `cc`/`gcc`; none: no library, MCJIT serves): in
the background process that optimizes a first compile's code, or beside the warm-start entry
that a compile stores (`frontend/warm_compile.py`). The thread pool's library is linked first
where the cache lacks it. Loads llvmlite (the pool's key)."""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
import threading

from .kernel_cache import KernelCache
from .native_function import cached_objects
from .native_library import NO_POOL, library_path, trailer
from .object_cache import ObjectCache
from .pool_jit import pool_key
from .threads import pool_object

LINK_TIMEOUT_S = 60.0


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
    """`link_cached` in a thread (the process waits for it at exit): the linker takes 12–20 ms
    (and as much again for the pool's library, once per cache) that the first call need not
    wait for."""
    thread = threading.Thread(target=link_cached, args=(key, folder), name="irc-link", daemon=False)
    thread.start()
    return thread


@functools.lru_cache(maxsize=None)
def find_linker() -> tuple[str, ...] | None:
    """The command that links objects into a shared library (objects and `-o` follow), or None."""
    ld = shutil.which("ld")
    if ld:
        return (ld, "-shared", "-z", "notext", "-Bsymbolic")
    for name in ("cc", "gcc"):
        cc = shutil.which(name)
        if cc:
            return (cc, "-shared", "-nostdlib", "-Wl,-z,notext", "-Wl,-Bsymbolic")
    return None


def link_library(objects: list[bytes], key: str, pool_key: str, folder: str | None = None) -> bool:
    """Link `objects` into the library of `key` (whose pool symbols the library of `pool_key`
    defines, or `NO_POOL`); whether it is in the cache now. Best effort: no linker, a failed
    link, a read-only or full disk only leave the next warm start on MCJIT."""
    linker = find_linker()
    if linker is None:
        return False
    path = library_path(key, folder)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with tempfile.TemporaryDirectory(dir=os.path.dirname(path), prefix=".link-") as work:
            names = []
            for k, obj in enumerate(objects):
                names.append(os.path.join(work, f"{k}.o"))
                with open(names[-1], "wb") as f:
                    f.write(obj)
            out = os.path.join(work, "out.so")
            done = subprocess.run([*linker, "-o", out, *names], capture_output=True, timeout=LINK_TIMEOUT_S,
                                  check=False)
            if done.returncode != 0:
                return False
            with open(out, "rb") as f:
                body = f.read()
            with open(out, "ab") as f:
                f.write(trailer(key, pool_key, body))
            os.replace(out, path)
        return True
    except (OSError, subprocess.SubprocessError):
        return False
