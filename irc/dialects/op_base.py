"""Ops whose result types follow from their operands and attributes.

One rule function (`_infer`) serves both the builder (`infer_result_types`, which the frontend
calls for its own type inference) and the verifier (`verify_`, which also checks that the
result types agree with the rule), so the two can never disagree.
"""
from __future__ import annotations

from typing import Sequence

from ..ir.attributes import Attribute, DenseArrayAttr, FloatAttr, IntegerAttr, StringAttr, TypeAttr
from ..ir.core import Operation
from ..ir.diagnostics import VerifyError
from ..ir.types import ScalarType, Type
from .builtin import TensorType


class InferError(VerifyError, ValueError):
    """Operand types or attributes an op cannot accept (raised while inferring result types)."""


class Bad(Exception):
    """Raised by `_infer` rules with a message; turned into `InferError` or a verify error."""


def compatible(declared: Type, inferred: Type) -> bool:
    """Whether a declared result type agrees with the inferred one (it may know more sizes)."""
    if isinstance(declared, TensorType) and isinstance(inferred, TensorType):
        return (declared.element == inferred.element and declared.device == inferred.device
                and declared.rank == inferred.rank
                and all(b is None or a == b for a, b in zip(declared.shape, inferred.shape)))
    return declared == inferred


class InferredOp(Operation):
    """Base of ops with an `_infer(operand_types, attributes) -> result types` rule."""

    @classmethod
    def _infer(cls, operand_types: Sequence[Type], attributes: dict[str, Attribute]) -> list[Type]:
        raise NotImplementedError

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Type],
                           attributes: dict[str, Attribute]) -> list[Type]:
        try:
            return cls._infer(list(operand_types), attributes)
        except Bad as e:
            raise InferError(f"'{cls.name}' op {e}") from None

    def verify_(self) -> None:
        try:
            inferred = type(self)._infer([v.type for v in self.operands], self.attributes)
        except Bad as e:
            raise self.error(str(e)) from None
        declared = self.result_types
        if len(declared) != len(inferred):
            raise self.error(f"has {len(declared)} result(s), expected {len(inferred)}")
        for i, (d, t) in enumerate(zip(declared, inferred)):
            if not compatible(d, t):
                raise self.error(f"result #{i} has type {d}, but the operands give {t}")


# ---------------------------------------------------------------------------- attribute readers
def int_array(attrs: dict[str, Attribute], key: str, what: str = "array<i64: ...>") -> tuple[int, ...]:
    a = attrs.get(key)
    if not isinstance(a, DenseArrayAttr):
        raise Bad(f"requires a '{key}' attribute ({what})")
    return tuple(a.value)


def int_attr(attrs: dict[str, Attribute], key: str) -> int:
    a = attrs.get(key)
    if not isinstance(a, IntegerAttr):
        raise Bad(f"requires an integer '{key}' attribute")
    return a.value


def float_attr(attrs: dict[str, Attribute], key: str, default: float) -> float:
    a = attrs.get(key)
    if a is None:
        return default
    if not isinstance(a, (FloatAttr, IntegerAttr)):
        raise Bad(f"'{key}' must be a number, got {a}")
    return float(a.value)


def str_attr(attrs: dict[str, Attribute], key: str) -> str:
    a = attrs.get(key)
    if not isinstance(a, StringAttr):
        raise Bad(f"requires a string '{key}' attribute")
    return a.value


def type_attr(attrs: dict[str, Attribute], key: str) -> ScalarType:
    a = attrs.get(key)
    if not isinstance(a, TypeAttr) or not isinstance(a.value, ScalarType):
        raise Bad(f"requires a '{key}' attribute naming a scalar type (e.g. {key} = f32)")
    return a.value
