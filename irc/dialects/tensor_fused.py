"""`tensor.fused`: several elementwise ops as one, written as a region of `scalar` ops.

    %r:2 = tensor.fused(%x = %a, %y = %b) : (tensor<?xf32>, tensor<1xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
      %s = scalar.add %x, %y : f32
      %e = scalar.exp %s : f32
      scalar.yield %s, %e : f32
    }

The body's block takes one scalar per operand (its element type) and yields one scalar per
result. Every result has the operands' broadcast shape (Theano's rule) and their placement. The
body uses only its own arguments and values (isolated from above), so it can be cloned into a
loop nest or a kernel as it is.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ..ir.attributes import Attribute
from ..ir.builder import Builder, InsertionPoint
from ..ir.core import Block, ElementwiseTrait, IsolatedFromAbove, Operation, Pure, Region, Value
from ..ir.location import Location, UNKNOWN_LOC
from ..ir.types import ScalarType, Type
from .builtin import TensorType
from .op_base import Bad, InferError, compatible
from .tensor_base import TensorOp, broadcast_shapes, common_device, tensor_types, verify_inplace_marks


class FusedOp(TensorOp):
    """`tensor.fused`: a region of scalar ops applied elementwise; several results allowed."""

    name = "tensor.fused"
    traits = (Pure, ElementwiseTrait, IsolatedFromAbove)

    # -- text: `tensor.fused(%x = %a, ...) {attrs} : (operand types) -> (result types) { body }`
    def print_custom(self, printer) -> bool | None:
        if len(self.regions) != 1 or len(self.regions[0].blocks) != 1:
            return False
        block = self.regions[0].blocks[0]
        if len(block.args) != len(self.operands):
            return False
        pairs = [f"{printer.name(a)} = {printer.name(v)}" for a, v in zip(block.args, self.operands)]
        printer.write("(", ", ".join(pairs), ")", printer.attr_dict(self.attributes), " : ",
                      printer.function_type([v.type for v in self.operands], self.result_types), " ")
        printer.print_region(self.regions[0], entry_args=False)
        return None

    @classmethod
    def parse_custom(cls, parser) -> "FusedOp":
        parser.expect("(")
        defs: list[int] = []
        refs: list[int] = []
        if not parser.accept(")"):
            while True:
                defs.append(parser.parse_value_def())
                parser.expect("=")
                refs.append(parser.parse_operand_ref())
                if not parser.accept(","):
                    break
            parser.expect(")", "')' or ','")
        attrs = parser.parse_optional_attr_dict()
        parser.expect(":")
        ftype = parser.parse_function_type()
        operands = parser.resolve_operands(refs, ftype.inputs)
        elements = [t.element if isinstance(t, TensorType) else t for t in ftype.inputs]
        region = parser.parse_region(entry_args=list(zip(defs, elements)))
        return parser.create(cls, operands, ftype.results, attrs, [region])

    @classmethod
    def result_types_for(cls, operand_types: Sequence[Type], yield_types: Sequence[Type]) -> list[Type]:
        """The result types: the operands' broadcast shape and placement, the yielded elements."""
        try:
            types = tensor_types(operand_types)
            if not types:
                raise Bad("expects at least one operand")
            shape, device = broadcast_shapes(types), common_device(types)
        except Bad as e:
            raise InferError(f"'{cls.name}' op {e}") from None
        return [TensorType(shape, t, device) for t in yield_types]  # type: ignore[arg-type]

    @classmethod
    def build(cls, operands: Sequence[Value] = (), attributes: dict[str, Attribute] | None = None,
              result_types: Sequence[Type] | None = None, regions: Sequence[Region] = (),
              location: Location = UNKNOWN_LOC) -> Operation:
        if result_types is None:
            term = regions[0].blocks[0].ops[-1] if regions and regions[0].blocks[0].ops else None
            if term is None or term.op_name != "scalar.yield":
                raise InferError(f"'{cls.name}' op needs a body ending in 'scalar.yield' to infer its types")
            result_types = cls.result_types_for([v.type for v in operands], [v.type for v in term.operands])
        return cls(operands, result_types, dict(attributes or {}), regions, (), location)

    @classmethod
    def create(cls, operands: Sequence[Value], body: Callable[[Builder, list[Value]], Sequence[Value]],
               location: Location = UNKNOWN_LOC) -> "FusedOp":
        """Build a fused op whose body `body(builder, scalar_args)` fills and returns the yields."""
        block = Block([v.type.element for v in operands])  # type: ignore[attr-defined]
        builder = Builder(InsertionPoint.at_end(block), location)
        values = list(body(builder, list(block.args)))
        builder.create("scalar.yield", values, result_types=[])
        return cls.build(operands, {}, None, [Region([block])], location)  # type: ignore[return-value]

    @classmethod
    def _infer(cls, operand_types, attributes):
        raise Bad("infers its result types from its body: use FusedOp.build with a region")

    @property
    def body(self) -> Block:
        return self.regions[0].blocks[0]

    def verify_(self) -> None:
        shape, device, yields = self.verify_body()
        if len(yields) != len(self.results):
            raise self.error(f"body yields {len(yields)} value(s) but the op has "
                             f"{len(self.results)} result(s)")
        for i, (v, r) in enumerate(zip(yields, self.results)):
            expected = TensorType(shape, v.type, device)
            if not compatible(r.type, expected):
                raise self.error(f"result #{i} has type {r.type}, but the operands and body give {expected}")

    def verify_body(self) -> tuple[tuple, str | None, list[Value]]:
        """Checks the operands and the scalar body; returns the operands' broadcast shape, their
        placement and the yielded scalars."""
        verify_inplace_marks(self)
        try:
            types = tensor_types([v.type for v in self.operands])
            if not types:
                raise Bad("expects at least one operand")
            shape, device = broadcast_shapes(types), common_device(types)
        except Bad as e:
            raise self.error(str(e)) from None
        if len(self.regions) != 1 or len(self.regions[0].blocks) != 1:
            raise self.error("must have one region with one block")
        block = self.body
        if len(block.args) != len(types):
            raise self.error(f"body takes {len(block.args)} argument(s) but the op has "
                             f"{len(types)} operand(s)")
        for i, (arg, t) in enumerate(zip(block.args, types)):
            if arg.type != t.element:
                raise self.error(f"body argument #{i} has type {arg.type} but operand #{i} is {t}")
        return shape, device, check_scalar_body(self, block)


def check_scalar_body(op: Operation, block: Block) -> list[Value]:
    """The values a fused body yields, after checking that it holds only scalar ops using
    only its arguments and each other, and ends in `scalar.yield` of scalars."""
    if not block.ops or block.ops[-1].op_name != "scalar.yield":
        raise op.error("body must end in 'scalar.yield'")
    defined: set[int] = {id(a) for a in block.args}
    for inner in block.ops:
        if inner.dialect != "scalar" or inner.regions:
            raise op.error(f"body may hold only scalar ops, found '{inner.op_name}'")
        for v in inner.operands:
            if id(v) not in defined:
                raise op.error(f"body op '{inner.op_name}' uses a value defined outside the body")
        defined.update(id(r) for r in inner.results)
    yields = list(block.ops[-1].operands)
    for i, v in enumerate(yields):
        if not isinstance(v.type, ScalarType):
            raise op.error(f"yielded value #{i} must be a scalar, got {v.type}")
    return yields
