"""The executor `irc.function` uses on a GPU: one PTX module of kernels, a host plan per
input-shape signature, launches on the process's stream.

A plan is recorded per signature of input shapes, and per value of the integer inputs whose
values the host side computes with (`loop.host_value`: the index of a `givens` minibatch
slice, so the slice is a view whose offset the plan holds).

Per call, the host does only what the data needs: upload host inputs, take result buffers from
the device pool (or reuse a borrowed / in-place one), write their addresses into the launches'
prepared parameter buffers and launch (`launch.py`), then copy host results into pinned
buffers handed out as numpy arrays (recycled by the pool when the user drops them) and
synchronize once. Results on the device return at once: the work is queued, not finished
(`r.sync()`, or `config.gpu_sync`/`CUDA_LAUNCH_BLOCKING=1` to wait after every launch).

A function with data checks (an index array read on the device: `loop.check_flag`) reads their
flags back after the launches (one synchronization per call) and fails with an IndexError
naming the op and the user's line when one is set; the kernels clamp bad indices, so nothing
reads out of bounds, and such a function writes no update in place (the shared variables keep
their last good values when it fails).

A CUDA error never kills the process: it becomes an `ExecutionError` (or `MemoryError` for an
out-of-memory) naming the kernel, the op and the user's line; the pool's held blocks are
released so that a later call with smaller inputs runs."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pycuda.driver as drv

from ...codegen_ptx import dependent_launch
from ...codegen_ptx.abi import DeviceView, kernel_params, launch_dims, param_layout, param_struct, param_values
from ...codegen_ptx.kernel_effects import written_arguments
from ...codegen_ptx.pipeline import lower_for_gpu
from ...dialects import loop as L
from ...dialects.func import FuncOp
from ...dialects.gpu import GemmOp, GpuFuncOp
from ...ir.instrumentation import render_ir
from ...passes.device_edges import Edges
from ..blas_layout import BlasLayoutError, gemm_args
from ..errors import ExecutionError, describe_location
from ..host_plan import (Branch, GemmCall, HostPlan, Upload, View, failed_check, host_value_args, reads_flags,
                         record_plan, record_plan_branches_first, run_readbacks)
from ..native import inplace_results
from ..native_executor import execution_error
from ..shapes import ShapeError
from .device_array import ArrayFactory, DeviceArray, empty, to_device
from .driver import OpenGpu, device, synchronize_after_launch
from .cublas import GemmLauncher, handle as cublas_handle
from .concurrent_capture import Access, capture_concurrent
from .conditional_graph import PreparedBranch, build_graph
from .launch import CUDA_ERROR_OUT_OF_MEMORY, CudaError, GraphCache, HostToDevice, KernelModule, Launcher
from .ptx_cache import cached_ptx
from .staging import aligned, copy_kernel, mapped_host_block
from .steady import SteadyRun
from .timing import CudaTiming


@dataclass
class CudaProgram:
    """The compiled function for the GPU (`f.maker.native` on the cuda target)."""

    name: str
    loop_ir: str                  # the kernel-level module (the "gpu" stage)
    ptx: str
    edges: Edges
    host_func: FuncOp
    kernels: dict[str, GpuFuncOp]
    module: KernelModule
    inplace_results: dict[int, int] = field(default_factory=dict)
    timing: Any = None            # the profiler's CudaTiming, when profiled
    _written: dict[str, frozenset[int]] = field(default_factory=dict)

    @functools.cached_property
    def dependent(self) -> bool:
        """Whether its kernels wait for the kernel before them (`dependent_launch`): read once."""
        return dependent_launch.has_wait(self.ptx)

    def written(self, kernel: str) -> frozenset[int]:
        """The arguments kernel `kernel` may write (`kernel_effects`), found once per kernel."""
        found = self._written.get(kernel)
        if found is None:
            found = self._written[kernel] = written_arguments(self.kernels[kernel])
        return found


def build_program(placed: Any, edges: Edges, func: Any, dev: OpenGpu, allow_gc: bool) -> CudaProgram:
    gpu_module = lower_for_gpu(placed, allow_gc=allow_gc)
    ptx = cached_ptx(gpu_module, dev.arch)
    kernels = {op.sym_name: op for op in gpu_module.body.ops if isinstance(op, GpuFuncOp)}
    host = next(op for op in gpu_module.body.ops if type(op) is FuncOp)
    # set up once, when compiling, not in a first call: cuBLAS (its products may sit in a
    # branch on sizes) and the staging copy of small host results
    if any(isinstance(op, GemmOp) for op in host.walk()):
        cublas_handle(dev.stream.handle, dev.pool)
    if any(edges.download):
        copy_kernel(dev.arch)
    # a call that can fail after its kernels ran writes no update in place, so the shared
    # variables keep their last good values when it does: data checks, and flags read back
    # (a path taken mid-call allocates its later buffers then: an out-of-memory comes late)
    checked = any(isinstance(op, L.CheckFlagOp) for op in host.body.ops) or reads_flags(host)
    inplace = {} if checked else {k: arg for k, arg in inplace_results(host).items() if not edges.download[k]}
    return CudaProgram(func.sym_name, render_ir(gpu_module), ptx, edges, host, kernels,
                       KernelModule(ptx), inplace)


STAGED_DOWNLOAD_MAX = 64 << 10  # bytes: a host result up to this size is copied by the plan itself


@dataclass
class PreparedLaunch:
    """A launch with its parameter bytes laid out: only the buffer addresses change per call."""

    name: str
    location: Any
    launcher: Launcher
    patches: list[tuple[Any, int, int]]   # (8-byte parameter slot, buffer slot, byte offset)
    writes: Sequence[bool] | None = None  # per patch, whether the launch writes there (None: unknown)


class PreparedPlan:
    """A `HostPlan` bound to the loaded kernels: array factories for its allocations and
    prepared launches (launches with no work are dropped: CUDA refuses empty grids)."""

    def __init__(self, plan: HostPlan, program: CudaProgram, dev: OpenGpu, arg_dtypes: list,
                 downloads: Sequence[int] = (), host_flag: Any = None):
        self.source = plan
        self.n_args = plan.n_args
        self.results = plan.results
        self.checks = plan.checks
        self.dtypes = list(arg_dtypes) + [a.dtype for a in plan.allocs]
        self.shapes = [None] * plan.n_args + [a.shape for a in plan.allocs]
        self.factories = [ArrayFactory(a.shape, a.dtype) for a in plan.allocs]
        self.makers = [f.take for f in self.factories]
        self.owned: dict[int, DeviceArray] = {}  # allocation → the buffer the plan keeps for it
        self.host_flag = host_flag
        # kernels start before the last one ends (they wait on the device), except inside the
        # child graphs of conditional nodes
        self.dependent = program.dependent and not any(isinstance(x, Branch) for x in plan.launches)
        self.launches = [self._prepare(launch, program, dev) for launch in plan.launches if launch.work > 0]
        # a graph of a plan with branches holds conditional nodes (`conditional_graph`)
        self.build = build_graph if any(isinstance(x, PreparedBranch) for x in self.launches) else None
        self.readbacks = plan.readbacks
        self.chunk_graphs: dict[int, GraphCache] = {}  # by the first launch between two flags read
        self.kept = [0]  # plan launch index -> prepared launches before it (empty ones dropped)
        for launch in plan.launches:
            self.kept.append(self.kept[-1] + (launch.work > 0))
        self.graphs = GraphCache(dev.stream.handle)
        self.result_slots: list[int | None] = []
        for v in plan.results:  # a result that owns its buffer is handed out as it is
            owns = v.slot >= plan.n_args and v.dense and v.shape == self.shapes[v.slot]
            self.result_slots.append(v.slot if owns and v.slot not in self.result_slots else None)
        self.direct = None not in self.result_slots
        # (result k, allocation i): where a buffer handed back for result k may serve
        self.reusable = [(k, slot - plan.n_args) for k, slot in enumerate(self.result_slots) if slot is not None]
        self.alloc_shapes = [a.shape for a in plan.allocs]
        self.alloc_dtypes = [a.dtype for a in plan.allocs]
        self.staged = self._stage_downloads(downloads, dev) if downloads else None

    def _stage_downloads(self, downloads: Sequence[int], dev: OpenGpu) -> list[tuple[int, np.ndarray]] | None:
        """Small host results written to the host by the plan itself (`staging.py`): the
        kernels computing them store them straight into one block of mapped pinned memory,
        or, where other launches read them too, the plan keeps them in one device block of its
        own copied there by one kernel. Either way no memcpy node (about 5 µs of GPU time
        each on an H100) and a call's buffers stay the same: a training step that returns its
        cost is one graph launch and one synchronization. The caller gets a copy of its part of
        the host block. None where a result is large (the copy out would cost more than a
        pinned buffer handed out: `CudaExecutor._download`), empty, or not a buffer of its own."""
        if not self.direct:
            return None
        slots = [self.result_slots[k] for k in downloads]
        if len(set(slots)) < len(slots):
            return None
        sizes = [self.dtypes[slot].itemsize * int(np.prod(self.shapes[slot])) for slot in slots]
        if not all(0 < n <= STAGED_DOWNLOAD_MAX for n in sizes):
            return None
        offsets = [sum(aligned(n) for n in sizes[:i]) for i in range(len(sizes))]
        total = offsets[-1] + aligned(sizes[-1])
        host, host_address = mapped_host_block(total)
        # results that only the launch computing them touches are computed into the host
        # block itself (the kernel's stores cross the bus); otherwise a device block is copied
        touched = [sum(1 for launch in self.launches for _, s, _ in launch.patches if s == slot)
                   for slot in slots]
        block = host if all(n == 1 for n in touched) else dev.pool.allocate(total)
        base = host_address if block is host else int(block)
        self.stage_blocks = (block, host)  # (held for the plan's life)
        staged = []
        for k, slot, nbytes, offset in zip(downloads, slots, sizes, offsets):
            alloc = slot - self.n_args
            shape, dtype = self.alloc_shapes[alloc], self.alloc_dtypes[alloc]
            owned = DeviceArray(shape, dtype, gpudata=base + offset, base=block)
            self.makers[alloc] = lambda owned=owned: owned
            self.owned[alloc] = owned
            staged.append((k, host[offset:offset + nbytes].view(dtype).reshape(shape)))
        if block is not host:
            self.launches.append(self._staging_copy(base, host_address, total, dev))
        self.reusable = [(k, i) for k, i in self.reusable if i not in self.owned]
        return staged

    @staticmethod
    def _staging_copy(source: int, dest: int, nbytes: int, dev: OpenGpu) -> PreparedLaunch:
        """The launch of the word-copy kernel from `source` to `dest` (fixed addresses)."""
        host, kernels, module, ptx = copy_kernel(dev.arch)
        program = CudaProgram("irc_stage", "", ptx, None, host, kernels, module)
        words = (nbytes // 4,)
        plan = PreparedPlan(record_plan(host, [words, words], [np.dtype("int32")] * 2), program, dev,
                            [np.dtype("int32")] * 2)
        (copy,) = plan.launches
        for slot_ref, slot, byte_offset in copy.patches:
            slot_ref.value = (source, dest)[slot] + byte_offset
        return PreparedLaunch("HostFromGpu (the results' staging copy)", None, copy.launcher, [])

    def _prepare(self, launch: Any, program: CudaProgram, dev: OpenGpu) -> PreparedLaunch:
        if isinstance(launch, GemmCall):
            return self._prepare_gemm(launch, dev)
        if isinstance(launch, Branch):  # decided on the device in a graph, else read back
            flag = (launch.flag.slot, launch.flag.offset * self.dtypes[launch.flag.slot].itemsize)
            then, otherwise = ([self._prepare(x, program, dev) for x in body if x.work > 0]
                               for body in (launch.then, launch.otherwise))
            return PreparedBranch(launch.op.location, flag, then, otherwise, self.host_flag, dev.stream.handle)
        if isinstance(launch, Upload):  # a host argument a branch reads, copied when it runs
            copy = HostToDevice(launch.work * self.dtypes[launch.dst.slot].itemsize, dev.stream.handle)
            patches = [(slot_ref, v.slot, v.offset * self.dtypes[v.slot].itemsize)
                       for slot_ref, v in zip(copy.slots, (launch.src, launch.dst))]
            return PreparedLaunch(f"GpuFromHost(input {launch.src.slot})", launch.op.location, copy, patches)
        kernel = program.kernels[launch.kernel]
        params = kernel_params(kernel)
        views = []  # checked against what the kernel assumes, at a 256-aligned stand-in address
        for a in launch.args:
            if isinstance(a, View):
                views.append(DeviceView(1 << 20, a.offset, a.shape, a.strides, self.dtypes[a.slot].itemsize))
            else:
                views.append(a)
        packed = param_struct(kernel).pack(*param_values(kernel, views))
        offsets = param_layout(params)[1]
        grid, block = launch_dims(launch.work, dev.sm_count, kernel.items_per_thread)
        pointer_params = [(offsets[i], launch.args[p.arg]) for i, p in enumerate(params) if p.kind == "ptr"]
        launcher = Launcher(program.module.function(launch.kernel), grid, block, packed,
                            [off for off, _ in pointer_params], dev.stream.handle, self.dependent)
        patches = [(slot_ref, view.slot, view.offset * self.dtypes[view.slot].itemsize)
                   for slot_ref, (_, view) in zip(launcher.slots, pointer_params)]
        written = program.written(launch.kernel)
        writes = [p.arg in written for p in params if p.kind == "ptr"]
        return PreparedLaunch(launch.kernel, launch.op.location, launcher, patches, writes)

    def _prepare_gemm(self, call: GemmCall, dev: OpenGpu) -> PreparedLaunch:
        """A cuBLAS call: its column-major arguments from the views' strides, its three
        matrix addresses patched per call like a kernel's pointers."""
        where = describe_location(call.op.location)
        what = f"the cuBLAS gemm of 'gpu.gemm' ({call.name})" + (f" built at {where}" if where else "")
        try:
            args = gemm_args(call.a, call.b, call.c)
        except BlasLayoutError as e:
            raise ExecutionError("gpu.gemm", call.op.location, [], str(e)) from None
        dtype = self.dtypes[call.c.slot]
        copy = call.c_in is not None and call.beta != 0.0
        nbytes = call.work * dtype.itemsize if copy else 0
        launcher = GemmLauncher(args, call.alpha, call.beta, dtype, what, dev.stream.handle, dev.pool, nbytes,
                                call.tf32)
        views = (args.first, args.second, args.c) + ((call.c_in,) if copy else ())
        patches = [(slot_ref, v.slot, v.offset * self.dtypes[v.slot].itemsize)
                   for slot_ref, v in zip(launcher.slots, views)]
        writes = [False, False, True, False][:len(patches)]  # (A, B, C, the accumulator copied into C)
        return PreparedLaunch(call.name, call.op.location, launcher, patches, writes)

    def result(self, k: int, bufs: list) -> Any:
        view = self.results[k]
        buf = bufs[view.slot]
        if self.result_slots[k] is not None:
            return buf
        if view.dense and view.shape == tuple(buf.shape):
            copy = empty(view.shape, buf.dtype)  # an argument, or a result twice: a copy
            if buf.nbytes:
                drv.memcpy_dtod_async(copy.gpudata, buf.gpudata, buf.nbytes, device().stream)
            return copy
        raise NotImplementedError(f"a GPU function returning a strided view ({view}) is not supported yet")


class CudaExecutor:
    """`run(args, outs=None) -> results`: see the module doc."""

    constants: dict = {}
    fresh_results = True

    def __init__(self, program: CudaProgram, dev: OpenGpu):
        self.program = program
        self.timing: CudaTiming | None = None  # profiling: see `profile`
        self.native = program
        self.dev = dev
        self.upload = program.edges.upload
        self.any_upload = any(self.upload)
        # host arguments only `ifelse` branches read: kept on the host, uploaded by the branch
        self.in_branch = program.edges.in_branch or [False] * len(self.upload)
        self.any_in_branch = any(self.in_branch)
        self.download = [k for k, down in enumerate(program.edges.download) if down]
        self.plans: dict[tuple, PreparedPlan] = {}  # by input shapes (and `value_args`' values)
        self.value_args = host_value_args(program.host_func)
        self.sync_each = synchronize_after_launch()
        self.one_by_one = self.sync_each  # no graphs
        # data checks (`loop.check_flag`) are read back after every call: no replay without it
        self.has_checks = any(isinstance(op, L.CheckFlagOp) for op in program.host_func.body.ops)
        # a host loop reading flags back (`until`) launches what the data chose: no replay
        self.reads_flags = reads_flags(program.host_func)
        self.flag = drv.pagelocked_empty(1, np.uint8) if self.reads_flags else None  # (pinned: copied into)
        # (a function with host results replays when its plan copies them itself: `staged`)
        # (a plan that reads flags back never replays; one with branches decided on the device does)
        self.can_replay = not (self.any_upload or self.one_by_one or self.has_checks or self.any_in_branch)

    def profile(self, timing: CudaTiming) -> None:
        """Run every launch and transfer between `timing`'s CUDA events: one by one, since a
        graph replay would time only the whole."""
        self.timing = timing
        self.one_by_one = True
        self.can_replay = False

    def run(self, args: Sequence[Any], hook: Any = None, outs: list | None = None) -> list:
        try:
            return self._run(args, outs)
        except ShapeError as e:
            raise execution_error(e, args) from None
        except (drv.MemoryError, CudaError) as e:
            if not (isinstance(e, drv.MemoryError) or e.code == CUDA_ERROR_OUT_OF_MEMORY):
                raise
            reason = str(e)
        for plan in self.plans.values():
            for factory in plan.factories:
                factory.release()
        self.dev.pool.free_held()  # the failed call's buffers are back in the pool by now
        raise MemoryError(f"out of memory on {self.dev.name} in irc function '{self.program.name}' "
                          f"(input shapes {[getattr(a, 'shape', ()) for a in args]}): {reason}")

    def _run(self, args: Sequence[Any], outs: list | None) -> list:
        # (an argument kept on the host — a shared variable made while device was cpu — is
        # uploaded like an input)
        dargs = self._device_args(args) if self.any_upload or self.any_in_branch or not all(
            [type(a) is DeviceArray for a in args]) else args
        shapes = tuple([a.shape for a in dargs])
        values = None
        if self.value_args:  # a plan per value of these host inputs (`loop.host_value`)
            values = {k: int(np.asarray(args[k])) for k in self.value_args}
            shapes += tuple(values.values())
        plan = self.plans.get(shapes)
        if plan is None:
            plan = self._plan(shapes, dargs, values)
        if self.timing is not None:
            made = sum(f.made for f in plan.factories)
        if outs is None:
            bufs = list(dargs)
            bufs += [make() for make in plan.makers]
        else:
            bufs = self._buffers_with(plan, dargs, outs)
        if self.timing is not None:
            self.timing.note_call_memory(self.dev.pool, sum(f.made for f in plan.factories) - made)
        if plan.readbacks or self.any_in_branch:
            plan, bufs = self._run_readbacks(plan, bufs, shapes, dargs, values)
        else:
            self._launch_plan(plan, bufs)
        if plan.checks:
            self._read_checks(plan, bufs)
        if plan.direct:
            results = [bufs[slot] for slot in plan.result_slots]
        else:
            results = [plan.result(k, bufs) for k in range(len(plan.results))]
        if plan.staged is not None:
            self.dev.stream.synchronize()
            for k, host in plan.staged:
                results[k] = host.copy()
            return results
        return self._download(results) if self.download else results

    def _launch_plan(self, plan: PreparedPlan, bufs: list) -> None:
        """The plan's launches: one graph replay where one was captured for these buffers."""
        addresses = tuple([b.address for b in bufs])
        self._launch_through(None if self.one_by_one else plan.graphs, addresses, plan.launches, addresses,
                             plan.build, bufs)

    def _launch_through(self, graphs: GraphCache | None, key: tuple, launches: list, addresses: Sequence[int],
                        build: Any = None, bufs: Sequence[Any] = ()) -> None:
        """`launches` for buffers at `addresses`: a replay of their graph for `key` (one driver
        call for all of them) where one was captured, a capture once `key` has recurred, else
        one launch at a time (`graphs` None: never a graph). A graph without branches has the
        launches' real dependencies, found from what they read and write in `bufs`
        (`concurrent_capture`)."""
        graph = graphs.execs.get(key) if graphs is not None else None
        if graph is not None:
            code = graphs.launch_graph(graph, graphs.stream)
            if code:
                raise CudaError("launching a CUDA graph", code)
            return
        for launch in launches:
            for slot_ref, slot, byte_offset in launch.patches:
                slot_ref.value = addresses[slot] + byte_offset
        if graphs is not None and graphs.wants(key):
            if build is None and bufs:
                build = functools.partial(capture_concurrent, accesses=_accesses(launches, bufs))
            graphs.capture(key, [launch.launcher for launch in launches], build)
            return
        for launch in launches:
            self._launch(launch)

    def _launch(self, launch: PreparedLaunch | PreparedBranch) -> None:
        if isinstance(launch, PreparedBranch):  # the condition read back, then one branch
            for inner in launch.taken():
                self._launch(inner)
            return
        launcher = launch.launcher
        if self.timing is None:
            code = launcher.launch(*launcher.args)
        else:
            code = self.timing.timed(launch.name, lambda: launcher.launch(*launcher.args))
        if code or self.sync_each:
            self._check(launch, code)

    def _run_readbacks(self, plan: PreparedPlan, bufs: list, key: tuple, dargs: list,
                       values: dict[int, int] | None) -> tuple[PreparedPlan, list]:
        """A call whose host loop reads flags back (a scan's `until`): launches up to each
        flag, one small copy and one synchronization, then on along the path the flag chose
        (`host_plan.run_readbacks`; each path's plan is recorded once and kept). The launches
        between two flags (a step's) become a CUDA graph of their own once their buffers have
        recurred, as a whole plan's do, so a step costs one replay and one readback."""
        prepared = {id(plan.source): plan}
        bufs = list(bufs)
        flag = self.flag

        def replan(stops: tuple[int, ...]) -> Any:
            found = self.plans.get(key + (stops,))
            if found is None:
                found = self._plan(key + (stops,), dargs, values, stops)
            prepared[id(found.source)] = found
            return found.source

        def run(source: Any, lo: int, hi: int) -> None:
            p = prepared[id(source)]
            launches = p.launches[p.kept[lo]:p.kept[hi]]
            if not launches:
                return
            # (a host argument a branch uploads is the caller's array: its address, and a
            # stretch holding its copy is never a graph)
            addresses = [b.address if type(b) is DeviceArray else b.ctypes.data for b in bufs]
            key = tuple([a for a, b in zip(addresses, bufs) if type(b) is DeviceArray])
            graphs = None
            if not self.one_by_one and all(getattr(x.launcher, "capturable", True) for x in launches):
                graphs = p.chunk_graphs.get(lo) or p.chunk_graphs.setdefault(lo, GraphCache(self.dev.stream.handle))
            self._launch_through(graphs, key, launches, addresses, bufs=bufs)

        def read(view: View) -> bool:
            drv.memcpy_dtoh_async(flag, bufs[view.slot].address + view.offset, self.dev.stream)
            self.dev.stream.synchronize()
            return bool(flag[0])

        def switch(source: Any, done: int) -> None:
            p = prepared[id(source)]
            del bufs[p.n_args + done:]
            bufs.extend(make() for make in p.makers[done:])

        final = run_readbacks(plan.source, replan, run, read, switch)
        return prepared[id(final)], bufs

    def replayer(self, args: Sequence[Any], outs: list | None = None) -> SteadyRun | bool | None:
        """A `SteadyRun` repeating this call (same argument arrays, same reused `outs`), once
        its CUDA graph exists (None: not yet); False where no call can be repeated (uploads,
        downloads, results that are copies, synchronizing launches, graphs that failed)."""
        plan = self.plans.get(tuple([a.shape for a in args]))
        if not self.can_replay or plan is not None and (not plan.direct or plan.graphs.broken or plan.readbacks
                                                        or self.download and plan.staged is None):
            return False
        if not all([type(a) is DeviceArray for a in args]):  # uploaded every call
            return False
        if plan is None or not plan.graphs.execs:
            return None
        if outs is None:
            fixed = list(args) + [None] * len(plan.makers)
        else:
            fixed = self._buffers_with(plan, args, outs, fresh=False)
        for i, buf in plan.owned.items():
            fixed[len(args) + i] = buf
        # a temporary nobody sees outside the call: the buffer its factory hands out again
        # every call, held from now on (no per-call check; its factory keeps it anyway)
        results = set(plan.result_slots)
        for i, make in enumerate(plan.makers):
            slot = len(args) + i
            if fixed[slot] is None and slot not in results:
                fixed[slot] = make()
        return SteadyRun(plan, fixed, [None] * len(args) + plan.makers)

    def _device_args(self, args: Sequence[Any]) -> list[Any]:
        timing = self.timing
        out = list(args)
        for k, (a, up, lazy) in enumerate(zip(args, self.upload, self.in_branch)):
            if lazy:  # copied by the branch that reads it (`gpu.upload`): a dense host array
                out[k] = np.ascontiguousarray(a.get() if type(a) is DeviceArray else a)
            elif up or isinstance(a, np.ndarray):
                out[k] = to_device(a) if timing is None else \
                    timing.timed_on_host(timing.upload_key(k), lambda a=a: to_device(a))
        return out

    def _plan(self, key: tuple, dargs: list, values: dict[int, int] | None = None,
              stops: tuple[int, ...] = ()) -> PreparedPlan:
        dtypes = [a.dtype for a in dargs]
        shapes = [a.shape for a in dargs]
        staged = () if self.one_by_one or self.reads_flags else self.download
        host = self.program.host_func
        recorded = record_plan(host, shapes, dtypes, values, stops) if stops else \
            record_plan_branches_first(host, shapes, dtypes, values)
        plan = PreparedPlan(recorded, self.program, self.dev, dtypes, staged, self.flag)
        self.plans[key] = plan
        return plan

    @staticmethod
    def _buffers_with(plan: PreparedPlan, dargs: list, outs: list, fresh: bool = True) -> list:
        """The call's buffers, with the borrowed and in-place result buffers `outs` (last call's
        results) used where they fit; the others new (None with `fresh=False`)."""
        reused: list = [None] * len(plan.makers)
        for k, i in plan.reusable:
            buf = outs[k]
            if type(buf) is DeviceArray and buf.shape == plan.alloc_shapes[i] and buf.dtype == plan.alloc_dtypes[i]:
                reused[i] = buf
        if fresh:
            reused = [make() if buf is None else buf for buf, make in zip(reused, plan.makers)]
        return list(dargs) + reused

    def _check(self, launch: PreparedLaunch, code: int) -> None:
        """A failed launch (or, with gpu_sync, a failed kernel) as an error naming the kernel."""
        if code == CUDA_ERROR_OUT_OF_MEMORY:
            raise CudaError(f"launching kernel '{launch.name}'", code)
        try:
            if code:
                raise CudaError(f"launching kernel '{launch.name}'", code)
            self.dev.stream.synchronize()
        except (CudaError, drv.Error) as e:
            raise ExecutionError(f"gpu.launch @{launch.name}", launch.location, [], f"CUDA error: {e}") from None

    def _read_checks(self, plan: PreparedPlan, bufs: list) -> None:
        """The data checks' flags, read once the call's kernels are done (one synchronization):
        a set one fails the call with its op's message (an IndexError naming the user's line)."""
        self.dev.stream.synchronize()
        flag = np.zeros(1, np.int32)
        for check in plan.checks:
            view = check.flag
            drv.memcpy_dtoh(flag, int(bufs[view.slot].gpudata) + view.offset * 4)
            if flag[0]:
                raise failed_check(check)

    def _download(self, results: list) -> list:
        """Host results copied into pinned buffers; one synchronization."""
        stream = self.dev.stream
        for k in self.download:
            buf = results[k]
            if buf.size:
                host = self.dev.pinned.allocate(buf.shape, buf.dtype)
                if self.timing is None:
                    drv.memcpy_dtoh_async(host, buf.gpudata, stream)
                else:
                    self.timing.timed(self.timing.downloads[k],
                                      lambda: drv.memcpy_dtoh_async(host, buf.gpudata, stream))
                results[k] = host
            else:
                results[k] = np.empty(buf.shape, buf.dtype)
        stream.synchronize()
        return results


def _accesses(launches: Sequence[PreparedLaunch], bufs: Sequence[Any]) -> list[list[Access] | None]:
    """What each launch touches: its buffers' byte ranges and whether it writes them (None
    where unknown: a barrier)."""
    extents = [_extent(b) for b in bufs]
    out: list[list[Access] | None] = []
    for launch in launches:
        writes = getattr(launch, "writes", None)
        if writes is None:
            out.append(None)
            continue
        out.append([(*extents[slot], w) for (_, slot, _), w in zip(launch.patches, writes)])
    return out


def _extent(buf: Any) -> tuple[int, int]:
    """The bytes a buffer's elements span: [first, end)."""
    if type(buf) is DeviceArray:
        address, strides = buf.address, buf.strides
    else:  # a host array (a branch's upload source)
        address, strides = buf.ctypes.data, buf.strides
    if buf.size == 0:
        return address, address
    low = sum((n - 1) * s for n, s in zip(buf.shape, strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(buf.shape, strides) if s > 0)
    return address + low, address + high + buf.dtype.itemsize


def make_cuda_executor(placed: Any, edges: Edges, func: Any, config: Any,
                       profiling: bool = False) -> tuple[Any, Any]:
    """(executor, program) for a function whose edge transfers were taken (`device_module`);
    with `profiling`, the program carries the profiler's timing source (`program.timing`)."""
    dev = device()
    program = build_program(placed, edges, func, dev, config.allow_gc)
    executor = CudaExecutor(program, dev)
    if profiling:
        uploads = [k for k, up in enumerate(edges.upload) if up or edges.in_branch and edges.in_branch[k]]
        placed_func = next(op for op in placed.body.ops if type(op) is FuncOp)
        program.timing = CudaTiming(placed_func, program.host_func, uploads, executor.download, dev.stream)
        executor.profile(program.timing)
    return executor, program
