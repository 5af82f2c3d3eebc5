"""`builtin`: the module op and the shaped types every dialect shares (tensor, memref) and
dense constants. Their text hooks (parsers for `tensor<>`, `memref<>`, `dense<>`) are in
`builtin_syntax.py`, which the dialects package imports."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..ir.attributes import Attribute, StringAttr, SymbolRefAttr, format_float
from ..ir.core import Block, IsolatedFromAbove, NoTerminator, Operation, Region, SymbolTable
from ..ir.types import ScalarType, Type, scalar_from_numpy


def _dims(shape: Sequence[int | None]) -> str:
    return "".join(("?" if d is None else str(d)) + "x" for d in shape)


@dataclass(frozen=True)
class TensorType(Type):
    """`tensor<400x?xf32>`: value-semantic array; `?` is a dynamic size; a static 1 is a
    broadcastable dimension; `device` (e.g. "cuda") is its placement, None for the host."""

    shape: tuple[int | None, ...]
    element: ScalarType
    device: str | None = None

    def __str__(self) -> str:
        dev = f', "{self.device}"' if self.device else ""
        return f"tensor<{_dims(self.shape)}{self.element}{dev}>"

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return tuple(d == 1 for d in self.shape)

    @property
    def has_static_shape(self) -> bool:
        return all(d is not None for d in self.shape)

    def with_shape(self, shape: Sequence[int | None]) -> "TensorType":
        return TensorType(tuple(shape), self.element, self.device)

    def with_element(self, element: ScalarType) -> "TensorType":
        return TensorType(self.shape, element, self.device)

    def with_device(self, device: str | None) -> "TensorType":
        return TensorType(self.shape, self.element, device)


@dataclass(frozen=True)
class MemRefType(Type):
    """`memref<?x?xf32, strided<[?, 1], offset: ?>>`: a buffer view with element strides.

    `strides=None` means the contiguous row-major layout (printed without `strided<>`);
    `None` entries (and `offset=None`) are dynamic, known only at run time."""

    shape: tuple[int | None, ...]
    element: ScalarType
    strides: tuple[int | None, ...] | None = None
    offset: int | None = 0
    device: str | None = None

    def __str__(self) -> str:
        parts = [f"memref<{_dims(self.shape)}{self.element}"]
        if self.strides is not None or self.offset != 0:
            strides = self.strides if self.strides is not None else contiguous_strides(self.shape)
            text = "strided<[" + ", ".join("?" if s is None else str(s) for s in strides) + "]"
            if self.offset != 0:
                text += ", offset: " + ("?" if self.offset is None else str(self.offset))
            parts.append(text + ">")
        if self.device:
            parts.append(f'"{self.device}"')
        return ", ".join(parts) + ">"

    @property
    def rank(self) -> int:
        return len(self.shape)


def contiguous_strides(shape: Sequence[int | None]) -> tuple[int | None, ...]:
    """Row-major element strides; dynamic as soon as a later dimension is dynamic."""
    strides: list[int | None] = []
    acc: int | None = 1
    for d in reversed(shape):
        strides.append(acc)
        acc = None if (acc is None or d is None) else acc * d
    return tuple(reversed(strides))


@dataclass(frozen=True, eq=False)
class DenseAttr(Attribute):
    """`dense<[[1.0, 2.0]]> : tensor<1x2xf32>` (or a splat `dense<0.0> : ...`).

    Holds the data as bytes so it stays frozen and hashable; `.array` gives a read-only numpy
    array. A splat (every element the same bytes) keeps one element, whatever the shape: a
    `dense<1.0> : tensor<100000000000xf32>` costs four bytes, and `.array` is a broadcast view."""

    type: TensorType
    data: bytes

    @staticmethod
    def from_array(array, type: TensorType | None = None) -> "DenseAttr":
        import numpy as np
        arr = np.array(array, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
        if type is None:
            type = TensorType(tuple(arr.shape), scalar_from_numpy(arr.dtype.name))
        arr = arr.astype(type.element.numpy_name, copy=False)
        data = arr.tobytes()
        itemsize = arr.dtype.itemsize
        if arr.size > 1 and data == data[:itemsize] * arr.size:
            data = data[:itemsize]
        return DenseAttr(type, data)

    @staticmethod
    def splat(value, type: "TensorType") -> "DenseAttr":
        """Every element `value` (stored once)."""
        import numpy as np
        return DenseAttr(type, np.array([value], dtype=type.element.numpy_name).tobytes())

    @property
    def array(self):
        import numpy as np
        arr = np.frombuffer(self.data, dtype=self.type.element.numpy_name)
        shape = tuple(1 if d is None else d for d in self.type.shape)
        if arr.size == 1 and any(d != 1 for d in shape):
            arr = np.broadcast_to(arr.reshape(()), shape)  # splat
        return arr.reshape(shape)

    @property
    def is_splat(self) -> bool:
        """One value repeated (stored once, see the class doc); false for an empty tensor."""
        import numpy as np
        one = np.dtype(self.type.element.numpy_name).itemsize
        return len(self.data) == one and 0 not in self.type.shape

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DenseAttr) and other.type == self.type and other.data == self.data

    def __hash__(self) -> int:
        return hash((self.type, self.data))

    def __str__(self) -> str:
        a = self.array
        kind = a.dtype.kind

        def fmt(v) -> str:
            if kind == "b":
                return "true" if v else "false"
            if kind == "f":
                return format_float(float(v))
            if kind == "c":  # MLIR's complex literal: (real, imaginary)
                return f"({format_float(v.real)}, {format_float(v.imag)})"
            return str(int(v))

        def nest(x) -> str:
            if x.ndim == 0:
                return fmt(x.item())
            return "[" + ", ".join(nest(x[i]) for i in range(x.shape[0])) + "]"

        body = fmt(a.flat[0]) if a.size > 1 and self.is_splat else nest(a)
        return f"dense<{body}> : {self.type}"


class ModuleOp(Operation):
    """`builtin.module`: the top-level container (prints as `module { ... }`)."""

    name = "builtin.module"
    traits = (IsolatedFromAbove, SymbolTable, NoTerminator)

    @staticmethod
    def create(ops: Sequence[Operation] = (), attributes: dict[str, Attribute] | None = None) -> "ModuleOp":
        return ModuleOp([], [], attributes, [Region([Block([], ops)])])

    @property
    def body(self) -> Block:
        return self.regions[0].blocks[0]

    def lookup_symbol(self, name: str) -> Operation | None:
        for op in self.body.ops:
            if op.attributes.get("sym_name") == StringAttr(name):
                return op
        return None

    def print_custom(self, printer) -> bool | None:
        """`module @name attributes {...} {` ops `}`; the name and attributes are optional."""
        if (len(self.regions) != 1 or len(self.regions[0].blocks) != 1 or self.body.args
                or printer.is_branch_target(self.body)):
            return False
        sym = self.attributes.get("sym_name")
        named = isinstance(sym, StringAttr)
        if named:
            printer.write(" ", str(SymbolRefAttr(sym.value)))  # type: ignore[union-attr]
        rest = printer.attr_dict(self.attributes, ("sym_name",) if named else ())
        if rest:
            printer.write(" attributes", rest)
        printer.write(" ")
        printer.print_region(self.regions[0], entry_args=False, empty_block=False)
        return None

    @classmethod
    def parse_custom(cls, parser) -> "ModuleOp":
        sym = parser.parse_symbol() if parser.peek()[:1] == "@" else None
        attrs = parser.parse_attr_dict() if parser.accept("attributes") else {}
        if sym is not None:
            attrs["sym_name"] = StringAttr(sym)
        region = parser.parse_region(entry_args=[])
        return parser.create(cls, (), (), attrs, [region])  # type: ignore[return-value]

    def verify_(self) -> None:
        if self.operands or self.results:
            raise self.error("takes no operands and has no results")
        if len(self.regions) != 1 or len(self.regions[0].blocks) != 1:
            raise self.error("must have one region with one block")
        if self.body.args:
            raise self.error("body block may not have arguments")
        seen: set = set()
        for op in self.body.ops:
            sym = op.attributes.get("sym_name")
            if sym is not None:
                if sym in seen:
                    raise op.error(f"redefinition of symbol {sym}")
                seen.add(sym)

