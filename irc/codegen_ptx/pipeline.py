"""The GPU pipeline's two entry points, as the runtime calls them:

    loop_module = lower_for_gpu(tensor_module)      # lower-to-loops + outline-kernels
    ptx = compile_kernels(loop_module, "sm_90")      # every gpu.func -> one PTX text

After `lower_for_gpu` the module holds `gpu.func` kernels and host `func.func`s whose device
work is all `gpu.launch`es (run them with `irc.runtime.host_plan`).
"""
from __future__ import annotations

from ..base.device import CUDA
from ..dialects.builtin import ModuleOp
from ..ir.pass_manager import PassManager
from ..passes.place_on_device import is_host_placed, place_all_on_device
from .convert_to_nvvm import convert_to_nvvm
from .target import emit_ptx


def lower_for_gpu(module: ModuleOp, allow_gc: bool = True) -> ModuleOp:
    """A new module: `module`'s tensor functions bufferized and their device loop nests
    outlined into kernels. A module with no placement yet is first put on the device whole."""
    module = module.clone()
    if is_host_placed(module):
        place_all_on_device(module, CUDA)
    PassManager.parse(f"lower-to-loops{{allow-gc={str(allow_gc).lower()}}},outline-kernels").run(module)
    return module


def compile_kernels(module: ModuleOp, arch: str) -> str:
    """The PTX of every `gpu.func` of `module` for `arch` ("sm_80", "sm_90", ...)."""
    return emit_ptx(convert_to_nvvm(module), arch)
