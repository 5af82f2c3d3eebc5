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

from ...codegen_ptx.abi import DeviceView, kernel_params, launch_dims, param_struct, param_values
from ...codegen_ptx.pipeline import compile_kernels, lower_for_gpu
from ...codegen_ptx.target import ptx_cache_key
from ...dialects.gpu import GpuFuncOp
from ...ir.instrumentation import render_ir
from ..errors import ExecutionError
from ..host_plan import HostPlan, View, record_plan
from ..native_executor import execution_error
from ..shapes import ShapeError
from ..object_cache import ObjectCache
from .device_array import ArrayFactory, DeviceArray, to_device
from .driver import Device, device, synchronize_after_launch
from .edges import DeviceFunction, HostOpsLeft, device_function, strip_placement


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
        self.plans: dict[tuple, PreparedPlan] = {}
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
                dtypes = [a.dtype for a in dargs]
                plan = PreparedPlan(record_plan(self.program.host_func, shapes, dtypes),
                                    self.program, self.dev, dtypes)
                self.plans[shapes] = plan
            return self._finish(self._execute(plan, dargs, outs))
        except ShapeError as e:
            raise execution_error(e, args) from None
        except drv.MemoryError as e:
            self.dev.pool.free_held()
            raise MemoryError(f"out of memory on {self.dev.name} in irc function "
                              f"'{self.program.name}': {e}") from None
        except drv.Error as e:
            raise ExecutionError(f"cuda:{self.program.name}", None, [getattr(a, "shape", ()) for a in args],
                                 f"CUDA error: {e}") from None


    # -- one call
    def _execute(self, plan: "PreparedPlan", dargs: list, outs: list | None) -> list:
        bufs = dargs + [make() for make in plan.makers]
        if outs is not None:
            for k, buf in enumerate(outs):
                slot = plan.result_slots[k]
                if buf is not None and slot is not None and _fits(buf, plan.slot_shape(slot), plan.slot_dtype(slot)):
                    bufs[slot] = buf
        stream = self.dev.stream
        for launch in plan.launches:
            values = launch.values
            for pos, slot, byte_offset in launch.pointers:
                values[pos] = int(bufs[slot].gpudata) + byte_offset
            launch.function._launch_kernel(launch.grid, launch.block, launch.struct.pack(*values), 0, stream)
            if self.sync_each:
                self._sync_naming(launch)
        return [plan.result(k, bufs) for k in range(len(plan.results))]

    def _sync_naming(self, launch: "PreparedLaunch") -> None:
        try:
            self.dev.stream.synchronize()
        except drv.Error as e:
            raise ExecutionError(f"gpu.launch @{launch.name}", launch.location, [],
                                 f"CUDA error in kernel '{launch.name}': {e}") from None

    def _finish(self, results: list) -> list:
        """Host results copied into pinned buffers; one synchronization when there are any."""
        waited = False
        for k, down in enumerate(self.download):
            if down:
                buf = results[k]
                if not buf.size:
                    results[k] = np.empty(buf.shape, buf.dtype)
                    continue
                host = self.dev.pinned.allocate(buf.shape, buf.dtype)
                drv.memcpy_dtoh_async(host, buf.gpudata, self.dev.stream)
                results[k] = host
                waited = True
        if waited:
            self.dev.stream.synchronize()
        return results


def _fits(buf: Any, shape: tuple, dtype: np.dtype) -> bool:
    return (isinstance(buf, DeviceArray) and buf.shape == shape and buf.dtype == dtype
            and buf.flags.c_contiguous)


@dataclass
class PreparedLaunch:
    """A launch with its parameter bytes laid out: only the buffer addresses change per call."""

    name: str
    location: Any
    function: Any
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    struct: Any
    values: list
    pointers: list[tuple[int, int, int]]   # (parameter position, slot, byte offset)


class PreparedPlan:
    """A `HostPlan` bound to the loaded kernels: array factories for its allocations and
    prepared launches (launches with no work are dropped: CUDA refuses empty grids)."""

    def __init__(self, plan: HostPlan, program: CudaProgram, dev: Device, arg_dtypes: list):
        self.plan = plan
        self.results = plan.results
        self.dtypes = list(arg_dtypes) + [a.dtype for a in plan.allocs]
        self.shapes = [None] * plan.n_args + [a.shape for a in plan.allocs]
        self.makers = [ArrayFactory(a.shape, a.dtype) for a in plan.allocs]
        self.launches = [self._prepare(launch, program, dev) for launch in plan.launches if launch.work > 0]
        self.result_slots = [v.slot if v.slot >= plan.n_args and v.dense and v.shape == self.shapes[v.slot]
                             else None for v in plan.results]

    def slot_shape(self, slot: int) -> tuple:
        return self.shapes[slot]

    def slot_dtype(self, slot: int) -> np.dtype:
        return self.dtypes[slot]

    def _prepare(self, launch: Any, program: CudaProgram, dev: Device) -> PreparedLaunch:
        kernel = program.kernels[launch.kernel]
        params = kernel_params(kernel.op)
        fake = []  # checks the views against what the kernel assumes, at a 256-aligned address
        for a in launch.args:
            if isinstance(a, View):
                itemsize = self.dtypes[a.slot].itemsize
                fake.append(DeviceView(1 << 20, a.offset, a.shape, a.strides, itemsize))
            else:
                fake.append(a)
        values = param_values(kernel.op, fake)
        pointers = [(pos, launch.args[p.arg].slot, launch.args[p.arg].offset * self.dtypes[launch.args[p.arg].slot].itemsize)
                    for pos, p in enumerate(params) if p.kind == "ptr"]
        grid, block = launch_dims(launch.work, dev.sm_count, kernel.items_per_thread)
        return PreparedLaunch(launch.kernel, launch.op.location, kernel.function, (grid, 1, 1), (block, 1, 1),
                              param_struct(kernel.op), values, pointers)

    def result(self, k: int, bufs: list) -> Any:
        view = self.results[k]
        buf = bufs[view.slot]
        if self.result_slots[k] is not None:
            return buf
        if view.dense and view.slot < self.plan.n_args and view.shape == tuple(buf.shape):
            copy = ArrayFactory(view.shape, buf.dtype)()  # an argument returned: never alias it
            if buf.nbytes:
                drv.memcpy_dtod_async(copy.gpudata, buf.gpudata, buf.nbytes, device().stream)
            return copy
        raise NotImplementedError(f"a GPU function returning a strided view ({view}) is not supported yet")


def make_cuda_executor(module: Any, func: Any, config: Any, profiling: bool) -> tuple[Any, Any]:
    """(executor, program) for the cuda target. A function with ops that have no GPU kernel yet
    runs on the cpu instead, with one warning naming them (part 2 adds reductions and products)."""
    dev = device()
    try:
        program = build_program(module, func, dev, config.allow_gc)
    except HostOpsLeft as e:
        return _on_cpu(module, func, config, profiling, e)
    return CudaExecutor(program, dev), program


_cpu_warned: set[str] = set()


def _on_cpu(module: Any, func: Any, config: Any, profiling: bool, why: HostOpsLeft) -> tuple[Any, Any]:
    from ..cpu_target import compile_for_cpu
    from ..targets import TARGETS
    names = sorted({op.op_name for op in why.ops})
    key = ",".join(names)
    if key not in _cpu_warned:
        _cpu_warned.add(key)
        where = ", ".join(f"'{op.op_name}' at {op.location}" for op in why.ops[:3])
        warnings.warn(f"irc: function '{func.sym_name}' runs on the cpu: {why} ({where})",
                      RuntimeWarning, stacklevel=5)
    cpu_module = strip_placement(module)
    executor, native = compile_for_cpu(cpu_module, cpu_module.body.ops[0], config, profiling)
    return HostStorageExecutor(executor), native


class HostStorageExecutor:
    """Runs a cpu executor for a function whose shared values may live on the device: device
    arrays come to the host for the call (their updates then stay on the host)."""

    constants: dict = {}

    def __init__(self, inner: Any):
        self.inner = inner
        self.fresh_results = getattr(inner, "fresh_results", False)
        self.native = getattr(inner, "native", None)

    def run(self, args: Sequence[Any], hook: Any = None, outs: list | None = None) -> list:
        args = [a if isinstance(a, np.ndarray) else np.asarray(a) for a in args]
        if outs is not None:
            outs = [o if isinstance(o, np.ndarray) else None for o in outs]
        return self.inner.run(args, hook, outs) if outs is not None else self.inner.run(args, hook)
