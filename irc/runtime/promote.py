"""A float64 twin of a function: every f16/f32 tensor becomes f64 (DebugMode's arbiter).

When the optimized function and the unoptimized one disagree in float32, the question is
which one is right: a stabilizing rewrite is *more* accurate than the original formula. The
unoptimized function run in float64 answers it."""
from __future__ import annotations

from typing import Any

from ..dialects.builtin import DenseAttr, TensorType
from ..ir.attributes import Attribute, TypeAttr
from ..ir.core import Operation
from ..ir.types import FunctionType, ScalarType, Type, f64

_LOW = ("f16", "f32")


def _type(t: Type) -> Type:
    if isinstance(t, TensorType) and t.element.name in _LOW:
        return t.with_element(f64)
    if isinstance(t, ScalarType) and t.name in _LOW:
        return f64
    if isinstance(t, FunctionType):
        return FunctionType(tuple(map(_type, t.inputs)), tuple(map(_type, t.results)))
    return t


def _attr(a: Attribute) -> Attribute:
    if isinstance(a, TypeAttr):
        return TypeAttr(_type(a.value))
    if isinstance(a, DenseAttr) and a.type.element.name in _LOW:
        new_type = _type(a.type)
        return DenseAttr.from_array(a.array.astype("float64"), new_type)  # type: ignore[arg-type]
    return a


def promote_to_f64(module: Operation) -> Operation:
    """A copy of `module` with every low-precision float type raised to f64."""
    twin = module.clone()
    for op in twin.walk():
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg.type = _type(arg.type)
        for r in op.results:
            r.type = _type(r.type)
        op.attributes = {k: _attr(v) for k, v in op.attributes.items()}
    return twin


def needs_promotion(module: Operation) -> bool:
    return any(_type(r.type) != r.type for op in module.walk() for r in op.results) or any(
        _type(a.type) != a.type for op in module.walk() for reg in op.regions
        for b in reg.blocks for a in b.args)


def as_f64(arrays: list[Any]) -> list[Any]:
    """Float arrays as float64 (the arbiter's arguments); other arrays unchanged."""
    return [a.astype("float64") if getattr(a, "dtype", None) is not None and a.dtype.kind == "f"
            else a for a in arrays]
