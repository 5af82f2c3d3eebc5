"""Types: frozen, hashable, printed in MLIR syntax by `str()`.

The core knows only scalar and function types. Dialects add their own (`tensor<...>`,
`memref<...>`) by subclassing `Type` and registering a parse hook for their keyword with
`register_type_parser`, so the core stays free of tensor knowledge.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar


@dataclass(frozen=True)
class Type:
    """Base class of all types."""

    def __str__(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError


@dataclass(frozen=True)
class ScalarType(Type):
    """A single number: `f16 f32 f64` (floats), `i1 i8 i16 i32 i64` (integers), `ui8 ui16 ui32
    ui64` (unsigned integers: the ops that depend on the sign — division, comparison, widening,
    conversion to float — read them as unsigned), `index`, `c64 c128` (complex numbers: a pair
    of f32 / f64, real part first, numpy's layout)."""

    name: str
    NAMES: ClassVar[tuple[str, ...]] = ("i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "index",
                                        "f16", "f32", "f64", "c64", "c128")

    def __post_init__(self) -> None:
        if self.name not in self.NAMES:
            raise ValueError(f"unknown scalar type '{self.name}'")

    def __str__(self) -> str:
        return self.name

    @property
    def is_float(self) -> bool:
        return self.name[0] == "f"

    @property
    def is_integer(self) -> bool:
        return self.name[0] == "i" or self.is_unsigned  # includes index

    @property
    def is_complex(self) -> bool:
        return self.name[0] == "c"

    @property
    def component(self) -> "ScalarType":
        """The type of a complex number's real and imaginary parts (a real type is its own)."""
        return ScalarType("f" + str(self.bitwidth // 2)) if self.is_complex else self

    @property
    def is_unsigned(self) -> bool:
        return self.name.startswith("ui")

    @property
    def is_bool(self) -> bool:
        return self.name == "i1"

    @property
    def bitwidth(self) -> int:
        return 64 if self.name == "index" else int(self.name.lstrip("uifc"))

    @property
    def numpy_name(self) -> str:
        """The numpy dtype name of this type (`bool` for i1, `int64` for index)."""
        if self.name == "i1":
            return "bool"
        if self.name == "index":
            return "int64"
        if self.is_complex:
            return "complex" + str(self.bitwidth)
        return ("float" if self.is_float else "uint" if self.is_unsigned else "int") + str(self.bitwidth)


f16, f32, f64 = ScalarType("f16"), ScalarType("f32"), ScalarType("f64")
i1, i8, i16, i32, i64 = (ScalarType(n) for n in ("i1", "i8", "i16", "i32", "i64"))
ui8, ui16, ui32, ui64 = (ScalarType(n) for n in ("ui8", "ui16", "ui32", "ui64"))
index = ScalarType("index")
c64, c128 = ScalarType("c64"), ScalarType("c128")

_NUMPY_TO_SCALAR = {
    "bool": i1, "int8": i8, "int16": i16, "int32": i32, "int64": i64,
    "uint8": ui8, "uint16": ui16, "uint32": ui32, "uint64": ui64,
    "float16": f16, "float32": f32, "float64": f64, "complex64": c64, "complex128": c128,
}


def scalar_from_numpy(dtype_name: str) -> ScalarType:
    """`float32` → `f32` and so on; a clear error for dtypes the IR has no type for."""
    try:
        return _NUMPY_TO_SCALAR[str(dtype_name)]
    except KeyError:
        raise ValueError(f"dtype '{dtype_name}' has no irc scalar type "
                         f"(supported: {', '.join(_NUMPY_TO_SCALAR)})") from None


@dataclass(frozen=True)
class FunctionType(Type):
    """`(inputs) -> results`; results print bare when there is exactly one non-function type."""

    inputs: tuple[Type, ...]
    results: tuple[Type, ...]

    def __str__(self) -> str:
        ins = ", ".join(map(str, self.inputs))
        if len(self.results) == 1 and not isinstance(self.results[0], FunctionType):
            return f"({ins}) -> {self.results[0]}"
        return f"({ins}) -> ({', '.join(map(str, self.results))})"


@dataclass(frozen=True)
class NoneType(Type):
    def __str__(self) -> str:
        return "none"


# keyword -> function(parser) -> Type, called with the keyword already consumed.
TYPE_PARSERS: dict[str, Callable] = {}


def register_type_parser(keyword: str, parse: Callable) -> None:
    """Let the parser read `keyword<...>` by calling `parse(parser)` after the keyword."""
    TYPE_PARSERS[keyword] = parse
