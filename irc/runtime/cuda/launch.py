"""Kernel launches through the CUDA driver API itself (ctypes), on PyCUDA's context and stream.

PyCUDA's launch path costs about 5 µs of host time per launch on the H100 machines (argument
handling in Boost.Python); a compiled function of one small kernel is launch-bound, so irc
loads its PTX and launches its kernels with `cuModuleLoadData` / `cuLaunchKernel` directly.
Each launch keeps its parameter bytes in one buffer: only the buffer addresses are rewritten
per call (8-byte slots patched in place), and every argument of the foreign call is converted
once, when the plan is prepared."""
from __future__ import annotations

import ctypes
from typing import Any, Callable, Sequence

_CU = None
CU_LAUNCH_PARAM_BUFFER_POINTER = 1
CU_LAUNCH_PARAM_BUFFER_SIZE = 2
CU_LAUNCH_PARAM_END = 0
CUDA_ERROR_OUT_OF_MEMORY = 2
CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6


class LaunchAttribute(ctypes.Structure):
    """CUlaunchAttribute: an id and a 64-byte value (only its first int is used here)."""
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_int * 16)]


class LaunchConfig(ctypes.Structure):
    """CUlaunchConfig, what `cuLaunchKernelEx` takes."""
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared_bytes", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.POINTER(LaunchAttribute)),
                ("n_attrs", ctypes.c_uint)]


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
        cu.cuStreamBeginCapture_v2.argtypes = [ctypes.c_void_p, ctypes.c_int]
        cu.cuStreamEndCapture.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        cu.cuGraphInstantiateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                                                   ctypes.c_ulonglong]
        cu.cuGraphDestroy.argtypes = [ctypes.c_void_p]
        cu.cuGraphGetNodes.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        cu.cuGraphGetRootNodes.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        cu.cuGraphExecDestroy.argtypes = [ctypes.c_void_p]
        cu.cuGraphLaunch.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        cu.cuMemcpyDtoDAsync_v2.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        cu.cuMemcpyHtoDAsync_v2.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        cu.cuMemcpyDtoHAsync_v2.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        cu.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
        cu.cuStreamCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
        cu.cuEventCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
        cu.cuEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        cu.cuEventDestroy_v2.argtypes = [ctypes.c_void_p]
        cu.cuStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
        if hasattr(cu, "cuLaunchKernelEx"):  # CUDA 12+
            cu.cuLaunchKernelEx.argtypes = [ctypes.POINTER(LaunchConfig), ctypes.c_void_p, ctypes.c_void_p,
                                            ctypes.c_void_p]
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
    """One launch of a kernel with its parameter buffer: the 8-byte pointer `slots` are
    rewritten per call, `launch(*args)` launches and returns the CUresult. A `dependent`
    launch may start before the kernel before it has finished: only for kernels that wait for
    it themselves (`codegen_ptx/dependent_launch.py`)."""

    def __init__(self, function: ctypes.c_void_p, grid: int, block: int, params: bytes,
                 pointer_offsets: Sequence[int], stream_handle: int, dependent: bool = False):
        self.buffer = ctypes.create_string_buffer(params, max(len(params), 1))
        self.size = ctypes.c_size_t(len(params))
        self.extra = (ctypes.c_void_p * 5)(CU_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(self.buffer),
                                          CU_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(self.size),
                                          CU_LAUNCH_PARAM_END)
        self.slots = [ctypes.c_uint64.from_buffer(self.buffer, off) for off in pointer_offsets]
        cu = driver()
        if dependent and hasattr(cu, "cuLaunchKernelEx"):
            self.attribute = LaunchAttribute(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
            self.attribute.value[0] = 1
            self.config = LaunchConfig((grid, 1, 1), (block, 1, 1), 0, stream_handle,
                                       ctypes.pointer(self.attribute), 1)
            self.args = (ctypes.pointer(self.config), function, None, self.extra)
            self.launch = cu.cuLaunchKernelEx
            self.extended = True
            return
        self.extended = False
        u = ctypes.c_uint
        self.args = (function, u(grid), u(1), u(1), u(block), u(1), u(1), u(0),
                     ctypes.c_void_p(stream_handle), None, self.extra)
        self.launch = cu.cuLaunchKernel

    def launch_on(self, stream_handle: int) -> int:
        """This launch on another stream (a graph's lane: `concurrent_capture`)."""
        if self.extended:
            own = self.config.stream
            self.config.stream = stream_handle
            try:
                return self.launch(*self.args)
            finally:
                self.config.stream = own
        args = list(self.args)
        args[8] = ctypes.c_void_p(stream_handle)
        return self.launch(*args)


class HostToDevice:
    """A `gpu.upload` in launch order: `nbytes` from a host address (slot 0) to a device
    address (slot 1), both patched per call like a kernel's pointers. The host memory is the
    caller's (pageable) array, so this copy is never captured in a CUDA graph."""

    capturable = False
    args = ()

    def __init__(self, nbytes: int, stream_handle: int):
        self.buffer = ctypes.create_string_buffer(16)
        self.slots = [ctypes.c_uint64.from_buffer(self.buffer, 0), ctypes.c_uint64.from_buffer(self.buffer, 8)]
        self.nbytes = ctypes.c_size_t(nbytes)
        self.stream = ctypes.c_void_p(stream_handle)
        self.copy = driver().cuMemcpyHtoDAsync_v2

    def launch(self) -> int:
        return self.copy(self.slots[1].value, self.slots[0].value, self.nbytes, self.stream)


CAPTURE_MODE_RELAXED = 2


def capture_launches(launchers: Sequence[Any], stream_handle: int) -> ctypes.c_void_p:
    """A CUDA graph of `launchers` run in order on the stream (stream capture); a `CudaError`
    (the capture ended, nothing left behind) when a launch or the capture fails."""
    cu = driver()
    stream, graph = ctypes.c_void_p(stream_handle), ctypes.c_void_p()
    check(cu.cuStreamBeginCapture_v2(stream, CAPTURE_MODE_RELAXED), "starting a CUDA graph capture")
    try:
        codes = [launcher.launch(*launcher.args) for launcher in launchers]
    except CudaError as e:  # a library call that failed (its launcher raises)
        codes = [e.code]
    ended = cu.cuStreamEndCapture(stream, ctypes.byref(graph))
    bad = next((c for c in codes if c), 0) or ended
    if bad:
        if graph:
            cu.cuGraphDestroy(graph)
        raise CudaError("capturing launches into a CUDA graph", bad)
    return graph


class GraphCache:
    """CUDA graphs of one plan's launches, one per set of buffer addresses seen `after` times.

    A graph replays its launches exactly as captured, addresses included, so it serves only
    calls whose buffers are the same: a `borrow=True` result or an in-place update reuses its
    buffer every call, and the device pool hands a dropped result's block to the next call, so
    in a loop the addresses recur. A replay is one driver call however many kernels the plan
    has (about half the cost of one launch on the H100 machines); instantiating one costs a
    few hundred µs, hence the wait before capturing and the small set (oldest evicted first).
    The executor replays on the hot path itself: `execs.get(key)`, then
    `launch_graph(exec, stream)`."""

    def __init__(self, stream_handle: int, capacity: int = 8, after: int = 2):
        self.stream = ctypes.c_void_p(stream_handle)
        self.capacity = capacity
        self.after = after
        self.execs: dict[tuple, ctypes.c_void_p] = {}
        self.seen: dict[tuple, int] = {}
        self.broken = False
        self.nodes = 0  # in the last graph captured
        self.roots = 0  # of them, those that wait for nothing (more than one: launches side by side)
        self.launch_graph = driver().cuGraphLaunch

    def wants(self, key: tuple) -> bool:
        """Whether to capture `key`'s launches now (seen often enough)."""
        if self.broken:
            return False
        n = self.seen.get(key, 0) + 1
        if len(self.seen) > 64:
            self.seen.clear()
        self.seen[key] = n
        return n > self.after

    def capture(self, key: tuple, launchers: Sequence["Launcher"],
                build: Callable[[Sequence[Any], int], ctypes.c_void_p] | None = None) -> None:
        """Record `launchers` (already patched for `key`) as a graph, then launch it; `build`
        makes the graph instead of a stream capture (a plan with branches decided on the
        device: `conditional_graph.build_graph`)."""
        cu = driver()
        graph, graph_exec = None, ctypes.c_void_p()
        try:
            graph, bad = (build or capture_launches)(launchers, self.stream.value), 0
        except CudaError as e:
            bad = e.code
        if not bad:
            bad = cu.cuGraphInstantiateWithFlags(ctypes.byref(graph_exec), graph, 0)
        if graph:
            count = ctypes.c_size_t(0)
            if not bad and cu.cuGraphGetNodes(graph, None, ctypes.byref(count)) == 0:
                self.nodes = count.value  # (kernels and library calls' own kernels: debugging)
            if not bad and cu.cuGraphGetRootNodes(graph, None, ctypes.byref(count)) == 0:
                self.roots = count.value
            cu.cuGraphDestroy(graph)
        if bad:  # never again for this plan; run the launches directly this time
            self.broken = True
            for launcher in launchers:
                check(launcher.launch(*launcher.args), "launching a kernel")
            return
        if len(self.execs) >= self.capacity:
            old = next(iter(self.execs))
            cu.cuGraphExecDestroy(self.execs.pop(old))
        self.execs[key] = graph_exec
        check(self.launch_graph(graph_exec, self.stream), "launching a CUDA graph")

    def __del__(self) -> None:
        cu = _CU
        if cu is None:
            return
        for graph_exec in self.execs.values():
            try:
                cu.cuGraphExecDestroy(graph_exec)
            except Exception:  # the driver may be gone at interpreter exit
                pass
