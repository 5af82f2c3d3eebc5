"""Kernel launches through the CUDA driver API itself (ctypes), on PyCUDA's context and stream.

PyCUDA's launch path costs about 5 µs of host time per launch on the H100 machines (argument
handling in Boost.Python); a compiled function of one small kernel is launch-bound, so irc
loads its PTX and launches its kernels with `cuModuleLoadData` / `cuLaunchKernel` directly.
Each launch keeps its parameter bytes in one buffer: only the buffer addresses are rewritten
per call (8-byte slots patched in place), and every argument of the foreign call is converted
once, when the plan is prepared."""
from __future__ import annotations

import ctypes
from typing import Sequence

_CU = None
CU_LAUNCH_PARAM_BUFFER_POINTER = 1
CU_LAUNCH_PARAM_BUFFER_SIZE = 2
CU_LAUNCH_PARAM_END = 0
CUDA_ERROR_OUT_OF_MEMORY = 2


class CudaError(RuntimeError):
    """A driver call failed: `code` is the CUresult, the message the driver's own words."""

    def __init__(self, what: str, code: int):
        self.code = code
        super().__init__(f"{what}: {error_string(code)} (CUresult {code})")


def driver() -> ctypes.CDLL:
    global _CU
    if _CU is None:
        cu = ctypes.CDLL("libcuda.so.1")
        cu.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
        cu.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]
        cu.cuModuleGetFunction.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p]
        cu.cuModuleUnload.argtypes = [ctypes.c_void_p]
        cu.cuGetErrorString.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        _CU = cu
    return _CU


def error_string(code: int) -> str:
    text = ctypes.c_char_p()
    if driver().cuGetErrorString(code, ctypes.byref(text)) != 0 or not text.value:
        return "unknown CUDA error"
    return text.value.decode()


def check(code: int, what: str) -> None:
    if code != 0:
        raise CudaError(what, code)


class KernelModule:
    """A loaded PTX module and its kernels by name (unloaded with the object)."""

    def __init__(self, ptx: str):
        self.handle = ctypes.c_void_p()
        check(driver().cuModuleLoadData(ctypes.byref(self.handle), ptx.encode() + b"\0"),
              "loading the PTX module")
        self.functions: dict[str, ctypes.c_void_p] = {}

    def function(self, name: str) -> ctypes.c_void_p:
        fn = self.functions.get(name)
        if fn is None:
            fn = ctypes.c_void_p()
            check(driver().cuModuleGetFunction(ctypes.byref(fn), self.handle, name.encode()),
                  f"finding kernel '{name}' in its PTX module")
            self.functions[name] = fn
        return fn

    def __del__(self) -> None:
        cu = _CU
        if cu is not None and self.handle:
            try:
                cu.cuModuleUnload(self.handle)
            except Exception:  # the driver may be gone at interpreter exit
                pass


class Launcher:
    """One launch of a kernel with its parameter buffer: `patch(i, address)` rewrites pointer
    slot i, `__call__()` launches and returns the CUresult."""

    def __init__(self, function: ctypes.c_void_p, grid: int, block: int, params: bytes,
                 pointer_offsets: Sequence[int], stream_handle: int):
        self.buffer = ctypes.create_string_buffer(params, max(len(params), 1))
        self.size = ctypes.c_size_t(len(params))
        self.extra = (ctypes.c_void_p * 5)(CU_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(self.buffer),
                                          CU_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(self.size),
                                          CU_LAUNCH_PARAM_END)
        self.slots = [ctypes.c_uint64.from_buffer(self.buffer, off) for off in pointer_offsets]
        u = ctypes.c_uint
        self.args = (function, u(grid), u(1), u(1), u(block), u(1), u(1), u(0),
                     ctypes.c_void_p(stream_handle), None, self.extra)
        self.launch = driver().cuLaunchKernel
