"""The executor `irc.function` uses on a GPU: one compiled module of kernels, a host plan per
input-shape signature, launches on the process's stream.

Per call, the host does only what the data needs: upload host inputs, take result buffers from
the device pool (or reuse a borrowed / in-place one), pack each launch's parameters into bytes
and launch (`_launch_kernel`: no per-call argument inspection), then copy host results into
pinned buffers handed out as numpy arrays (recycled by the pool when the user drops them) and
synchronize once. Results on the device return at once: the work is queued, not finished
(`r.sync()`, or `config.gpu_sync`/`CUDA_LAUNCH_BLOCKING=1` to wait after every launch).

A CUDA error never kills the process: it becomes an `ExecutionError` (or `MemoryError` for an
out-of-memory) naming the kernel, the op and the user's line; the pool's held blocks are
released so that a later call with smaller inputs runs."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pycuda.driver as drv

from ...codegen_ptx.abi import DeviceView, launch_dims
from ...codegen_ptx.pipeline import compile_kernels, lower_for_gpu
from ...codegen_ptx.target import ptx_cache_key
from ...dialects.gpu import GpuFuncOp
from ...ir.instrumentation import render_ir
from ..errors import ExecutionError
from ..host_plan import HostPlan, record_plan
from ..object_cache import ObjectCache
from .device_array import ArrayFactory, DeviceArray, to_device
from .driver import Device, device, synchronize_after_launch
from .edges import DeviceFunction, HostOpsLeft, device_function


@dataclass
class Kernel:
    op: GpuFuncOp
    function: Any                 # pycuda Function
    items_per_thread: int


@dataclass
class CudaProgram:
    """The compiled function for the GPU (`f.maker.native` on the cuda target)."""

    name: str
    loop_ir: str                  # the kernel-level module ("gpu" stage)
    ptx: str
    edges: DeviceFunction
    host_func: Any
    kernels: dict[str, Kernel]
    inplace_results: dict[int, int] = field(default_factory=dict)


def _ptx_for(module: Any, arch: str) -> str:
    """PTX of the kernels of `module`, from the disk cache when it holds it."""
    text = render_ir(module)
    cache = ObjectCache("ptx", ".ptx")
    key = ptx_cache_key(text, arch)
    hit = cache.load(key)
    if hit is not None:
        return hit.decode()
    ptx = compile_kernels(module, arch)
    cache.store(key, ptx.encode())
    return ptx


def build_program(module: Any, func: Any, dev: Device, allow_gc: bool) -> CudaProgram:
    edges = device_function(module, "cuda")
    gpu_module = lower_for_gpu(edges.module, allow_gc=allow_gc)
    ptx = _ptx_for(gpu_module, dev.arch)
    loaded = dev.drv.module_from_buffer(ptx.encode())
    kernels = {}
    host = None
    for op in gpu_module.body.ops:
        if isinstance(op, GpuFuncOp):
            kernels[op.sym_name] = Kernel(op, loaded.get_function(op.sym_name), op.items_per_thread)
        elif getattr(op, "op_name", "") == "func.func":
            host = op
    program = CudaProgram(func.sym_name, render_ir(gpu_module), ptx, edges, host, kernels)
    program.module = loaded  # keeps the CUmodule alive with the program
    return program


class CudaExecutor:
    """`run(args, outs=None) -> results`: see the module doc."""

    constants: dict = {}
    fresh_results = True

    def __init__(self, program: CudaProgram, dev: Device):
        self.program = program
        self.native = program
        self.dev = dev
        self.upload = program.edges.upload
        self.download = program.edges.download
        self.plans: dict[tuple, HostPlan] = {}
        self.sync_each = synchronize_after_launch()

    def _device_args(self, args: Sequence[Any]) -> list[Any]:
        out = []
        for a, up in zip(args, self.upload):
            if up or isinstance(a, np.ndarray):
                a = to_device(a)
            out.append(a)
        return out

    def run(self, args: Sequence[Any], hook: Any = None, outs: list | None = None) -> list:
        try:
            dargs = self._device_args(args)
            shapes = tuple(a.shape for a in dargs)
            plan = self.plans.get(shapes)
            if plan is None:
                plan = self.plans[shapes] = record_plan(self.program.host_func, shapes,
                                                        [a.dtype for a in dargs])
            results = self._execute(plan, dargs, outs)
            return self._finish(results)
        except drv.MemoryError as e:
            self.dev.pool.free_held()
            raise MemoryError(f"out of memory on {self.dev.name} in irc function "
                              f"'{self.program.name}': {e}") from None
        except drv.Error as e:
            raise ExecutionError(f"cuda:{self.program.name}", None, [getattr(a, "shape", ()) for a in args],
                                 f"CUDA error: {e}") from None
