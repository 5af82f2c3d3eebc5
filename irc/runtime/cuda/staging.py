"""The kernel that writes a plan's small host results straight into host memory.

A call that returns small results to the host (the tutorial's predictions and cross-entropy)
would end with one device-to-host copy per result; in a CUDA graph each such memcpy node cost
about 5 µs of GPU time on the H100 machines, twice the work of the logistic-regression step's
kernels. Instead the plan keeps those results in one device block and copies the block with one
kernel into one block of mapped pinned host memory (the GPU writes across the bus itself; the
host reads it after the call's synchronization). The kernel is irc's own: a device loop nest
over 32-bit words, outlined and compiled like every other, once per process and device."""
from __future__ import annotations

import functools

import numpy as np

from ...dialects.builtin import ModuleOp
from ...dialects.func import FuncOp
from ...dialects.gpu import GpuFuncOp
from ...ir.parser import parse_module
from ...ir.pass_manager import PassManager
from .launch import KernelModule
from .ptx_cache import cached_ptx

ALIGN = 16  # bytes: each result's place in the blocks (and the blocks' size) a multiple of this

COPY_WORDS = """
func.func @irc_stage(%src: memref<?xi32, "cuda">, %dst: memref<?xi32, "cuda">) -> memref<?xi32, "cuda"> {
  %c0 = loop.constant {value = 0 : index} : index
  %c1 = loop.constant {value = 1 : index} : index
  %n = loop.dim %src {axis = 0} : (memref<?xi32, "cuda">) -> index
  loop.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = loop.load %src[%i] : memref<?xi32, "cuda">
    loop.store %v, %dst[%i] : memref<?xi32, "cuda">
    loop.yield
  }
  func.return %dst : memref<?xi32, "cuda">
}"""


def copy_module() -> ModuleOp:
    """The word copy as a kernel-level module: host function `@irc_stage(src, dst)`."""
    module = parse_module(COPY_WORDS, "<irc staging copy>")
    PassManager.parse("outline-kernels").run(module)
    return module


@functools.cache
def copy_kernel(arch: str) -> tuple[FuncOp, dict[str, GpuFuncOp], KernelModule, str]:
    """(host function, kernels, loaded module, PTX) of the word copy for `arch`, once."""
    module = copy_module()
    ptx = cached_ptx(module, arch)
    kernels = {op.sym_name: op for op in module.body.ops if isinstance(op, GpuFuncOp)}
    host = next(op for op in module.body.ops if type(op) is FuncOp)
    return host, kernels, KernelModule(ptx), ptx


def aligned(nbytes: int) -> int:
    return -(-nbytes // ALIGN) * ALIGN


def mapped_host_block(nbytes: int) -> tuple[np.ndarray, int]:
    """(numpy uint8 array in pinned host memory, the address kernels write it at)."""
    import pycuda.driver as drv  # (loaded with the CUDA executor; this module's CPU part needs none)
    host = drv.pagelocked_empty((nbytes,), "uint8", mem_flags=drv.host_alloc_flags.DEVICEMAP)
    return host, int(host.base.get_device_pointer())
