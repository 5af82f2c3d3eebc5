"""What the native code depends on besides the IR and irc's sources, for the warm start's key
(`warm_start.py`): the ABI, the host as LLVM sees it (triple, CPU, features, LLVM), the
optimization level and numpy's array layout.

LLVM's view of the host costs importing llvmlite (~15 ms). The compile cache remembers it
(`<compiledir>/host/`) under a fingerprint read without llvmlite: the processor as the kernel
describes it (the first CPU of /proc/cpuinfo: vendor, family, model, stepping, feature flags),
the machine and system names, and llvmlite's native library (path, size, mtime: LLVM's
version). Where that fingerprint cannot be read (no /proc/cpuinfo, llvmlite not found), the key
asks llvmlite, as a compile does."""
from __future__ import annotations

import functools
import importlib.util
import os

from ..codegen_cpu.speed_level import speed_level
from .native_function import ABI_VERSION, probe_numpy_layout
from .object_cache import ObjectCache, cache_key

# the lines of /proc/cpuinfo that name the processor and its features (x86, then arm64);
# never the clock ("cpu MHz" changes from one read to the next)
CPU_FIELDS = ("vendor_id", "cpu family", "model", "model name", "stepping", "flags",
              "Features", "CPU implementer", "CPU architecture", "CPU variant", "CPU part", "CPU revision")


def codegen_parts() -> list[str]:
    layout = probe_numpy_layout()
    return [ABI_VERSION, host_identity(), f"O{speed_level()}", layout.key() if layout else "flat"]


def host_identity() -> str:
    """`codegen_cpu.target.host_identity()`, from the cache where it remembers it."""
    fingerprint = host_fingerprint()
    cache = ObjectCache(kind="host", extension="txt")
    if fingerprint:
        body = cache.load(fingerprint)
        if body is not None:
            return body.decode("utf-8", "replace")
    from ..codegen_cpu.target import host_identity as llvm_host_identity  # llvmlite
    identity = llvm_host_identity()
    if fingerprint:
        cache.store(fingerprint, identity.encode())
    return identity


@functools.lru_cache(maxsize=None)
def host_fingerprint() -> str:
    """A key of what decides LLVM's view of the host, read without llvmlite; "" when unknown."""
    try:
        text = first_cpu_block()
        spec = importlib.util.find_spec("llvmlite")
    except (OSError, ImportError, ValueError):
        return ""
    cpu = [line for line in text.splitlines() if line.split(":", 1)[0].strip() in CPU_FIELDS]
    if not cpu or spec is None or not spec.origin:
        return ""
    binding = os.path.join(os.path.dirname(spec.origin), "binding")
    try:
        native = sorted(n for n in os.listdir(binding) if n.startswith("libllvmlite"))
        stats = [os.stat(os.path.join(binding, n)) for n in native]
    except OSError:
        return ""
    if not native:
        return ""
    uname = os.uname()
    return cache_key("irc-host-1", uname.sysname, uname.machine, *cpu,
                     *(f"{binding}/{n}:{st.st_size}:{st.st_mtime_ns}" for n, st in zip(native, stats)))


def first_cpu_block() -> str:
    """/proc/cpuinfo up to its first blank line, read in small pieces: the kernel writes the
    file a processor at a time, and on a machine with hundreds of them reading it all is slow."""
    data = b""
    with open("/proc/cpuinfo", "rb") as f:
        while b"\n\n" not in data:
            piece = f.read(4096)
            if not piece:
                break
            data += piece
    return data.split(b"\n\n", 1)[0].decode("ascii", "replace")
