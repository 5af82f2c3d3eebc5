"""The kernel-level compile cache: each kernel's object code under `<compiledir>/kernel/`,
keyed by the kernel's loop IR and inputs (`codegen_cpu/kernel_split.py`), shared by every
function and program that launches the same kernel.

A function's own entry (`cpu/`, keyed by its whole loop IR) holds its object code after a
line naming every kernel it links with, and a kernel's entry its object code after a line
naming the kernels it calls (`kernel_split.encode_linked`):

    irc-kernels <key> <key> ...\\n<object file>

so a warm start reads the function's entry and its kernels' entries and runs no compiler.
Kernel entries are `ObjectCache` entries like the others (verified before LLVM loads them,
written atomically, a read-only or full disk only costs a recompile); a missing or damaged
one sends the function back through the compiler, which rebuilds only what is missing.
"""
from __future__ import annotations

from .object_cache import ObjectCache


class KernelCache:
    """Lookups of one compile, remembered: a damaged entry warns once, not at every retry."""

    def __init__(self, folder: str | None, enabled: bool = True) -> None:
        self.cache = ObjectCache(folder, kind="kernel")
        self.enabled = enabled
        self.seen: dict[str, bytes | None] = {}

    def load(self, key: str) -> bytes | None:
        if not self.enabled:
            return None
        if key not in self.seen:
            self.seen[key] = self.cache.load(key)
        return self.seen[key]

    def store(self, key: str, obj: bytes) -> None:
        self.seen[key] = obj
        if self.enabled:
            self.cache.store(key, obj)
