"""A function with ops that have no GPU kernel yet, compiled for device=cuda: it runs on the
cpu, with one warning naming those ops (part 2 of the GPU backend adds reductions and products).
Its shared values may live on the device: they come to the host for the call."""
from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from ...dialects.func import FuncOp
from ...passes.device_edges import HostOpsLeft, strip_placement
from ..cpu_compile import compile_for_cpu

_warned: set[str] = set()


def run_on_cpu(module: Any, func: Any, config: Any, profiling: bool, why: HostOpsLeft) -> tuple[Any, Any]:
    """(executor, native) of the cpu target for the placed `module`, without its placement."""
    key = ",".join(sorted({op.op_name for op in why.ops}))
    if key not in _warned:
        _warned.add(key)
        where = ", ".join(f"'{op.op_name}' at {op.location}" for op in why.ops[:3])
        warnings.warn(f"irc: function '{func.sym_name}' runs on the cpu: {why} ({where})",
                      RuntimeWarning, stacklevel=5)
    cpu_module = strip_placement(module)
    cpu_func = next(op for op in cpu_module.body.ops if type(op) is FuncOp)
    executor, native = compile_for_cpu(cpu_module, cpu_func, config, profiling)
    return HostStorageExecutor(executor), native


class HostStorageExecutor:
    """Runs a cpu executor for a function whose shared values may live on the device: device
    arrays come to the host for the call (their updates then stay on the host)."""

    constants: dict = {}

    def __init__(self, inner: Any):
        self.inner = inner
        self.fresh_results = getattr(inner, "fresh_results", False)
        self.native = getattr(inner, "native", None)

    def run(self, args: Sequence[Any], hook: Any = None, outs: list | None = None) -> list:
        args = [a if isinstance(a, np.ndarray) else np.asarray(a) for a in args]
        if outs is None:
            return self.inner.run(args, hook)
        return self.inner.run(args, hook, outs=[o if isinstance(o, np.ndarray) else None for o in outs])
