"""The cpu's compile step: an optimized tensor module to an executor that runs native code
(per-op cycle counters compiled in when profiling); the reference executor only for ops with
no lowering, with a warning. Loads llvmlite: the cpu target imports it at its first compile."""
from __future__ import annotations

from typing import Any

from .native_executor import make_cpu_executor
from .profile_native import make_profiled_cpu_executor


def compile_for_cpu(module: Any, func: Any, config: Any, profiling: bool) -> tuple[Any, Any]:
    """(executor, native function or None) for the optimized `module` holding `func`."""
    if profiling:
        return make_profiled_cpu_executor(module, func, config.allow_gc)
    return make_cpu_executor(module, func, config.allow_gc)
