"""What the numpy-object entry point (`numpy_abi.py`) assumes of numpy's arrays, and its name:
apart from the code generator, so that loading cached code does not import it."""
from __future__ import annotations


class ArrayLayout:
    """Byte offsets of `data`, `dimensions` and `strides` in a numpy array object (a plain class:
    a frozen dataclass cost 0.5 ms of every warm start's imports)."""

    __slots__ = ("data", "dims", "strides")

    def __init__(self, data: int = 16, dims: int = 32, strides: int = 40):
        self.data, self.dims, self.strides = data, dims, strides

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArrayLayout) and (self.data, self.dims, self.strides) == (
            other.data, other.dims, other.strides)

    def __hash__(self) -> int:
        return hash((self.data, self.dims, self.strides))

    def __repr__(self) -> str:
        return f"ArrayLayout(data={self.data}, dims={self.dims}, strides={self.strides})"

    def key(self) -> str:
        return f"np{self.data}.{self.dims}.{self.strides}"


def numpy_symbol_of(entry: str) -> str:
    """The numpy-object wrapper's name for the function exported as `entry`."""
    return entry + ".np"
