"""The LLVM optimization level of the host's code, apart from the target machine so that a warm
start's key (`runtime/host_key.py`) reads it without llvmlite."""
from __future__ import annotations

import os

# O2, not O3: O3 doubled the LLVM time of a function with a gemm (its 12×32 tile of sums:
# 0.93 s against 0.48 s) and made no kernel measurably faster (gemm, exp, the LR and MLP
# steps, column sums: CPU time on one thread within 1.5%)
HOST_SPEED_LEVEL = 2
# `IRC_LLVM_SPEED_LEVEL=0..3` replaces it (part of the cache key): the test suite runs its
# numerics tests at O1, a third less LLVM time for the same IR, passes and machine code path
SPEED_LEVEL_VARIABLE = "IRC_LLVM_SPEED_LEVEL"


def speed_level() -> int:
    """O2, or the level `IRC_LLVM_SPEED_LEVEL` names."""
    text = os.environ.get(SPEED_LEVEL_VARIABLE, "")
    if not text:
        return HOST_SPEED_LEVEL
    if text not in ("0", "1", "2", "3"):
        raise ValueError(f"{SPEED_LEVEL_VARIABLE}={text!r}: the LLVM optimization level must be 0, 1, 2 or 3")
    return int(text)
