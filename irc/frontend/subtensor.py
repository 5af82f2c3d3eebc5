"""Basic indexing: `Subtensor` (tensor.slice, static bounds), `IncSubtensor`
(tensor.insert_slice: `x` with a slice replaced) and `DynamicSubtensor` (tensor.dynamic_slice:
`x[i:j]` along one axis with symbolic bounds, step 1).

Bounds follow numpy (negative counts from the end, out of range clips); an absent bound is
`NO_BOUND`. `x[i]` is a slice of one element along that dim (declared broadcastable via
`ones`, which the reference executor checks at run time) followed by a DimShuffle dropping it."""
from __future__ import annotations

from typing import Sequence

from ..dialects.tensor_base import NO_BOUND
from ..ir.attributes import Attribute, DenseArrayAttr, IntegerAttr
from .graph import Apply, Op, Variable, infer_via_dialect


class _Sliced(Op):
    __props__ = ("starts", "stops", "steps")

    def __init__(self, starts: Sequence[int], stops: Sequence[int], steps: Sequence[int]):
        self.starts = tuple(int(s) for s in starts)
        self.stops = tuple(int(s) for s in stops)
        self.steps = tuple(int(s) for s in steps)
        if not len(self.starts) == len(self.stops) == len(self.steps):
            raise ValueError("starts, stops and steps need one entry per dimension")

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"starts": DenseArrayAttr(self.starts), "stops": DenseArrayAttr(self.stops),
                "steps": DenseArrayAttr(self.steps)}

    def slices(self) -> tuple[slice, ...]:
        """The numpy index this op takes."""
        def b(v: int) -> int | None:
            return None if v == NO_BOUND else v
        return tuple(slice(b(a), b(o), s) for a, o, s in zip(self.starts, self.stops, self.steps))

    def _index_str(self) -> str:
        def part(sl: slice) -> str:
            text = f"{'' if sl.start is None else sl.start}:{'' if sl.stop is None else sl.stop}"
            return text + (f":{sl.step}" if sl.step != 1 else "")
        return ", ".join(part(s) for s in self.slices())

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{self._index_str()}}}"


class Subtensor(_Sliced):
    """`x[a:b:c, ...]` with one static (start, stop, step) per dim; `ones` lists dims the
    builder knows hold exactly one element (integer indices), typed broadcastable."""

    __props__ = ("starts", "stops", "steps", "ones")
    ir_name = "tensor.slice"

    def __init__(self, starts, stops, steps, ones: Sequence[int] = ()):
        super().__init__(starts, stops, steps)
        self.ones = tuple(sorted(set(ones)))

    def make_node(self, x: Variable) -> Apply:  # type: ignore[override]
        if x.ndim != len(self.starts):
            raise ValueError(f"{self}: needs {len(self.starts)} dims, got {x.type}")
        types = infer_via_dialect(self.ir_name, [x.type], self.ir_attributes())
        assert types is not None, "the tensor dialect has no tensor.slice"
        out = types[0]
        bcast = tuple(b or k in self.ones for k, b in enumerate(out.broadcastable))
        return Apply(self, [x], [Variable(out.clone(broadcastable=bcast))])


class IncSubtensor(_Sliced):
    """`dest` with `dest[slices]` replaced by `src` (Theano's set_subtensor; `inc_subtensor`
    is built as set_subtensor(x, x[idx] + y)). Value semantics: a new tensor."""

    ir_name = "tensor.insert_slice"

    def make_node(self, dest: Variable, src: Variable) -> Apply:  # type: ignore[override]
        types = infer_via_dialect(self.ir_name, [dest.type, src.type], self.ir_attributes())
        assert types is not None, "the tensor dialect has no tensor.insert_slice"
        return Apply(self, [dest, src], [Variable(types[0])])


class DynamicSubtensor(Op):
    """`x[start:stop]` along `axis` with symbolic 0-d int64 bounds (tensor.dynamic_slice):
    numpy's rules at run time (negative counts from the end, bounds clip)."""

    __props__ = ("axis",)
    ir_name = "tensor.dynamic_slice"

    def __init__(self, axis: int):
        self.axis = int(axis)

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"axis": IntegerAttr(self.axis)}

    def make_node(self, x: Variable, start: Variable, stop: Variable) -> Apply:  # type: ignore[override]
        types = infer_via_dialect(self.ir_name, [x.type, start.type, stop.type], self.ir_attributes())
        return Apply(self, [x, start, stop], [Variable(types[0])])

    def __str__(self) -> str:
        return f"Subtensor{{axis {self.axis}: symbolic start:stop}}"
