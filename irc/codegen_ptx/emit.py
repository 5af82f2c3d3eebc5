"""Text outputs for `irc-opt -t ptx` / `-t nvvm`: a module at any level (tensor, loop or gpu)
brought to the kernel level, then PTX for `sm_90` (or LLVM IR for NVPTX before optimization)."""
from __future__ import annotations

from ..dialects.builtin import ModuleOp
from ..dialects.gpu import GpuFuncOp
from .convert_to_nvvm import convert_to_nvvm
from .pipeline import compile_kernels, lower_for_gpu

DEFAULT_ARCH = "sm_90"


def gpu_module(module: ModuleOp) -> ModuleOp:
    """`module` at the kernel level (`--emit-stage=gpu`): lowered and outlined unless it
    already holds kernels."""
    if any(isinstance(op, GpuFuncOp) for op in module.body.ops):
        return module
    return lower_for_gpu(module)


def emit_ptx_text(module: ModuleOp) -> str:
    return compile_kernels(gpu_module(module), DEFAULT_ARCH)


def emit_nvvm_ir(module: ModuleOp) -> str:
    return str(convert_to_nvvm(gpu_module(module)))
