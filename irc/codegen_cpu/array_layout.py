"""What the numpy-object entry point (`numpy_abi.py`) assumes of numpy's arrays, and its name:
apart from the code generator, so that loading cached code does not import it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArrayLayout:
    """Byte offsets of `data`, `dimensions` and `strides` in a numpy array object."""

    data: int = 16
    dims: int = 32
    strides: int = 40

    def key(self) -> str:
        return f"np{self.data}.{self.dims}.{self.strides}"


def numpy_symbol_of(entry: str) -> str:
    """The numpy-object wrapper's name for the function exported as `entry`."""
    return entry + ".np"
