"""Attributes: frozen, hashable compile-time values attached to ops, printed by `str()`.

Dialects may add attributes (e.g. `dense<...>` constants) by subclassing `Attribute` and
registering a parse hook for their keyword with `register_attribute_parser`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

from .types import Type, ScalarType, i64, f64


@dataclass(frozen=True)
class Attribute:
    """Base class of all attributes."""


_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")


def quote_string(s: str) -> str:
    out = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{out}"'


def format_float(value: float) -> str:
    """Shortest repr that parses back exactly; always looks like a float literal."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    r = repr(float(value))
    if "e" in r or "E" in r:
        mant, exp = r.split("e")
        if "." not in mant:
            mant += ".0"
        return f"{mant}e{exp}"
    return r


@dataclass(frozen=True)
class IntegerAttr(Attribute):
    """`42 : i64` (the type prints unless it is i64); `true`/`false` are `BoolAttr`."""

    value: int
    type: Type = i64

    def __str__(self) -> str:
        return str(self.value) if self.type == i64 else f"{self.value} : {self.type}"


@dataclass(frozen=True)
class FloatAttr(Attribute):
    """`1.5 : f32` (the type prints unless it is f64)."""

    value: float
    type: Type = f64

    def __str__(self) -> str:
        text = format_float(self.value)
        return text if self.type == f64 else f"{text} : {self.type}"

    def __eq__(self, other: object) -> bool:  # nan == nan for attribute identity
        if not isinstance(other, FloatAttr) or other.type != self.type:
            return False
        return self.value == other.value or (math.isnan(self.value) and math.isnan(other.value))

    def __hash__(self) -> int:
        return hash(("float", "nan" if math.isnan(self.value) else self.value, self.type))


@dataclass(frozen=True)
class BoolAttr(Attribute):
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass(frozen=True)
class StringAttr(Attribute):
    value: str

    def __str__(self) -> str:
        return quote_string(self.value)


@dataclass(frozen=True)
class UnitAttr(Attribute):
    """Presence-only flag; prints as `unit` (and as a bare key in an attribute dict)."""

    def __str__(self) -> str:
        return "unit"


@dataclass(frozen=True)
class TypeAttr(Attribute):
    value: Type

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class SymbolRefAttr(Attribute):
    """`@name`: a reference to a symbol (a function) by name."""

    name: str

    def __str__(self) -> str:
        return "@" + (self.name if _BARE_ID.match(self.name) else quote_string(self.name))


@dataclass(frozen=True)
class ArrayAttr(Attribute):
    """`[a, b, c]`."""

    value: tuple[Attribute, ...]

    def __str__(self) -> str:
        return "[" + ", ".join(map(str, self.value)) + "]"

    def __iter__(self):
        return iter(self.value)

    def __len__(self) -> int:
        return len(self.value)


@dataclass(frozen=True)
class DenseArrayAttr(Attribute):
    """`array<i64: 0, 2>`: a compact list of integers (axes, permutations, shapes)."""

    value: tuple[int, ...]
    element: ScalarType = i64

    def __str__(self) -> str:
        if not self.value:
            return f"array<{self.element}>"
        return f"array<{self.element}: " + ", ".join(map(str, self.value)) + ">"

    def __iter__(self):
        return iter(self.value)

    def __len__(self) -> int:
        return len(self.value)


def format_attr_dict(attrs: dict[str, Attribute]) -> str:
    """`{a = 1, flag}` in sorted key order, so printing is deterministic."""
    parts = []
    for key in sorted(attrs):
        name = key if _BARE_ID.match(key) else quote_string(key)
        val = attrs[key]
        parts.append(name if isinstance(val, UnitAttr) else f"{name} = {val}")
    return "{" + ", ".join(parts) + "}"


@dataclass(frozen=True)
class DictAttr(Attribute):
    value: tuple[tuple[str, Attribute], ...]

    def __str__(self) -> str:
        return format_attr_dict(dict(self.value))

    def as_dict(self) -> dict[str, Attribute]:
        return dict(self.value)


# keyword -> function(parser) -> Attribute, called with the keyword already consumed.
ATTRIBUTE_PARSERS: dict[str, Callable] = {}


def register_attribute_parser(keyword: str, parse: Callable) -> None:
    """Let the parser read `keyword<...>` attributes by calling `parse(parser)`."""
    ATTRIBUTE_PARSERS[keyword] = parse
