"""`assert_no_cpu_op`: with a GPU device, report the ops the placed function still runs on
the host, each with the user's Python line, as a warning or an AssertionError (Theano's)."""
from __future__ import annotations

import warnings

from ..ir.core import Operation
from ..ir.diagnostics import Diagnostic
from ..passes.insert_transfers import ops_left_on_host
from .opview import view_op


def report_host_ops(func: Operation, policy: str, device: str | None) -> None:
    """Apply `policy` (`ignore`, `warn`, `raise`) to the host ops of the optimized `func`
    compiled for `device` (the target's placement; None: the cpu, nothing to report)."""
    if policy == "ignore" or device is None:
        return
    ops = ops_left_on_host(func)
    if not ops:
        return
    severity = "error" if policy == "raise" else "warning"
    lines = [Diagnostic(f"'{op.op_name}' ({view_op(op)}) runs on the cpu", op.location, severity).render()
             for op in ops]
    message = (f"{len(ops)} op(s) of '{func.sym_name}' run on the cpu although device={device} "
               f"(assert_no_cpu_op={policy}):\n" + "\n".join(lines))
    if policy == "raise":
        raise AssertionError(message)
    warnings.warn(message, RuntimeWarning, stacklevel=4)
