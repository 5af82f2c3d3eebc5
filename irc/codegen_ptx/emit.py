"""Text outputs of the cuda target's stages (`irc-opt -t gpu|ptx|nvvm`, `f.ir`): a module at any
level (tensor, loop or gpu) brought to the kernel level, then shown as MLIR, as PTX for `arch`
(`sm_90` unless a device says otherwise), or as LLVM IR for NVPTX before optimization."""
from __future__ import annotations

from ..dialects.builtin import ModuleOp
from ..dialects.gpu import GpuFuncOp
from ..ir.instrumentation import render_ir
from .convert_to_nvvm import convert_to_nvvm
from .pipeline import compile_kernels, lower_for_gpu

DEFAULT_ARCH = "sm_90"


def gpu_module(module: ModuleOp) -> ModuleOp:
    """`module` at the kernel level (`--emit-stage=gpu`): lowered and outlined unless it
    already holds kernels."""
    if any(isinstance(op, GpuFuncOp) for op in module.body.ops):
        return module
    return lower_for_gpu(module)


def emit_gpu_ir(module: ModuleOp, generic: bool = False, debuginfo: bool = False) -> str:
    """The kernel level as MLIR: `gpu.func` kernels and the host function launching them."""
    return render_ir(gpu_module(module), generic=generic, debuginfo=debuginfo)


def emit_ptx_text(module: ModuleOp, arch: str | None = None) -> str:
    return compile_kernels(gpu_module(module), arch or DEFAULT_ARCH)


def emit_nvvm_ir(module: ModuleOp) -> str:
    return str(convert_to_nvvm(gpu_module(module)))
