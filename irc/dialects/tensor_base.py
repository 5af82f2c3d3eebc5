"""The base of `tensor` ops: short assembly, constant folding through the reference evaluator,
`materialize_constant`, and the shape rules several ops share (Theano's broadcasting, one
placement per op)."""
from __future__ import annotations

from typing import Sequence

from ..ir.attributes import Attribute, BoolAttr, DenseArrayAttr, FloatAttr, IntegerAttr
from ..ir.core import Operation, Pure, Value
from ..ir.location import UNKNOWN_LOC, Location
from ..ir.types import Type, i64
from .builtin import DenseAttr, TensorType
from .op_base import Bad, InferredOp
from .tensor_eval import evaluate
from .tensor_semantics import DYNAMIC, NO_BOUND  # noqa: F401  (re-exported)

# Folding evaluates with numpy at compile time; beyond this many elements it is not worth it.
FOLD_MAX_ELEMENTS = 100_000


def fmt_shape(shape: Sequence[int | None]) -> str:
    return "x".join("?" if d is None else str(d) for d in shape) or "scalar"


def tensor_types(types: Sequence[Type]) -> list[TensorType]:
    for i, t in enumerate(types):
        if not isinstance(t, TensorType):
            raise Bad(f"operand #{i} must be a tensor, got {t}")
    return list(types)  # type: ignore[arg-type]


def common_device(types: Sequence[TensorType]) -> str | None:
    """The one placement of all `types`; mixing host and device needs an explicit transfer."""
    if not types:
        return None
    first = types[0]
    for t in types[1:]:
        if t.device != first.device:
            where = lambda d: f'on "{d}"' if d else "on the host"  # noqa: E731
            raise Bad(f"mixes placements: {first} is {where(first.device)} but {t} is "
                      f"{where(t.device)}; this needs a transfer (tensor.to_device / tensor.to_host)")
    return first.device


def check_sizes(types: Sequence[TensorType], what: str) -> None:
    """Sizes and bounds given at run time are 0-d i64 operands; `what` names them ("size 0")."""
    for k, t in enumerate(types):
        check_size(t, f"{what} {k}")


def check_size(t: TensorType, what: str) -> None:
    """One run-time size or bound (`what`) is a 0-d i64 tensor."""
    if t.rank != 0 or t.element != i64:
        raise Bad(f"{what} must be a 0-d i64 tensor, got {t}")


def check_fits(src: TensorType, target: TensorType, where: str) -> None:
    """`src` can be written to `target`, the part of dest an op replaces: the same element type
    and rank, equal sizes where both are static; `where` names that part in the error."""
    if src.element != target.element or src.rank != target.rank:
        raise Bad(f"src {src} does not fit {where}")
    for axis, (a, b) in enumerate(zip(src.shape, target.shape)):
        if a is not None and b is not None and a != b:
            raise Bad(f"src {src} does not fit {where} (dim {axis}: {a} vs {b})")


def broadcast_shapes(types: Sequence[TensorType]) -> tuple[int | None, ...]:
    """Theano's broadcasting: equal ranks; per dim, equal sizes or a static 1 (broadcastable).

    A result dim is static when some operand's is static and not 1, dynamic when none is but one
    is dynamic, and 1 when all are 1."""
    if not types:
        return ()
    rank = types[0].rank
    for t in types[1:]:
        if t.rank != rank:
            raise Bad(f"operands must have the same rank (the frontend inserts dimshuffles), got "
                      f"{types[0]} and {t}")
    shape: list[int | None] = []
    for axis in range(rank):
        static = None
        static_from = None
        dynamic = False
        for t in types:
            d = t.shape[axis]
            if d is None:
                dynamic = True
            elif d != 1:
                if static is not None and d != static:
                    raise Bad(f"operands have incompatible shapes {static_from} and {t} "
                              f"(dim {axis}: {static} vs {d})")
                static, static_from = d, t
        shape.append(static if static is not None else (None if dynamic else 1))
    return tuple(shape)


def num_elements(shape: Sequence[int | None]) -> int | None:
    n = 1
    for d in shape:
        if d is None:
            return None
        n *= d
    return n


def constant_value(value: Value) -> DenseAttr | None:
    """The constant a value is, when it is the result of a `tensor.constant`."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.op_name == "tensor.constant":
        attr = owner.attributes.get("value")
        return attr if isinstance(attr, DenseAttr) else None
    return None


def verify_inplace_marks(op: Operation) -> None:
    """`inplace = array<i64: ...>` (the `inplace` pass's mark, trusted by `lower-to-loops`):
    one entry per result, each -1 or the index of an operand."""
    marks = op.attributes.get("inplace")
    if marks is None:
        return
    if not isinstance(marks, DenseArrayAttr) or len(marks.value) != len(op.results):
        raise op.error(f"'inplace' must be an array<i64: ...> of one entry per result "
                       f"({len(op.results)}), got {marks}")
    for k, i in enumerate(marks.value):
        if i != -1 and not 0 <= i < len(op.operands):
            raise op.error(f"'inplace' entry #{k} is {i}: expected -1 or an operand index "
                           f"(0 to {len(op.operands) - 1})")


class TensorOp(InferredOp):
    """Base of `tensor` ops: printed short, pure, folded when every operand is a constant, and
    on one placement (operands and results alike) unless `crosses_placements` (the transfers)."""

    assembly = "short"
    traits = (Pure,)
    crosses_placements = False

    def verify_(self) -> None:
        if not self.crosses_placements:  # first: a placement error explains the type mismatch
            types = [v.type for v in (*self.operands, *self.results) if isinstance(v.type, TensorType)]
            try:
                common_device(types)
            except Bad as e:
                raise self.error(str(e)) from None
        super().verify_()
        verify_inplace_marks(self)

    @classmethod
    def materialize_constant(cls, attribute: Attribute, type: Type, location: Location) -> Operation | None:
        """A `tensor.constant` of `type` holding `attribute` (a `DenseAttr`, or a scalar splat)."""
        if not isinstance(type, TensorType) or not type.has_static_shape:
            return None
        if isinstance(attribute, (FloatAttr, IntegerAttr, BoolAttr)):
            attribute = DenseAttr.splat(attribute.value, type)
        if not isinstance(attribute, DenseAttr) or attribute.type != type:
            return None
        return ConstantOp([], [type], {"value": attribute}, (), (), location)

    def fold(self) -> "list[Attribute | Value] | None":
        return self.fold_constants()

    def fold_constants(self) -> list[Attribute] | None:
        """Evaluate with numpy when all operands are constants and the results small and static."""
        if self.regions and self.op_name != "tensor.fused":
            return None
        consts = [constant_value(v) for v in self.operands]
        if any(c is None for c in consts):
            return None
        total = 0
        for r in self.results:
            if not isinstance(r.type, TensorType):
                return None
            n = num_elements(r.type.shape)
            if n is None:
                return None
            total += n
        if total > FOLD_MAX_ELEMENTS:
            return None
        try:
            arrays = evaluate(self, [c.array for c in consts])  # type: ignore[union-attr]
        except (ValueError, IndexError, ZeroDivisionError):
            return None  # an error at run time stays an error at run time
        return [DenseAttr.from_array(a, r.type) for a, r in zip(arrays, self.results)]


class ConstantOp(TensorOp):
    """`tensor.constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>`."""

    name = "tensor.constant"

    @classmethod
    def _infer(cls, operand_types, attributes):
        if operand_types:
            raise Bad("takes no operands")
        value = attributes.get("value")
        if not isinstance(value, DenseAttr):
            raise Bad("requires a 'value' attribute (dense<...> : tensor<...>)")
        if not value.type.has_static_shape:
            raise Bad(f"value must have a static shape, got {value.type}")
        return [value.type]

    def verify_(self) -> None:
        super().verify_()
        if self.results[0].type != self.attributes["value"].type:
            raise self.error(f"result type {self.results[0].type} differs from the value's type "
                             f"{self.attributes['value'].type}")

    @property
    def value(self) -> DenseAttr:
        return self.attributes["value"]  # type: ignore[return-value]

    def fold(self):
        return None  # already a constant; returning it would make the rewriter loop

    @staticmethod
    def from_array(array, type: TensorType | None = None, location: Location | None = None) -> "ConstantOp":
        attr = DenseAttr.from_array(array, type)
        return ConstantOp([], [attr.type], {"value": attr}, (), (), location or UNKNOWN_LOC)
