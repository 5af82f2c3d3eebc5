"""Users' GPU ops in the CUDA executor: the `DeviceBackend` that runs a function with GPU user
ops as device parts with each op's thunk between them (`runtime/device_parts.py`).

    outs = run_device_user_op(op, arrays)

`arrays` follow the op's operands: `DeviceArray`s for device operands, numpy arrays for its
`host_operands`. The op's thunk (Theano's `make_thunk` protocol, `frontend/user_gpu_op.py`,
reached through the `tensor.custom` registry) runs after irc's stream is drained and is
waited for before this returns, so a kernel the user launches on PyCUDA's default stream is
ordered with irc's own launches. Its outputs become `DeviceArray`s (a plain GPUArray is
wrapped; a strided one is refused), the form the next part's plan reads. A profiled call times the
op with CUDA events on irc's stream around it. PyCUDA is loaded with this module."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pycuda.driver as drv

from ...base.device import CUDA
from ...dialects.tensor_custom import user_op_impl
from ...ir.core import Operation
from ...passes.device_edges import device_module
from ..device_parts import DeviceBackend, part_function
from ..profile_timing import TimedUserOp
from .device_array import DeviceArray, empty, to_device
from .driver import device
from .executor import make_cuda_executor


def run_device_user_op(op: Operation, arrays: list) -> list:
    """The results of the GPU user op `op` on `arrays` (see the module docstring)."""
    impl = user_op_impl(op)
    run = getattr(impl, "run_on_device", None)
    if run is None:
        raise ValueError(f"{op.attributes['op'].value} has no device implementation (make_thunk) "
                         f"but was placed on the device")
    return [dense_device_array(a) for a in run(op, arrays, device().context.synchronize)]


def dense_device_array(a: Any) -> DeviceArray:
    """`a` (a C-contiguous GPUArray) as irc's `DeviceArray`: itself, or a view of its memory.
    A strided one is refused (the next part's plan reads its inputs dense): the thunk copies."""
    if not a.flags.c_contiguous:
        raise ValueError(f"an output is a strided device array (shape {a.shape}, strides {a.strides}): "
                         f"irc's device values are C-contiguous; copy it into cuda.empty(shape, dtype) "
                         f"in the thunk")
    if type(a) is DeviceArray:
        return a
    return DeviceArray(a.shape, a.dtype, base=a, gpudata=a.gpudata)


def copy_device_array(a: Any) -> DeviceArray:
    """A new dense device array equal to the dense `a`, queued on irc's stream."""
    out = empty(a.shape, a.dtype)
    if a.nbytes:
        drv.memcpy_dtod_async(out.gpudata, a.gpudata, a.nbytes, device().stream)
    return out


def event_clock(stream: Any) -> Callable[[Callable[[], Any]], tuple[Any, Callable[[], float]]]:
    """`clock(work) -> (result, seconds)`: `work` between two CUDA events on `stream`, the
    seconds read later (when the profile is summed)."""
    def clock(work: Callable[[], Any]) -> tuple[Any, Callable[[], float]]:
        start, end = drv.Event(), drv.Event()
        start.record(stream)
        out = work()
        end.record(stream)

        def seconds() -> float:
            end.synchronize()
            return start.time_till(end) / 1e3
        return out, seconds
    return clock


def cuda_backend(config: Any) -> DeviceBackend:
    """Device parts compiled by the CUDA executor, user ops run by `run_device_user_op`."""
    gpu = device()

    def compile_part(module: Any, profiling: bool) -> tuple[Any, Any]:
        placed, edges = device_module(module, CUDA)  # HostOpsLeft: the function runs on the host
        return make_cuda_executor(placed, edges, part_function(placed), config, profiling)

    def timing(func: Any, op: Operation) -> TimedUserOp:
        return TimedUserOp(func, op, event_clock(gpu.stream))

    return DeviceBackend(compile_part, run_device_user_op, lambda a: to_device(np.asarray(a)),
                         copy_device_array, timing)
