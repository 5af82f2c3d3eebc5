"""`T.mgrid` and `T.ogrid` (Theano's, numpy's): `mgrid[0:5, 0:3]` gives one dense array per
slice (the coordinates along that axis), `ogrid` the same as open (broadcastable) ranges.
The bounds and steps may be symbolic scalars."""
from __future__ import annotations

from typing import Any

from .basic import dimshuffle, mul
from .basic import ones_like
from .creation import arange
from .graph import Variable


class _Grid:
    """`mgrid[...]` / `ogrid[...]`: slices to `arange`s laid along their own axis."""

    def __init__(self, sparse: bool):
        self.sparse = sparse

    def __getitem__(self, slices: Any) -> list[Variable]:
        slices = slices if isinstance(slices, tuple) else (slices,)
        if not all(isinstance(s, slice) for s in slices):
            raise TypeError(f"{'ogrid' if self.sparse else 'mgrid'}[...] takes slices, got {slices!r}")
        n = len(slices)
        ranges = []
        for axis, s in enumerate(slices):
            r = arange(0 if s.start is None else s.start, s.stop, 1 if s.step is None else s.step)
            ranges.append(dimshuffle(r, ["x"] * axis + [0] + ["x"] * (n - 1 - axis)))
        if self.sparse:
            return ranges
        grids = []
        for axis, r in enumerate(ranges):
            g = r
            for other, o in enumerate(ranges):
                if other != axis:
                    g = mul(g, ones_like(o))
            grids.append(g)
        return grids


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)
