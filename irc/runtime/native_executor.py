"""The executor `irc.function` uses on the CPU: the optimized module compiled by `compile_cpu`,
one foreign call per run.

`make_cpu_executor` picks it, and falls back to the reference executor only when lowering or
code generation reports an op it cannot handle — with a warning (once per op) naming the op
and the user's line, never silently."""
from __future__ import annotations

import warnings
from typing import Any

from ..dialects.tensor_custom import user_op_label
from .native import NativeFunction, compile_cpu
from .native_call import OP_NAME, NativeExecutor, execution_error  # noqa: F401 (imported from here too)
from .reference import ReferenceExecutor
from .segmented import compile_parts
from .segments import split, splittable, user_ops

_warned: set[str] = set()


class UnsupportedOnCpu(Exception):
    """Lowering or code generation has no rule for an op (the message names it)."""


def compile_or_explain(module: Any, name: str, allow_gc: bool = True) -> NativeFunction:
    """`compile_cpu`, with "no lowering for this op" errors turned into `UnsupportedOnCpu`."""
    try:
        return compile_cpu(module, name, allow_gc=allow_gc)
    except NotImplementedError as e:
        raise UnsupportedOnCpu(str(e)) from e
    except ValueError as e:
        if str(e).startswith("lower-to-loops:"):
            raise UnsupportedOnCpu(str(e)) from e
        raise


def make_cpu_executor(module: Any, func: Any, allow_gc: bool) -> tuple[Any, NativeFunction | None]:
    """(executor, native function or None): native code, or the reference executor with a
    warning when an op cannot be compiled. A function with user ops (`tensor.custom`) runs as
    native parts with the ops' `perform` between them (`segments.py`)."""
    nested = [op for op in user_ops(func) if not splittable(func)]
    if nested:
        warnings.warn(f"irc: function '{func.sym_name}' runs in the (slow) reference executor, not as "
                      f"native code: the user op {user_op_label(nested[0])} at {nested[0].location} is "
                      f"inside a scan or an ifelse branch, which compiles as a whole (only user ops "
                      f"in the function's body run between native parts)", RuntimeWarning, stacklevel=4)
        return ReferenceExecutor(func, allow_gc=allow_gc), None
    try:
        if splittable(func):
            plan = split(func)
            return compile_parts(plan, lambda m, name: NativeExecutor(compile_or_explain(m, name, allow_gc))), None
        native = compile_or_explain(module, func.sym_name, allow_gc)
    except UnsupportedOnCpu as e:
        m = OP_NAME.search(str(e))
        key = m.group(1) if m else str(e)  # once per op name
        if key not in _warned:
            _warned.add(key)
            warnings.warn(f"irc: function '{func.sym_name}' runs in the (slow) reference executor, "
                          f"not as native code: {e}", RuntimeWarning, stacklevel=4)
        return ReferenceExecutor(func, allow_gc=allow_gc), None
    return NativeExecutor(native), native
