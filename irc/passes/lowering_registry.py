"""Which function lowers each tensor op to loops: filled by the lowering modules as they load,
read by `lower-to-loops` and by the one-element path (`lower_scalars.py`). It sits below both."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ..ir.core import Operation, Value

if TYPE_CHECKING:  # annotations only: the lowering context is built on these tables
    from .lower_to_loops import FuncLowering

Lowering = Callable[["FuncLowering", Operation], None]
LOWERINGS: dict[str, Lowering] = {}
# ops whose lowering reads operands only through `FuncLowering.broadcast_load` (so an operand
# held as a scalar needs no buffer: see `lower_scalars.py`)
BY_ELEMENT: set[str] = {"tensor.fused_reduce"}
# op name -> body(ctx, op): the scalar results from the operands' scalars (one element)
BodyMaker = Callable[["FuncLowering", Operation], Callable[[list[Value]], list[Value]]]
ELEMENTWISE_BODIES: dict[str, BodyMaker] = {}


def lowering(*names: str):
    """Register the lowering of tensor ops by name."""
    def register(fn: Lowering) -> Lowering:
        for n in names:
            LOWERINGS[n] = fn
        return fn
    return register
