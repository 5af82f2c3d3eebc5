"""`scalar`: arithmetic and math on single values — the bodies of `tensor.fused` regions and of
loops. One op per row of the elementwise table (generated below), plus `constant`, `cast` and
`yield`.

    %c = scalar.constant {value = 1.0 : f32} : f32
    %r = scalar.add %a, %c : f32
    scalar.yield %r : f32
"""
from __future__ import annotations

from typing import ClassVar, Sequence

import numpy as np

from ..ir.attributes import Attribute, BoolAttr, FloatAttr, IntegerAttr
from ..ir.assembly_forms import OperandListForm
from ..ir.core import Commutative, ElementwiseTrait, Operation, Pure, Terminator
from ..ir.location import Location
from ..ir.types import ScalarType, Type, i1
from .builtin import DenseAttr, TensorType
from .elementwise import TABLE_ROWS, Elementwise, check_element_types
from .op_base import Bad, InferredOp, type_attr


def _scalar_types(operand_types: Sequence[Type]) -> list[ScalarType]:
    for i, t in enumerate(operand_types):
        if not isinstance(t, ScalarType):
            raise Bad(f"operand #{i} must be a scalar, got {t}")
    return list(operand_types)  # type: ignore[arg-type]


def scalar_attr(value, type: ScalarType) -> Attribute:
    """The attribute holding one value of `type` (`BoolAttr`, `IntegerAttr` or `FloatAttr`; a
    complex number is a 0-d `dense<(re, im)> : tensor<c64>`, the one attribute holding a pair)."""
    if type.is_complex:
        return DenseAttr.from_array(np.array(value, dtype=type.numpy_name), TensorType((), type))
    if type.is_bool:
        return BoolAttr(bool(value))
    if type.is_integer:
        return IntegerAttr(int(value), type)
    return FloatAttr(float(value), type)


def attr_scalar_type(attr: Attribute) -> ScalarType | None:
    """The scalar type of a constant attribute, or None if it is not a scalar constant."""
    if isinstance(attr, BoolAttr):
        return i1
    if isinstance(attr, (IntegerAttr, FloatAttr)) and isinstance(attr.type, ScalarType):
        return attr.type
    if isinstance(attr, DenseAttr) and attr.type.shape == () and attr.type.element.is_complex:
        return attr.type.element
    return None


def attr_value(attr: Attribute) -> np.ndarray:
    """A scalar constant attribute as a 0-d numpy array of its exact dtype."""
    t = attr_scalar_type(attr)
    assert t is not None, attr
    if isinstance(attr, DenseAttr):
        return np.array(attr.array)
    return np.array(attr.value, dtype=t.numpy_name)  # type: ignore[attr-defined]


class ScalarOp(InferredOp):
    """Base of scalar ops: short assembly; folds to `scalar.constant`."""

    assembly = "short"
    traits = (Pure,)

    @classmethod
    def materialize_constant(cls, attribute: Attribute, type: Type, location: Location) -> Operation | None:
        if isinstance(type, ScalarType) and attr_scalar_type(attribute) == type:
            return ConstantOp([], [type], {"value": attribute}, (), (), location)
        return None

    def _constant_operands(self) -> list[np.ndarray] | None:
        values = []
        for v in self.operands:
            owner = v.owner
            if not isinstance(owner, ConstantOp):
                return None
            values.append(attr_value(owner.attributes["value"]))
        return values


class ConstantOp(ScalarOp):
    """`scalar.constant {value = 1.0 : f32} : f32`; the result type is the value's type."""

    name = "scalar.constant"

    @classmethod
    def _infer(cls, operand_types, attributes):
        if operand_types:
            raise Bad("takes no operands")
        t = attr_scalar_type(attributes.get("value"))  # type: ignore[arg-type]
        if t is None:
            raise Bad("requires a scalar 'value' attribute (e.g. value = 1.0 : f32)")
        return [t]

    @property
    def value(self) -> Attribute:
        return self.attributes["value"]

    def fold(self):
        return None  # already a constant; returning it would make the rewriter loop


class CastOp(ScalarOp):
    """`scalar.cast %x {to = f32} : (i32) -> f32`: numpy's `astype` (floats truncate to ints)."""

    name = "scalar.cast"

    @classmethod
    def _infer(cls, operand_types, attributes):
        if len(operand_types) != 1:
            raise Bad(f"expects 1 operand, got {len(operand_types)}")
        _scalar_types(operand_types)
        return [type_attr(attributes, "to")]

    def fold(self):
        args = self._constant_operands()
        if args is None:
            return None
        t = self.results[0].type
        with np.errstate(all="ignore"):
            return [scalar_attr(args[0].astype(t.numpy_name).item(), t)]


class YieldOp(OperandListForm, Operation):
    """`scalar.yield %a, %b : f32, i1` — ends a `tensor.fused` body; the fused op checks types."""

    name = "scalar.yield"
    traits = (Terminator, Pure)

    def verify_(self) -> None:
        for i, v in enumerate(self.operands):
            if not isinstance(v.type, ScalarType):
                raise self.error(f"operand #{i} must be a scalar, got {v.type}")


class ScalarElementwiseOp(ScalarOp):
    """A row of the elementwise table on scalars; subclasses are generated, one per row."""

    fn: ClassVar[Elementwise]

    @classmethod
    def _infer(cls, operand_types, attributes):
        types = _scalar_types(operand_types)
        try:
            return [check_element_types(cls.fn, types)]
        except ValueError as e:
            raise Bad(str(e)) from None

    def fold(self):
        args = self._constant_operands()
        if args is None:
            return None
        t = self.results[0].type
        try:
            with np.errstate(all="ignore"):
                value = np.asarray(self.fn.reference(*args)).astype(t.numpy_name)
        except (ValueError, ArithmeticError):
            return None  # e.g. an integer to a negative power: an error at run time stays one
        return [scalar_attr(value.item(), t)]


def _class_name(prefix: str, row: Elementwise) -> str:
    return prefix + "".join(part.capitalize() for part in row.name.split("_")) + "Op"


def _generate() -> dict[str, type[ScalarElementwiseOp]]:
    ops: dict[str, type[ScalarElementwiseOp]] = {}
    for row in TABLE_ROWS:
        traits = (Pure, ElementwiseTrait) + ((Commutative,) if row.commutative else ())
        cls = type(_class_name("Scalar", row), (ScalarElementwiseOp,), {
            "name": row.scalar_name, "fn": row, "traits": traits,
            "__doc__": f"`{row.scalar_name}`: elementwise table row '{row.name}' on scalars.",
            "__module__": __name__,
        })
        ops[row.name] = cls
        globals()[cls.__name__] = cls
    return ops


SCALAR_OPS: dict[str, type[ScalarElementwiseOp]] = _generate()
