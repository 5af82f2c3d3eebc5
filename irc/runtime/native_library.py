"""Compiled code as shared libraries in the compile cache (`<compiledir>/lib/`), so that a warm
start binds a function with `ctypes` alone: importing llvmlite and loading objects into MCJIT
took most of a warm start (~20 ms of a logistic regression's ~40).

A function's library links its object and its kernels' (`-Bsymbolic`: a kernel two libraries
hold binds to its own copy); it leaves the thread pool's symbols (`pool_abi`) to the pool's
library, loaded once per process into the global scope, so that code loaded either way calls
one pool (`threads.py`). The objects are MCJIT's (static relocations, large code model), so the
linker writes text relocations (`-z notext`): the loader patches ~400 addresses per library,
about 0.1 ms.

A library is written by the system linker (`library_link.py`), to a temporary file renamed into
place (two processes linking one entry both write whole files). It ends with a line
proving it whole, as every cache entry does (`object_cache.py`; the ELF loader ignores bytes
after the sections):

    \\nirc-library 1 <key> <pool library key, or -> <body length> <sha256 of the body>\\n

A library that does not check out is one `CacheWarning`, a miss and removed (linked again
after the hit, or by the next store); a linker that is missing or fails, a library the loader
refuses (a system that forbids text relocations, a cache on a noexec mount): a silent miss
(MCJIT loads the objects then)."""
from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import warnings

from .object_cache import BadEntry, CacheWarning, cache_dir, check_body

MAGIC = b"irc-library"
FORMAT_VERSION = 1
NO_POOL = "-"  # the pool's own library depends on none


def library_path(key: str, folder: str | None = None) -> str:
    return os.path.join(cache_dir(folder), "lib", f"{key}.e{FORMAT_VERSION}.so")


def trailer(key: str, pool_key: str, body: bytes) -> bytes:
    digest = hashlib.sha256(body).hexdigest()
    return f"\n{MAGIC.decode()} {FORMAT_VERSION} {key} {pool_key} {len(body)} {digest}\n".encode("ascii")


def checked_pool_key(key: str, data: bytes) -> str:
    """The pool key named by `data`'s trailer when `data` is a whole library of `key`, else `BadEntry`."""
    start = data.rfind(b"\n", 0, len(data) - 1)
    fields = data[start + 1:-1].split(b" ") if data.endswith(b"\n") and start >= 0 else []
    if len(fields) != 6 or fields[0] != MAGIC:
        raise BadEntry("no irc trailer at its end (truncated, or written by another program)")
    version, got_key, pool_key, length, digest = (f.decode("ascii", "replace") for f in fields[1:])
    if version != str(FORMAT_VERSION):
        raise BadEntry(f"library format {version!r}, expected {FORMAT_VERSION}")
    if got_key != key:
        raise BadEntry(f"it holds the library of another key ({got_key[:16]}...)")
    check_body(data[:start], length, digest, "trailer", "library")
    return pool_key


class Library:
    """A loaded library: its symbols' addresses, and the pool library it expects."""

    def __init__(self, handle: ctypes.CDLL, key: str, pool_key: str):
        self.handle, self.key, self.pool_key = handle, key, pool_key

    def address(self, symbol: str) -> int:
        """The address of `symbol` (0 when the library has none)."""
        try:
            return ctypes.cast(self.handle[symbol], ctypes.c_void_p).value or 0
        except AttributeError:
            return 0

    get_function_address = address  # as an MCJIT engine's (the pool's holder is either)


def load_library(key: str, folder: str | None = None, global_scope: bool = False) -> Library | None:
    """The library of `key`, checked and loaded (`global_scope`: its symbols resolve the
    libraries loaded after it: the pool's); None when the cache has none, or one that does not
    check out (one `CacheWarning`) or that the loader refuses (likewise)."""
    path = library_path(key, folder)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        warnings.warn(f"irc: cannot read compile-cache library {path} ({e}); loading the objects instead",
                      CacheWarning, stacklevel=2)
        return None
    try:
        pool_key = checked_pool_key(key, data)
    except BadEntry as e:
        warnings.warn(f"irc: ignoring a damaged compile-cache library {path}: {e}; loading the objects instead "
                      f"and linking it again", CacheWarning, stacklevel=2)
        with contextlib.suppress(OSError):
            os.unlink(path)  # of no use: the next link of it writes a whole one
        return None
    try:
        mode = os.RTLD_NOW | (os.RTLD_GLOBAL if global_scope else os.RTLD_LOCAL)
        return Library(ctypes.CDLL(path, mode=mode), key, pool_key)
    except OSError:  # a whole library the system will not load (text relocations refused, a
        return None  # noexec mount): not damage, nothing to tell; MCJIT loads the objects
