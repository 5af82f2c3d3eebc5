"""The `cuda` target (registered from the top): tensors placed on "cuda", kernels as PTX."""
from __future__ import annotations

from typing import Any

from ...codegen_ptx.pipeline import compile_kernels, lower_for_gpu
from ...ir.instrumentation import render_ir
from ...passes.device_edges import HostOpsLeft, device_module
from ..targets import Target, register_target
from . import driver
from .host_fallback import run_on_cpu


def compile_for_cuda(module: Any, func: Any, config: Any, profiling: bool) -> tuple[Any, Any]:
    """The GPU executor, or the cpu's for a function with ops that have no GPU kernel yet."""
    try:
        placed, edges = device_module(module, "cuda")
    except HostOpsLeft as e:
        return run_on_cpu(module, func, config, profiling, e)
    from .executor import make_cuda_executor  # PyCUDA-backed: imported only on a usable GPU
    return make_cuda_executor(placed, edges, func, config, profiling)


def kernel_module(module: Any) -> Any:
    """The kernel level of a placed tensor module (the `gpu` stage)."""
    return lower_for_gpu(device_module(module, "cuda")[0])


def render_gpu(module: Any) -> str:
    return render_ir(kernel_module(module))


def render_ptx(module: Any) -> str:
    return compile_kernels(kernel_module(module), driver.device().arch)


def _to_storage(value: Any) -> Any:
    from .device_array import to_device
    return to_device(value)


CUDA = Target("cuda", "cuda", compile_for_cuda, why_unavailable=driver.why_unavailable,
              to_storage=_to_storage, stages={"gpu": render_gpu, "ptx": render_ptx},
              loop_passes=("device-edges", "lower-to-loops", "outline-kernels"), dump_stages=("ptx",))
register_target(CUDA)
