"""The `cuda` target (registered from the top): tensors placed on "cuda", kernels as PTX."""
from __future__ import annotations

from typing import Any

from ..targets import Target, register_target
from . import driver


def compile_for_cuda(module: Any, func: Any, config: Any, profiling: bool) -> tuple[Any, Any]:
    from .executor import make_cuda_executor  # PyCUDA-backed: imported only on a usable GPU
    return make_cuda_executor(module, func, config, profiling)


def _to_storage(value: Any) -> Any:
    from .device_array import to_device
    return to_device(value)


CUDA = Target("cuda", "cuda", compile_for_cuda, why_unavailable=driver.why_unavailable,
              to_storage=_to_storage, loop_passes=("lower-to-loops", "outline-kernels"))
register_target(CUDA)
