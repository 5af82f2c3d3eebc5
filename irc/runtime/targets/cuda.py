"""The `cuda` target: tensors placed on CUDA, kernels as PTX run through PyCUDA.

The runtime takes a placed function's edge transfers (`device-edges`), so that is where its
code generator starts (`codegen_input`) and the first of its loop-level passes. A function
with ops that have no GPU kernel yet runs on the cpu, with one warning (`cuda/host_fallback.py`);
one with users' GPU ops runs as device parts with the ops' thunks between them
(`device_parts.py`). llvmlite and PyCUDA are imported on first use, not with the table."""
from __future__ import annotations

from typing import Any

from ...base.device import CUDA
from ...ir.core import Operation
from ...ir.pass_base import Pass
from ...passes.device_edges import DeviceEdges, HostOpsLeft, device_module
from ..cuda import driver
from ..device_parts import compile_device_parts, cut_on_device
from .base import Stage, Target, registered_pass


def compile_for_cuda(module: Any, func: Any, config: Any, profiling: bool) -> tuple[Any, Any]:
    """The GPU executor, or the cpu's for a function with ops that have no GPU kernel yet."""
    try:
        if cut_on_device(module):
            from ..cuda.user_ops import cuda_backend  # PyCUDA: imported only on a usable GPU
            return compile_device_parts(module, func, cuda_backend(config), profiling)
        placed, edges = device_module(module, CUDA)
    except HostOpsLeft as e:
        from ..cuda.host_fallback import run_on_cpu  # llvmlite: the cpu's native code
        return run_on_cpu(module, func, config, profiling, e)
    from ..cuda.executor import make_cuda_executor  # PyCUDA: imported only on a usable GPU
    return make_cuda_executor(placed, edges, func, config, profiling)


def without_edge_transfers(module: Operation) -> Operation:
    """The placed module as the runtime compiles it: its edge transfers taken."""
    return device_module(module, CUDA)[0]


def loop_passes() -> list[Pass]:
    return [DeviceEdges(device=CUDA), registered_pass("lower-to-loops"), registered_pass("outline-kernels")]


def to_device_storage(value: Any) -> Any:
    from ..cuda.device_array import to_device  # PyCUDA
    return to_device(value)


def open_gpu_options() -> dict[str, Any]:
    """A compiled function's stages are for the GPU it runs on."""
    return {"arch": driver.device().arch}


def render_gpu(module: Operation, generic: bool = False, debuginfo: bool = False) -> str:
    from ...codegen_ptx.emit import emit_gpu_ir  # llvmlite
    return emit_gpu_ir(module, generic, debuginfo)


def render_ptx(module: Operation, arch: str | None = None) -> str:
    from ...codegen_ptx.emit import emit_ptx_text  # llvmlite
    return emit_ptx_text(module, arch)


def render_nvvm(module: Operation) -> str:
    from ...codegen_ptx.emit import emit_nvvm_ir  # llvmlite
    return emit_nvvm_ir(module)


CUDA_TARGET = Target(
    name=CUDA, placement=CUDA, summary="NVIDIA GPUs through CUDA (device=cuda, cudaN; gpu, gpuN)",
    compile=compile_for_cuda, loop_passes=loop_passes,
    stages={s.name: s for s in (
        Stage("gpu", "the kernel level: gpu.func kernels and the host function launching them", render_gpu),
        Stage("ptx", "PTX of the module's GPU kernels (sm_90, or --gpu-arch)", render_ptx),
        Stage("nvvm", "LLVM IR of the GPU kernels for NVPTX, unoptimized", render_nvvm))},
    dump_stages=("ptx",), why_unavailable=driver.why_unavailable, to_storage=to_device_storage,
    codegen_input=without_edge_transfers, stage_options=open_gpu_options)
