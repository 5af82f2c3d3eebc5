"""`NanGuardMode` (Theano's `theano.compile.nanguardmode.NanGuardMode`): every op's results
checked for NaN, infinities and huge values while the function runs, the first bad one an
`AssertionError` naming the op and the user's line that built it.

The function runs op by op in numpy (the reference executor, on the optimized graph, whatever
the device), and the check sees every op `tensor_eval` evaluates — the ops of a scan's steps and
of an `ifelse`'s taken branch included — so a NaN made in step 700 of a loop is caught in that
step, by the op that made it. Compiled code is not checked: this is a debugging mode, slow by
design, as Theano's was."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..dialects.tensor_eval import observing
from ..ir.core import Operation
from .modes import Mode

BIG = 1e10  # Theano's threshold for a "big value"


class NanGuardMode(Mode):
    """`NanGuardMode(nan_is_error=True, inf_is_error=True, big_is_error=True, optimizer=, linker=)`:
    which findings fail a call (Theano's defaults: all three). The linker is always 'py'."""

    def __init__(self, nan_is_error: bool | None = None, inf_is_error: bool | None = None,
                 big_is_error: bool | None = None, optimizer: str | None = "fast_run", linker: str | None = None):
        super().__init__("py", "fast_run" if optimizer == "default" else optimizer)
        self.nan_is_error = True if nan_is_error is None else bool(nan_is_error)
        self.inf_is_error = True if inf_is_error is None else bool(inf_is_error)
        self.big_is_error = True if big_is_error is None else bool(big_is_error)

    def findings(self, value: Any) -> list[str]:
        """What is wrong with one array: 'NaN detected', 'Inf detected', 'Big value detected'."""
        a = np.asarray(value)
        if a.dtype.kind not in "fc" or a.size == 0:
            return []
        found = []
        if self.nan_is_error and np.isnan(a).any():
            found.append("NaN detected")
        if self.inf_is_error and np.isinf(a).any():
            found.append("Inf detected")
        finite = a[np.isfinite(a)]
        if self.big_is_error and finite.size and np.abs(finite).max() > BIG:
            found.append("Big value detected")
        return found

    def check_op(self, op: Operation, results: list) -> None:
        for k, value in enumerate(results):
            found = self.findings(value)
            if found:
                raise AssertionError(f"{', '.join(found)}: NanGuardMode found an error in output #{k} of "
                                     f"'{op.op_name}' built at {op.location} (shape {np.shape(value)})")

    def check_inputs(self, names: Sequence[str], args: Sequence[Any]) -> None:
        for k, (name, value) in enumerate(zip(names, args)):
            found = self.findings(value)
            if found:
                raise AssertionError(f"{', '.join(found)}: NanGuardMode found an error in input #{k} "
                                     f"('{name}') of the function")


class NanGuardExecutor:
    """The reference executor with `mode`'s checks on the arguments and on every op's results."""

    fresh_results = False

    def __init__(self, inner: Any, mode: NanGuardMode, names: Sequence[str]):
        self.inner, self.mode, self.names = inner, mode, list(names)
        self.constants = getattr(inner, "constants", {})
        self.native = None

    def run(self, args: Sequence[Any], hook: Any = None, outs: list | None = None) -> list:
        self.mode.check_inputs(self.names, args)
        with observing(self.mode.check_op):
            return self.inner.run(args, hook)
