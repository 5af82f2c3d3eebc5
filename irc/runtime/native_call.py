"""The executor of one native function (`NativeExecutor`: one foreign call per run) and the
error a failed check becomes, naming the op and the user's line. Apart from the compile
(`native_executor.py`) so that a warm start's function runs without importing it."""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from ..dialects import loop as L
from .errors import ExecutionError, IndexOutOfRangeError
from .native_function import NativeFunction
from .shapes import ShapeError

OP_NAME = re.compile(r"'([a-z_]+\.[a-z_0-9]+)'")


class NativeExecutor:
    """`run(args) -> results` through one native call; shape errors become `ExecutionError`s
    naming the op, the user's Python line and the sizes that disagree."""

    constants: dict = {}
    fresh_results = True  # every result is a new array of its declared dtype (see `Function`)

    def __init__(self, native: NativeFunction):
        self.native = native
        self.call = native.__call__

    def run(self, args: Sequence[Any], hook: Callable | None = None, outs: list | None = None) -> list:
        try:
            return self.call(*args) if outs is None else self.call(*args, outs=outs)
        except ShapeError as e:
            raise execution_error(e, args) from None


def execution_error(e: ShapeError, args: Sequence[Any]) -> ExecutionError:
    op = e.op
    shapes = [getattr(a, "shape", ()) for a in args]
    if op is None:
        return ExecutionError("func.func", None, shapes, str(e))
    cls = IndexOutOfRangeError if isinstance(op, (L.CheckIndexOp, L.CheckFlagOp)) else ExecutionError
    m = OP_NAME.match(op.message)
    name = m.group(1) if m else "loop.assert_eq"
    reason = op.message[m.end():].lstrip(": ") if m else op.message
    if e.sizes is not None:
        reason += f" (sizes {e.sizes[0]} and {e.sizes[1]})"
    return cls(name, op.location, shapes, reason)
