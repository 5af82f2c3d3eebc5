"""Errors raised while a compiled function runs, worded so the user can act on them."""
from __future__ import annotations

from typing import Sequence

from ..ir.diagnostics import SOURCES
from ..ir.location import FileLineColLoc, Location


def describe_location(loc: Location) -> str:
    """`file.py:12` plus the source line when it can be read, else ''."""
    if not isinstance(loc, FileLineColLoc):
        return ""
    src = SOURCES.line(loc.filename, loc.line)
    text = f"{loc.filename}:{loc.line}"
    return text + (f"\n    {src.strip()}" if src else "")


class ExecutionError(ValueError):
    """An op failed at run time (typically incompatible shapes); names the op, the user's
    Python line that built it and the shapes of its inputs."""

    def __init__(self, op_name: str, location: Location, shapes: Sequence[tuple[int, ...]], reason: str):
        self.op_name = op_name
        self.location = location
        self.shapes = [tuple(s) for s in shapes]
        where = describe_location(location)
        shape_text = ", ".join(str(s) for s in self.shapes) or "no inputs"
        msg = f"'{op_name}' failed at run time: {reason}\n  input shapes: {shape_text}"
        if where:
            msg += f"\n  built at {where}"
        super().__init__(msg)


class IndexOutOfRangeError(ExecutionError, IndexError):
    """An integer index outside `-n <= i < n` (numpy raises IndexError too); names the op,
    the user's line and the input shapes."""


class InputError(TypeError):
    """A bad argument to a compiled function (count, name, dtype)."""


class OutputMismatchError(AssertionError):
    """DebugMode: the optimized function disagrees with the unoptimized one."""
