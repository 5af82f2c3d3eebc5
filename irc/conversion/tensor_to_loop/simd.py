"""The SIMD registers that the product kernels size their register tiles by: bytes per vector
register and how many there are. The host's are read from /proc/cpuinfo's flags (this level
knows nothing of LLVM); `lower-to-loops{simd=64x32}` names others, so that a test or a dump
does not depend on the machine it runs on."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path



@dataclass(frozen=True)
class SimdRegisters:
    bytes: int   # per vector register
    count: int   # vector registers the kernels may use

    def __str__(self) -> str:
        return f"{self.bytes}x{self.count}"


AVX512 = SimdRegisters(64, 32)
AVX2 = SimdRegisters(32, 16)
SSE = SimdRegisters(16, 16)


def parse_simd(spec: str) -> SimdRegisters:
    """`"64x32"` (bytes x count), `""` for the host's; a ValueError naming the spec otherwise."""
    if not spec:
        return host_simd()
    m = spec.split("x")
    if len(m) != 2 or not all(p.isdigit() and int(p) > 0 for p in m):
        raise ValueError(f"simd option '{spec}': expected BYTESxCOUNT, e.g. 64x32 (AVX-512) or 32x16 (AVX2)")
    return SimdRegisters(int(m[0]), int(m[1]))


@functools.lru_cache(maxsize=None)
def host_simd() -> SimdRegisters:
    """AVX-512 (32 registers of 64 bytes), AVX/AVX2 (16 of 32) or SSE (16 of 16), from the
    first `flags` line of /proc/cpuinfo; SSE where it cannot be read."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return SSE
    flags = next((ln.split(":", 1)[1].split() for ln in lines if ln.startswith("flags")), [])
    if "avx512f" in flags:
        return AVX512
    if "avx" in flags:
        return AVX2
    return SSE
