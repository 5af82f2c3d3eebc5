"""The mathlib's loop kernels for its tests, each built and compiled once per process:
test_mathlib.py and test_mathlib_bessel.py run the same kernels (the special values and NaN
payloads go through every function, the Bessel file's checks through its own), and the
no-libcall check reads the same modules' text."""
from __future__ import annotations

from typing import Callable

import numpy as np

from irc.codegen_cpu.mathlib_jit import build_kernel_module, compile_kernel_text
from irc.codegen_llvm.mathlib import ARITY, MATH_EMITTERS

_TEXTS: dict = {}
_KERNELS: dict = {}


def kernel_text(name: str, dtype, lanes: int | None = None) -> str:
    """The LLVM IR of `name`'s loop kernel (`build_kernel_module`): scalar, or `lanes` wide."""
    key = (name, np.dtype(dtype), lanes)
    if key not in _TEXTS:
        _TEXTS[key] = str(build_kernel_module(MATH_EMITTERS[name], dtype, ARITY[name], lanes))
    return _TEXTS[key]


def kernel(name: str, dtype, lanes: int | None = None) -> Callable[..., np.ndarray]:
    """`name`'s kernel compiled (`compile_kernel`'s callable)."""
    key = (name, np.dtype(dtype), lanes)
    if key not in _KERNELS:
        _KERNELS[key] = compile_kernel_text(kernel_text(name, dtype, lanes), dtype, ARITY[name], lanes)[0]
    return _KERNELS[key]
